/* session_create and session_destroy. */
#include "args.h"
#include "engine.h"
#include "entries.h"
#include "entry.h"

sg_status sg_session_create(const sg_session_config *config,
                            sg_session **session_out) {
  sg_call c;
  sg_enter_unlocked(&c, "session_create");
  if (session_out == NULL) {
    return sg_leave(&c, sg_fail(NULL, SG_ERR_INVALID_ARGUMENT,
                                "session_out is NULL"));
  }
  *session_out = NULL;
  sg_session_config cfg;
  sg_status st = SG_READ(NULL, sg_session_config, config, &cfg, "config");
  if (st == SG_OK) {
    st = sg_session_new(&cfg, session_out);
  }
  return sg_leave(&c, st);
}

/* Destroyed mid-capture: the capture (its regions' bodies too) goes first,
 * so that the host's stream is usable. */
static void end_capture(sg_session *s) {
  sg_device_scope scope = {0, false};
  bool invalidated = false;
  if (sg_device_push(&s->diag, s->device, &scope) == SG_OK) {
    (void)sg_engine_abandon(s, false, &invalidated); /* no agreement */
  }
  sg_device_pop(&scope);
}

void sg_session_destroy(sg_session *session) {
  if (session == NULL) {
    return;
  }
  sg_call c;
  sg_enter_unlocked(&c, "session_destroy");
  if (session->state == SG_STATE_CAPTURING) {
    end_capture(session);
  }
  sg_session_free(session);
  sg_leave(&c, SG_OK);
}

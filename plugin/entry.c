/* The entry protocol (enter, leave, guards) and last_error. */
#include "entry.h"

#include <stdio.h>

#include "args.h"
#include "entries.h"

static void name_entry(sg_call *c, sg_session *s, const char *entry) {
  c->session = s;
  c->prev_entry = sg_entry_swap(entry);
  c->locked = false;
  c->device = (sg_device_scope){0, false};
}

void sg_enter_unlocked(sg_call *c, const char *entry) {
  name_entry(c, NULL, entry);
}

sg_status sg_enter(sg_call *c, sg_session *s, const char *entry) {
  name_entry(c, s, entry);
  if (s == NULL) {
    return sg_fail(NULL, SG_ERR_INVALID_ARGUMENT, "session is NULL");
  }
  pthread_mutex_lock(&s->lock);
  c->locked = true;
  return s->validation_only ? SG_OK
                            : sg_device_push(&s->diag, s->device, &c->device);
}

sg_status sg_leave(sg_call *c, sg_status st) {
  sg_device_pop(&c->device);
  if (c->locked) {
    pthread_mutex_unlock(&c->session->lock);
  }
  (void)sg_entry_swap(c->prev_entry);
  return st;
}

sg_status sg_require_usable(sg_session *s) {
  return sg_comm_require_usable(&s->comm);
}

sg_status sg_require_device(sg_session *s) {
  if (!s->validation_only) {
    return sg_require_usable(s);
  }
  return sg_fail(&s->diag, SG_ERR_NO_DEVICE,
                 "needs a GPU, and the session was created with "
                 "SG_SESSION_VALIDATION_ONLY");
}

sg_status sg_require_not_capturing(sg_session *s) {
  if (s->state != SG_STATE_CAPTURING) {
    return SG_OK;
  }
  return sg_fail(&s->diag, SG_ERR_INVALID_STATE,
                 "not allowed while key %llu is being captured; call "
                 "capture_end first",
                 (unsigned long long)s->graphs.capturing_key);
}

sg_status sg_require_open_registry(sg_session *s) {
  sg_status st = sg_require_not_capturing(s);
  if (st == SG_OK) {
    st = sg_comm_require_usable(&s->comm);
  }
  if (st == SG_OK && s->frozen) {
    st = sg_fail(&s->diag, SG_ERR_INVALID_STATE,
                 "registration is closed once the session's first capture "
                 "has begun or a refresh was launched into a capture "
                 "(captured graphs bake the tables in)");
  }
  return st;
}

sg_status sg_require_sync_allowed(sg_session *s, sg_stream stream) {
  sg_status st = sg_require_not_capturing(s);
  if (st == SG_OK) {
    st = sg_check_stream_arg(&s->diag, stream, "stream");
  }
  if (st == SG_OK) {
    st = sg_require_device(s);
  }
  return st;
}

sg_status sg_last_error(sg_session *session, char *buf, size_t buf_size,
                        size_t *needed_out) {
  sg_diag *d = session != NULL ? &session->diag : NULL;
  if (buf == NULL && buf_size > 0) {
    /* last_error takes no session lock (it must answer while another
     * thread is inside a long entry), so it must not log: the host's
     * callback is never called concurrently for one session. */
    char message[96];
    snprintf(message, sizeof message,
             "last_error: buf is NULL but buf_size is %zu", buf_size);
    sg_error_set(d, message);
    return SG_ERR_INVALID_ARGUMENT;
  }
  return sg_error_copy(d, buf, buf_size, needed_out);
}

/* The agreement after a capture: this rank's outcome through the
 * communicator, and what every rank then does with the key (agreement.h). */
#include "agreement.h"

#include <stdio.h>
#include <string.h>

/* A detail message without its "<entry>: " prefix, which sg_fail adds
 * again. */
static const char *without_entry(const char *message) {
  const char *entry = sg_current_entry();
  const size_t n = strlen(entry);
  if (n > 0 && strncmp(message, entry, n) == 0 && message[n] == ':' &&
      message[n + 1] == ' ') {
    return message + n + 2;
  }
  return message;
}

static void current_detail(sg_session *s, char *buf, size_t cap) {
  (void)sg_error_copy(&s->diag, buf, cap, NULL);
}

/* No answer: nobody knows what the others did, so nobody replays. */
static sg_status no_agreement(sg_session *s, sg_graph *e, sg_status st,
                              const char *cause) {
  char why[SG_ERROR_CAPACITY];
  current_detail(s, why, sizeof why);
  sg_graph_make_eager(e, "%s", without_entry(why));
  e->eager_logged = true; /* sg_fail logged it */
  if (cause[0] == '\0') {
    return st;
  }
  return sg_fail(&s->diag, st, "%s (this rank's own capture had failed "
                 "before: %s)",
                 without_entry(why), without_entry(cause));
}

static sg_status self_failed(sg_session *s, sg_graph *e, const char *ranks,
                             const char *cause) {
  if (!e->eager_only) { /* instantiation failed: the key had no mark yet */
    sg_graph_make_eager(e, "%s", without_entry(cause));
  }
  e->eager_logged = true;
  return sg_fail(&s->diag, SG_ERR_CAPTURE_FAILED,
                 "%s; %s failed on key %llu, so every rank runs it eagerly",
                 without_entry(cause), ranks, (unsigned long long)e->key);
}

sg_status sg_agreement_settle(sg_session *s, sg_graph *e, cudaStream_t stream,
                              sg_status local) {
  sg_comm *c = &s->comm;
  if (!sg_comm_active(c)) {
    return local;
  }
  char cause[SG_ERROR_CAPACITY] = "";
  if (local != SG_OK) {
    current_detail(s, cause, sizeof cause);
  }
  char about[64];
  snprintf(about, sizeof about, "key %llu", (unsigned long long)e->key);
  const uint64_t *failed = NULL;
  sg_status st = sg_comm_agree(c, stream, local == SG_OK, about, &failed);
  if (st != SG_OK) {
    return no_agreement(s, e, st, cause);
  }
  char ranks[256];
  sg_comm_list_ranks(c, failed, ranks, sizeof ranks);
  if (local != SG_OK) {
    return self_failed(s, e, ranks, cause);
  }
  for (uint32_t w = 0; w < c->words; w++) {
    if (failed[w] != 0) {
      sg_graph_make_eager(e,
                          "%s failed to capture or instantiate it, so every "
                          "rank runs it eagerly (invalidate lets it capture "
                          "again)",
                          ranks);
      return SG_RUN_EAGERLY;
    }
  }
  return SG_OK;
}

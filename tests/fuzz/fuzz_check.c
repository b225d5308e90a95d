/* The checks every call goes through: status in the model's set, detail
 * messages where the header puts them and nowhere else, the log callback's
 * promises. */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fuzz.h"

const sg_api *fz_api;
fz_model *fz_sessions[2];
atomic_bool fz_log_linger;

void fz_fail(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "\nstepgraph fuzz: broken promise: ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  va_end(ap);
  abort();
}

sg_session *fz_handle(const fz_model *m) { return m != NULL ? m->s : NULL; }

void fz_message(const fz_model *m, char *buf, size_t size) {
  size_t needed = 0;
  sg_status st = fz_api->last_error(fz_handle(m), buf, size, &needed);
  if (st != SG_OK || needed >= size) {
    fz_fail("last_error(buf, %zu) gave %d, needed %zu", size, (int)st, needed);
  }
}

fz_model *fz_pick_session(fz_in *in, int *slot_out) {
  const int slot = fz_u8(in) % 3; /* 2: a NULL session */
  if (slot_out != NULL) {
    *slot_out = slot;
  }
  return slot < 2 ? fz_sessions[slot] : NULL;
}

static void snapshot(char before[3][FZ_MESSAGE_MAX]) {
  fz_message(NULL, before[0], FZ_MESSAGE_MAX);
  for (int i = 0; i < 2; i++) {
    before[i + 1][0] = '\0';
    if (fz_sessions[i] != NULL) {
      fz_message(fz_sessions[i], before[i + 1], FZ_MESSAGE_MAX);
    }
  }
}

void fz_begin(fz_call *c, const char *entry, fz_model *m, fz_set expect) {
  c->entry = entry;
  c->m = m;
  c->expect = expect;
  snapshot(c->before);
}

static void expect_detail(const fz_call *c, const char *now) {
  const size_t n = strlen(c->entry);
  if (strncmp(now, c->entry, n) != 0 || strncmp(now + n, ": ", 2) != 0 ||
      now[n + 2] == '\0') {
    fz_fail("%s failed with detail \"%s\": not \"%s: <what was wrong>\"",
            c->entry, now, c->entry);
  }
}

void fz_end(fz_call *c, sg_status st) {
  if (st < 0 || st >= SG_STATUS_COUNT) {
    fz_fail("%s returned %d, not a documented status", c->entry, (int)st);
  }
  if ((c->expect & FZ_ONE(st)) == 0) {
    fz_fail("%s returned %d (%s); the header allows set 0x%x here", c->entry,
            (int)st, fz_api->status_string(st), (unsigned)c->expect);
  }
  char now[3][FZ_MESSAGE_MAX];
  snapshot(now);
  /* Where a failure's detail goes: the session's, or the thread's. */
  int owner = 0;
  for (int i = 0; i < 2; i++) {
    if (c->m != NULL && fz_sessions[i] == c->m) {
      owner = i + 1;
    }
  }
  for (int i = 0; i < 3; i++) {
    const bool may_change = st != SG_OK && i == owner;
    if (may_change) {
      expect_detail(c, now[i]);
    } else if (strcmp(now[i], c->before[i]) != 0) {
      fz_fail("%s (status %d) changed %s detail from \"%s\" to \"%s\"",
              c->entry, (int)st, i == 0 ? "the thread's" : "a session's",
              c->before[i], now[i]);
    }
  }
}

void fz_log(void *user, int32_t level, const char *message) {
  fz_model *m = user;
  if (atomic_fetch_add(&m->in_log, 1) != 0) {
    fz_fail("log_fn ran concurrently for one session");
  }
  if (message == NULL || level <= SG_LOG_OFF || level > SG_LOG_DEBUG ||
      level > m->log_level) {
    fz_fail("log_fn(level %d, message %p) for a session at level %d",
            (int)level, (const void *)message, (int)m->log_level);
  }
  if (strnlen(message, FZ_MESSAGE_MAX) == FZ_MESSAGE_MAX) {
    fz_fail("log_fn's message is not a string of reasonable length");
  }
  if (atomic_load(&fz_log_linger)) {
    const struct timespec pause = {0, 2000};
    nanosleep(&pause, NULL);
  }
  atomic_fetch_sub(&m->in_log, 1);
}

void fz_model_free(fz_model *m) {
  if (m != NULL) {
    free(m->params);
    free(m->fp8_ranges);
    free(m->static_ranges);
    free(m);
  }
}

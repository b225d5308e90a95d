#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const level_names[] = {"off", "error", "warn", "info",
                                          "debug"};
#define LEVEL_COUNT ((int32_t)(sizeof level_names / sizeof level_names[0]))

static void deliver(const sg_logger *l, int32_t level, const char *fmt,
                    va_list ap) {
  char message[1024];
  vsnprintf(message, sizeof message, fmt, ap);
  if (l->fn != NULL) {
    l->fn(l->user, level, message);
  } else {
    fprintf(stderr, "stepgraph[%s]: %s\n", level_names[level], message);
  }
}

void sg_log(const sg_logger *l, int32_t level, const char *fmt, ...) {
  if (l == NULL || level > l->level || level <= SG_LOG_OFF) {
    return;
  }
  va_list ap;
  va_start(ap, fmt);
  deliver(l, level, fmt, ap);
  va_end(ap);
}

void sg_log_env_warning(const sg_logger *l, int *once, const char *fmt, ...) {
  if (__atomic_exchange_n(once, 1, __ATOMIC_RELAXED)) {
    return;
  }
  va_list ap;
  va_start(ap, fmt);
  deliver(l, SG_LOG_WARN, fmt, ap);
  va_end(ap);
}

/* A number 0..4 (larger ones mean debug) or a level name; -1 otherwise. */
static int32_t parse_level(const char *v) {
  for (int32_t i = 0; i < LEVEL_COUNT; i++) {
    if (strcasecmp(v, level_names[i]) == 0) {
      return i;
    }
  }
  char *end = NULL;
  long n = strtol(v, &end, 10);
  if (end == v || *end != '\0' || n < 0) {
    return -1;
  }
  return n < LEVEL_COUNT ? (int32_t)n : LEVEL_COUNT - 1;
}

void sg_logger_init(sg_logger *l, int32_t config_level, sg_log_fn fn,
                    void *user) {
  static int warned;
  l->level = config_level;
  l->fn = fn;
  l->user = user;
  const char *v = getenv("STEPGRAPH_LOG_LEVEL");
  if (v == NULL || *v == '\0') {
    return;
  }
  const int32_t env = parse_level(v);
  if (env >= 0) {
    l->level = env;
  } else {
    sg_log_env_warning(l, &warned,
                       "STEPGRAPH_LOG_LEVEL=\"%s\" is not a level (off, "
                       "error, warn, info, debug or 0-4); ignored",
                       v);
  }
}

#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const level_names[] = {"off", "error", "warn", "info",
                                          "debug"};
#define LEVEL_COUNT ((int32_t)(sizeof level_names / sizeof level_names[0]))

/* Accepts a number or a level name; -1 when unset or unreadable. */
static int32_t env_level(void) {
  const char *v = getenv("STEPGRAPH_LOG_LEVEL");
  if (v == NULL || *v == '\0') {
    return -1;
  }
  for (int32_t i = 0; i < LEVEL_COUNT; i++) {
    if (strcasecmp(v, level_names[i]) == 0) {
      return i;
    }
  }
  char *end = NULL;
  long n = strtol(v, &end, 10);
  return (*end == '\0' && n >= 0) ? (int32_t)(n < LEVEL_COUNT ? n : LEVEL_COUNT - 1)
                                  : -1;
}

void sg_logger_init(sg_logger *l, int32_t config_level, sg_log_fn fn,
                    void *user) {
  int32_t env = env_level();
  l->level = env >= 0 ? env : config_level;
  l->fn = fn;
  l->user = user;
}

void sg_log(const sg_logger *l, int32_t level, const char *fmt, ...) {
  if (l == NULL || level > l->level || level <= SG_LOG_OFF) {
    return;
  }
  char message[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(message, sizeof message, fmt, ap);
  va_end(ap);
  if (l->fn != NULL) {
    l->fn(l->user, level, message);
  } else {
    fprintf(stderr, "stepgraph[%s]: %s\n", level_names[level], message);
  }
}

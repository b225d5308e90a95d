/* A log callback that keeps every message the plugin logs, one a line, for
 * tests that check what it said (pass it as config.log_fn with a heard as
 * log_user). Header-only. */
#ifndef SG_LOG_CAPTURE_H
#define SG_LOG_CAPTURE_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef struct heard {
  char text[4096];
} heard;

static inline void sg_hear(void *user, int32_t level, const char *message) {
  heard *h = user;
  (void)level;
  const size_t used = strlen(h->text);
  snprintf(h->text + used, sizeof h->text - used, "%s\n", message);
}

#endif /* SG_LOG_CAPTURE_H */

/* Logging: the host's callback (or stderr) at the session's level. The
 * level comes from the config unless STEPGRAPH_LOG_LEVEL overrides it. */
#ifndef SG_LOG_H
#define SG_LOG_H

#include <stdint.h>

#include "stepgraph.h"

typedef struct sg_logger {
  int32_t level;
  sg_log_fn fn;
  void *user;
} sg_logger;

/* Resolves the effective level from the config's and the environment; an
 * unreadable STEPGRAPH_LOG_LEVEL is ignored with one warning per process. */
void sg_logger_init(sg_logger *l, int32_t config_level, sg_log_fn fn,
                    void *user);

void sg_log(const sg_logger *l, int32_t level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A warning about the process's environment (a misspelt STEPGRAPH_*
 * variable): delivered whatever the session's level, since the user meant
 * to talk to the plugin; each caller passes its own once-flag. */
void sg_log_env_warning(const sg_logger *l, int *once, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif

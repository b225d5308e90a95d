/* The plugin's boolean environment switches, read one way everywhere. */
#ifndef SG_ENV_H
#define SG_ENV_H

#include <stdbool.h>

#include "log.h"

/* true for 1, true, yes, on; false when unset or empty or for 0, false,
 * no, off (any case). Anything else is false, with one warning per process
 * through `log` (the caller's once-flag). */
bool sg_env_flag(const char *name, const sg_logger *log, int *once);

#endif

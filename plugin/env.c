#include "env.h"

#include <stdlib.h>
#include <strings.h>

static bool is_one_of(const char *v, const char *const *words) {
  for (; *words != NULL; words++) {
    if (strcasecmp(v, *words) == 0) {
      return true;
    }
  }
  return false;
}

bool sg_env_flag(const char *name, const sg_logger *log, int *once) {
  static const char *const yes[] = {"1", "true", "yes", "on", NULL};
  static const char *const no[] = {"0", "false", "no", "off", NULL};
  const char *v = getenv(name);
  if (v == NULL || *v == '\0' || is_one_of(v, no)) {
    return false;
  }
  if (is_one_of(v, yes)) {
    return true;
  }
  sg_log_env_warning(log, once,
                     "%s=\"%s\" is neither on (1, true, yes, on) nor off "
                     "(0, false, no, off); taken as off",
                     name, v);
  return false;
}

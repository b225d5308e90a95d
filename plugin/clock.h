/* Milliseconds of a monotonic clock, for capture/instantiate statistics and
 * bounded waits. */
#ifndef SG_CLOCK_H
#define SG_CLOCK_H

#include <time.h>

static inline double sg_now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

#endif

#include "poll.h"

#include <time.h>

#include "clock.h"

sg_status sg_poll_until(sg_poll_fn fn, void *ctx, uint32_t timeout_ms) {
  const double deadline = sg_now_ms() + timeout_ms;
  long sleep_ns = 10000;
  for (;;) {
    bool done = false;
    sg_status st = fn(ctx, &done);
    if (st != SG_OK || done) {
      return st;
    }
    if (sg_now_ms() >= deadline) {
      return SG_ERR_TIMEOUT;
    }
    struct timespec pause = {0, sleep_ns};
    nanosleep(&pause, NULL);
    sleep_ns = sleep_ns < 1000000 ? sleep_ns * 2 : sleep_ns;
  }
}

/* sync: a bounded wait for a stream (NCCL error polling joins it with
 * multi-GPU sessions). */
#define _POSIX_C_SOURCE 200809L
#include <time.h>

#include "args.h"
#include "cuda_check.h"
#include "entries.h"
#include "session.h"

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* Polls instead of cudaStreamSynchronize so that the wait can end; the
 * sleep grows from 10 us to 1 ms to keep latency low for short waits. */
static sg_status wait_stream(sg_session *s, sg_stream stream,
                             uint32_t timeout_ms) {
  const double deadline = now_ms() + timeout_ms;
  long sleep_ns = 10000;
  for (;;) {
    cudaError_t err = cudaStreamQuery(stream);
    if (err != cudaErrorNotReady) {
      return SG_CUDA(s, err);
    }
    if (now_ms() >= deadline) {
      return sg_fail(s, SG_ERR_TIMEOUT,
                     "stream %p still busy after %u ms", (void *)stream,
                     timeout_ms);
    }
    struct timespec pause = {0, sleep_ns};
    nanosleep(&pause, NULL);
    sleep_ns = sleep_ns < 1000000 ? sleep_ns * 2 : sleep_ns;
  }
}

sg_status sg_sync(sg_session *s, sg_stream stream, uint32_t timeout_ms) {
  sg_call c;
  sg_status st = sg_enter(&c, s, "sync");
  if (st == SG_OK) {
    st = sg_require_sync_allowed(s, stream);
  }
  if (st == SG_OK) {
    st = wait_stream(s, stream, timeout_ms);
  }
  return sg_leave(&c, st);
}

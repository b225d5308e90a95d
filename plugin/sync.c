/* sync: a bounded wait for a stream (NCCL error polling joins it with
 * multi-GPU sessions), then the stale-transpose detector's findings. */
#include <time.h>

#include "args.h"
#include "clock.h"
#include "cuda_check.h"
#include "entries.h"
#include "entry.h"

/* Polls instead of cudaStreamSynchronize so that the wait can end; the
 * sleep grows from 10 us to 1 ms to keep latency low for short waits. */
static sg_status wait_stream(sg_session *s, sg_stream stream,
                             uint32_t timeout_ms) {
  const double deadline = sg_now_ms() + timeout_ms;
  long sleep_ns = 10000;
  for (;;) {
    cudaError_t err = cudaStreamQuery(stream);
    if (err != cudaErrorNotReady) {
      return SG_CUDA(&s->diag, err);
    }
    if (sg_now_ms() >= deadline) {
      return sg_fail(&s->diag, SG_ERR_TIMEOUT,
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
  if (st == SG_OK && s->detector.enabled) { /* the stream is idle: cheap */
    st = sg_detector_read(&s->detector, (cudaStream_t)stream, s->fp8.params,
                          s->fp8.count, NULL, 0);
  }
  return sg_leave(&c, st);
}

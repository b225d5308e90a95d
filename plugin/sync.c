/* sync: a bounded wait for a stream that, with a communicator, also polls
 * its asynchronous error and aborts it on a timeout when asked to; then
 * the stale-transpose detector's findings. */
#include <stdio.h>

#include "args.h"
#include "cuda_check.h"
#include "entries.h"
#include "entry.h"
#include "poll.h"

typedef struct stream_wait {
  sg_session *s;
  cudaStream_t stream;
} stream_wait;

/* cudaStreamQuery, not cudaStreamSynchronize, so that the wait can end;
 * between queries a communicator's error would otherwise go unseen while
 * its collective hangs. */
static sg_status poll_stream(void *ctx, bool *done) {
  stream_wait *w = ctx;
  cudaError_t err = cudaStreamQuery(w->stream);
  sg_status st = sg_comm_active(&w->s->comm)
                     ? sg_comm_check_async(&w->s->comm)
                     : SG_OK;
  if (st != SG_OK || err == cudaErrorNotReady) {
    return st;
  }
  *done = true;
  return SG_CUDA(&w->s->diag, err);
}

static sg_status wait_stream(sg_session *s, sg_stream stream,
                             uint32_t timeout_ms) {
  stream_wait w = {s, (cudaStream_t)stream};
  sg_status st = sg_poll_until(poll_stream, &w, timeout_ms);
  if (st != SG_ERR_TIMEOUT) {
    return st;
  }
  char what[160];
  snprintf(what, sizeof what, "stream %p still busy after %u ms",
           (void *)stream, timeout_ms);
  return sg_comm_active(&s->comm) ? sg_comm_timed_out(&s->comm, what)
                                  : sg_fail(&s->diag, SG_ERR_TIMEOUT, "%s",
                                            what);
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

/* The communicator's collectives: the agreement after a capture, the
 * refresh's amax reduction, and the wait a non-blocking communicator's
 * call in progress needs. */
#include <stdio.h>
#include <string.h>

#include "amax_reduce.h"
#include "comm.h"
#include "cuda_check.h"
#include "nccl_abi.h"
#include "nccl_check.h"
#include "poll.h"

/* A non-blocking communicator answers ncclInProgress while it enqueues;
 * its asynchronous error says when the call is done, and how it went. */
typedef struct progress {
  sg_comm *c;
  int32_t result;
} progress;

static sg_status poll_progress(void *ctx, bool *done) {
  progress *p = ctx;
  sg_status st = sg_nccl_check(
      p->c->diag, &p->c->nccl,
      p->c->nccl.comm_get_async_error(p->c->handle, &p->result),
      "ncclCommGetAsyncError");
  *done = p->result != SG_NCCL_IN_PROGRESS;
  return st;
}

/* A collective's result (named `call`), ncclInProgress waited out within
 * the config's bound. */
static sg_status collective(sg_comm *c, int32_t result, const char *call) {
  if (result == SG_NCCL_IN_PROGRESS) {
    progress p = {c, result};
    sg_status st = sg_poll_until(poll_progress, &p, c->timeout_ms);
    if (st == SG_ERR_TIMEOUT) {
      char what[256];
      snprintf(what, sizeof what,
               "%s still in progress after %u ms (a non-blocking "
               "communicator)",
               call, c->timeout_ms);
      return sg_comm_timed_out(c, what);
    }
    if (st != SG_OK) {
      return st;
    }
    result = p.result;
  }
  return sg_nccl_check(c->diag, &c->nccl, result, call);
}

/* --- The agreement --------------------------------------------------------- */

/* An earlier agreement that timed out may still be in flight: its buffers
 * cannot be reused, and its peers are out of step. */
static sg_status require_idle(sg_comm *c) {
  cudaError_t err = cudaEventQuery(c->done);
  if (err == cudaErrorNotReady) {
    return sg_fail(c->diag, SG_ERR_TIMEOUT,
                   "the previous agreement (which timed out) is still in "
                   "flight: a rank never arrived; abort the communicator "
                   "and destroy the session");
  }
  return SG_CUDA(c->diag, err);
}

/* Contribution in, one all-reduce (SUM of disjoint bits: an OR), result
 * out, all on the plugin's stream after the work on `after`. */
static sg_status enqueue(sg_comm *c, cudaStream_t after, bool ok) {
  sg_diag *d = c->diag;
  const size_t bytes = c->words * sizeof(uint64_t);
  uint64_t *contribution = c->agree_host;
  memset(contribution, 0, bytes);
  if (!ok) {
    contribution[c->rank / 64] |= 1ull << (c->rank % 64);
  }
  sg_status st = SG_CUDA(d, cudaEventRecord(c->ordered, after));
  if (st == SG_OK) {
    st = SG_CUDA(d, cudaStreamWaitEvent(c->stream, c->ordered, 0));
  }
  if (st == SG_OK) {
    st = SG_CUDA(d, cudaMemcpyAsync(c->agree_dev, contribution, bytes,
                                    cudaMemcpyHostToDevice, c->stream));
  }
  if (st == SG_OK) {
    st = collective(c,
                    c->nccl.all_reduce(c->agree_dev, c->agree_dev, c->words,
                                       SG_NCCL_UINT64, SG_NCCL_SUM, c->handle,
                                       (sg_stream)c->stream),
                    "ncclAllReduce (the agreement)");
  }
  if (st == SG_OK) {
    st = SG_CUDA(d, cudaMemcpyAsync(c->agree_host + c->words, c->agree_dev,
                                    bytes, cudaMemcpyDeviceToHost, c->stream));
  }
  if (st == SG_OK) {
    st = SG_CUDA(d, cudaEventRecord(c->done, c->stream));
  }
  return st;
}

/* One poll of the agreement: its result landed, or the communicator
 * failed meanwhile. */
static sg_status poll_done(void *ctx, bool *done) {
  sg_comm *c = ctx;
  cudaError_t err = cudaEventQuery(c->done);
  if (err == cudaErrorNotReady) {
    return sg_comm_check_async(c);
  }
  *done = true;
  return SG_CUDA(c->diag, err);
}

sg_status sg_comm_agree(sg_comm *c, cudaStream_t after, bool ok,
                        const char *about, const uint64_t **failed_out) {
  /* Its own message: not the timeout below, which is this agreement's. */
  sg_status st = require_idle(c);
  if (st != SG_OK) {
    return st;
  }
  st = enqueue(c, after, ok);
  if (st == SG_OK) {
    st = sg_poll_until(poll_done, c, c->timeout_ms);
  }
  if (st == SG_ERR_TIMEOUT) {
    char what[320];
    snprintf(what, sizeof what,
             "the %d ranks did not agree on %s within %u ms "
             "(config.nccl_timeout_ms): a rank has not reached the end of "
             "its capture, or is gone",
             (int)c->nranks, about, c->timeout_ms);
    return sg_comm_timed_out(c, what);
  }
  if (st == SG_OK) {
    *failed_out = c->agree_host + c->words;
  }
  return st;
}

bool sg_comm_rank_set(const uint64_t *bits, int32_t rank) {
  return (bits[rank / 64] >> (rank % 64)) & 1u;
}

void sg_comm_list_ranks(const sg_comm *c, const uint64_t *bits, char *buf,
                        size_t cap) {
  int n = snprintf(buf, cap, "ranks");
  const char *sep = " ";
  for (int32_t r = 0; r < c->nranks && n >= 0 && (size_t)n < cap; r++) {
    if (!sg_comm_rank_set(bits, r)) {
      continue;
    }
    if ((size_t)n + 24 >= cap) { /* room for ", ... of 2147483647" */
      n += snprintf(buf + n, cap - (size_t)n, ", ...");
      break;
    }
    n += snprintf(buf + n, cap - (size_t)n, "%s%d", sep, (int)r);
    sep = ", ";
  }
  if (n >= 0 && (size_t)n < cap) {
    snprintf(buf + n, cap - (size_t)n, " of %d", (int)c->nranks);
  }
}

/* --- The amax reduction ---------------------------------------------------- */

sg_status sg_comm_reduce_amax(sg_comm *c, const void *device_table,
                              uint32_t count, uint32_t group, uint32_t first,
                              uint32_t span, cudaStream_t stream) {
  sg_diag *d = c->diag;
  if (span > c->amax_capacity) {
    return sg_fail(d, SG_ERR_INTERNAL,
                   "amax reduction over %u parameters, more than the %u the "
                   "buffer holds",
                   span, c->amax_capacity);
  }
  sg_status st = SG_CUDA(d, sg_k_amax_gather(device_table, group, first, span,
                                             c->amax_dev, count, stream));
  if (st == SG_OK) {
    st = collective(c,
                    c->nccl.all_reduce(c->amax_dev, c->amax_dev, span,
                                       SG_NCCL_UINT32, SG_NCCL_MAX, c->handle,
                                       (sg_stream)stream),
                    "ncclAllReduce (the amax reduction)");
  }
  if (st == SG_OK) {
    st = SG_CUDA(d, sg_k_amax_scatter(device_table, group, first, span,
                                      c->amax_dev, count, stream));
  }
  return st;
}

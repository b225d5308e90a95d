/* The capture and replay engine: begins and ends captures, installs their
 * graphs (update in place or instantiate), launches them, and answers for
 * keys that run eagerly. The entries (capture.c, replay.c, driver.c,
 * pre_capture.c) check their arguments and the session's state, then call
 * it. */
#include "engine.h"

#include <stdio.h>

#include "agreement.h"
#include "clock.h"
#include "cond.h"
#include "cuda_check.h"
#include "dot.h"
#include "graph_walk.h"
#include "nvtx.h"
#include "source_address.h"
#include "static_copy.h"

static enum cudaStreamCaptureMode cuda_mode(uint32_t mode) {
  switch (mode) {
    case SG_CAPTURE_GLOBAL:
      return cudaStreamCaptureModeGlobal;
    case SG_CAPTURE_RELAXED:
      return cudaStreamCaptureModeRelaxed;
    default:
      return cudaStreamCaptureModeThreadLocal;
  }
}

sg_status sg_engine_check_stream(sg_session *s, sg_stream stream,
                                 const char *name) {
  enum cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusNone;
  int device = -1;
  sg_status st = SG_CUDA(&s->diag, cudaStreamIsCapturing(stream, &capturing));
  if (st == SG_OK && capturing != cudaStreamCaptureStatusNone) {
    return sg_fail(&s->diag, SG_ERR_INVALID_STATE,
                   "%s %p is already capturing (a capture the host began, or "
                   "an invalidated one it has not ended); pre_capture and "
                   "capture_begin need a stream that is not capturing",
                   name, (void *)stream);
  }
  /* cudaStreamPerThread resolves to the per-thread stream of the current
   * device, which the entry protocol made the session's. */
  if (stream == (sg_stream)cudaStreamPerThread) {
    return st;
  }
  if (st == SG_OK) {
    st = SG_CUDA(&s->diag, cudaStreamGetDevice(stream, &device));
  }
  if (st == SG_OK && device != s->device) {
    return sg_fail(&s->diag, SG_ERR_INVALID_ARGUMENT,
                   "%s belongs to device %d, the session to device %d", name,
                   device, s->device);
  }
  return st;
}

/* With the stale-transpose detector on, a captured step starts with the
 * check. A launch that fails fails the capture (reported at its end). */
static void check_at_start(sg_session *s, sg_stream stream) {
  sg_status st = sg_detector_check(&s->detector, s->fp8.device_table,
                                   s->fp8.params, s->fp8.count, s->sm_count,
                                   (cudaStream_t)stream);
  if (st != SG_OK) {
    char detail[SG_ERROR_CAPACITY];
    (void)sg_error_copy(&s->diag, detail, sizeof detail, NULL);
    sg_conds_fail(&s->conds, detail);
  }
}

sg_status sg_engine_begin(sg_session *s, uint64_t key, sg_stream stream,
                          uint32_t mode, sg_graph **entry_out) {
  sg_graphs *g = &s->graphs;
  sg_graph *e = NULL;
  sg_status st = sg_graphs_get(g, key, &e);
  *entry_out = e;
  if (st != SG_OK) {
    return st;
  }
  s->frozen = true; /* graphs bake the registered tables in */
  if (e->eager_only) {
    return sg_engine_answer_eager(s, e);
  }
  st = sg_cond_require_closed(s, "guard_begin/loop_begin (eagerly, before "
                                 "this capture)");
  if (st == SG_OK) {
    st = sg_engine_check_stream(s, stream, "args->stream");
  }
  const double start = sg_now_ms();
  if (st == SG_OK) {
    st = SG_CUDA(&s->diag, cudaStreamBeginCapture((cudaStream_t)stream,
                                           cuda_mode(mode)));
  }
  if (st == SG_OK) {
    s->state = SG_STATE_CAPTURING;
    g->capturing_key = key;
    g->capturing_stream = stream;
    g->capturing_thread = pthread_self();
    g->capturing = e;
    g->capture_start_ms = start;
    g->rng_offset_at_begin = s->rng.step_offset;
    g->capture_range = sg_nvtx_start("stepgraph:capture", key);
    sg_cond_capture_begin(s, (int)cuda_mode(mode));
    check_at_start(s, stream);
  }
  return st;
}

/* What usually causes each capture error, for the host's message. */
static const char *capture_error_cause(cudaError_t err) {
  switch (err) {
    case cudaErrorStreamCaptureInvalidated:
    case cudaErrorStreamCaptureUnsupported:
      return "an operation illegal during capture ran while capturing: a "
             "sync of a stream, event or the device, a query of the "
             "capturing stream, an allocation such as cudaMalloc, a "
             "synchronous copy such as a cudaMemcpy to the host, or work on "
             "the legacy default stream (another thread's device sync too)";
    case cudaErrorStreamCaptureImplicit:
      return "the legacy default stream was used while a stream that "
             "synchronises with it was capturing; use non-default streams";
    case cudaErrorStreamCaptureUnjoined:
      return "a stream forked from the capture stream (it waited on an event "
             "recorded there) was not joined back: record an event on the "
             "forked stream and make the capture stream wait on it before "
             "capture_end";
    case cudaErrorStreamCaptureWrongThread:
      return "the capture was ended on another thread than the one that "
             "began it; in thread-local and global modes, begin and end on "
             "one thread (or capture in relaxed mode)";
    case cudaErrorStreamCaptureIsolation:
    case cudaErrorStreamCaptureMerge:
      return "captured work waited on work of another capture or of an "
             "uncaptured stream";
    case cudaErrorStreamCaptureUnmatched:
      return "the stream was not capturing any more when capture_end came";
    default:
      return "unexpected error while ending the capture";
  }
}

/* A capture is over, whatever came of it: the session is READY again. */
static void capture_over(sg_session *s) {
  sg_graphs *g = &s->graphs;
  s->stats.capture_ms += sg_now_ms() - g->capture_start_ms;
  nvtxRangeEnd((nvtxRangeId_t)g->capture_range);
  s->state = SG_STATE_READY;
  g->capturing = NULL;
}

/* Throws the capture in progress away: nothing of it survives (its
 * regions' bodies and index words included), the stream is usable, and
 * the step's RNG reservations, which never ran, are rolled back (the eager
 * rerun reserves the same offsets again). The device is current. */
static cudaError_t discard(sg_session *s) {
  const cudaError_t err = sg_cond_capture_discard(s);
  (void)cudaGetLastError();
  s->rng.step_offset = s->graphs.rng_offset_at_begin;
  capture_over(s);
  return err;
}

/* The key's capture failed, e->reason saying why: it runs eagerly now. */
static sg_status key_fails(sg_session *s, sg_graph *e) {
  s->stats.capture_failures++;
  e->eager_logged = true; /* sg_fail logs it now */
  return sg_fail(&s->diag, SG_ERR_CAPTURE_FAILED,
                 "%s. The key now runs eagerly (invalidate lets it capture "
                 "again)",
                 e->reason);
}

static sg_status capture_failed(sg_session *s, sg_graph *e, cudaError_t err) {
  discard(s);
  sg_graph_make_eager(e, "capture of key %llu failed with %s: %s",
                      (unsigned long long)e->key,
                      err == cudaSuccess ? "no graph" : cudaGetErrorName(err),
                      capture_error_cause(err));
  return key_fails(s, e);
}

/* A guard or loop of the capture failed (its entry said so in the log). */
static sg_status region_failed(sg_session *s, sg_graph *e) {
  char reason[SG_COND_REASON_CAPACITY];
  snprintf(reason, sizeof reason, "%s", s->conds.reason);
  discard(s);
  sg_graph_make_eager(e, "capture of key %llu failed: %s",
                      (unsigned long long)e->key, reason);
  return key_fails(s, e);
}

/* capture_end with a region still open: a bug of the host's step, not of
 * the capture; the key keeps what it had. */
static sg_status unbalanced(sg_session *s) {
  const sg_region *top = sg_conds_top(&s->conds);
  const uint32_t open = s->conds.depth;
  const bool guard = top->kind == SG_REGION_GUARD;
  const uint64_t key = s->graphs.capturing_key;
  discard(s);
  return sg_fail(&s->diag, SG_ERR_INVALID_STATE,
                 "%u region(s) still open at the end of the capture (the "
                 "innermost a %s: close it with %s); the capture is "
                 "discarded and key %llu keeps its previous graph",
                 open, guard ? "guard" : "loop",
                 guard ? "guard_end" : "loop_next until it answers 0",
                 (unsigned long long)key);
}

/* Applies the new graph to the key's executable when CUDA accepts the
 * update (same topology, no allocation nodes); else leaves none. */
static sg_status try_update(sg_session *s, sg_graph *e, cudaGraph_t graph,
                            bool *updated) {
  cudaGraphExecUpdateResultInfo info;
  cudaError_t err = cudaGraphExecUpdate(e->exec, graph, &info);
  *updated = err == cudaSuccess;
  if (*updated) {
    s->stats.exec_updates++;
    return SG_OK;
  }
  (void)cudaGetLastError();
  sg_log(&s->diag.log, SG_LOG_DEBUG,
         "key %llu: cudaGraphExecUpdate refused the new capture (%s, "
         "cudaGraphExecUpdateResult %d); instantiating it instead",
         (unsigned long long)e->key, cudaGetErrorName(err), (int)info.result);
  (void)cudaGraphExecDestroy(e->exec);
  e->exec = NULL;
  return SG_OK;
}

static sg_status instantiate(sg_session *s, sg_graph *e, cudaGraph_t graph,
                             uint64_t alloc_bytes) {
  /* A graph with allocation nodes may have one executable at a time, and
   * frees what it allocated when launched again. */
  unsigned long long flags =
      alloc_bytes > 0 ? cudaGraphInstantiateFlagAutoFreeOnLaunch : 0;
  cudaGraphExec_t exec = NULL;
  sg_status st =
      SG_CUDA(&s->diag, cudaGraphInstantiateWithFlags(&exec, graph, flags));
  if (st == SG_OK) {
    e->exec = exec;
    s->stats.instantiations++;
  }
  return st;
}

/* STEPGRAPH_DUMP_DIR: <dir>/<key>-<capture count>.dot for every capture. A
 * dump that cannot be written only warns: the capture itself succeeded. */
static void dump_capture(sg_session *s, const sg_graph *e) {
  if (s->dump_dir == NULL) {
    return;
  }
  char path[4096], why[256];
  snprintf(path, sizeof path, "%s/%llu-%llu.dot", s->dump_dir,
           (unsigned long long)e->key, (unsigned long long)e->captures);
  if (!sg_dot_write(e->graph, path, why, sizeof why)) {
    sg_log(&s->diag.log, SG_LOG_WARN,
           "STEPGRAPH_DUMP_DIR: cannot write key %llu's graph to \"%s\": %s",
           (unsigned long long)e->key, path, why);
  }
}

/* CUDA would not instantiate a graph with conditional nodes: the likely
 * cause is what a body holds, and the step can still run eagerly. */
static sg_status refused_conditionals(sg_session *s, sg_graph *e,
                                      uint64_t conditionals) {
  char detail[SG_ERROR_CAPACITY];
  (void)sg_error_copy(&s->diag, detail, sizeof detail, NULL);
  sg_graph_make_eager(
      e,
      "CUDA refused key %llu's graph with %llu conditional node(s) (%s): a "
      "guard or loop body may hold only kernels, memsets, memcpys and "
      "nested regions of one context, and a collective (NCCL) inside one "
      "can be refused so",
      (unsigned long long)e->key, (unsigned long long)conditionals, detail);
  return key_fails(s, e);
}

/* Makes `graph` the key's: update in place or instantiate, then upload on
 * the stream that will launch it. The device is current. */
static sg_status install(sg_session *s, sg_graph *e, cudaGraph_t graph) {
  const double start = sg_now_ms();
  uint64_t nodes = 0, alloc_bytes = 0;
  const uint64_t conditionals = s->conds.body_count; /* one body a node */
  bool updated = false;
  sg_status st = sg_graph_walk(&s->diag, graph, &nodes, &alloc_bytes);
  if (st == SG_OK) {
    st = sg_cond_capture_count(s, &nodes);
  }
  /* CUDA refuses the update for another node count or allocation nodes:
   * go straight to instantiation then. */
  const bool updatable = e->exec != NULL && nodes == e->nodes &&
                         alloc_bytes == 0 && e->alloc_bytes == 0;
  if (st == SG_OK && e->exec != NULL && !updatable) {
    (void)cudaGraphExecDestroy(e->exec); /* frees its memory for the budget */
    e->exec = NULL;
  }
  if (st == SG_OK) {
    st = sg_graphs_make_room(&s->graphs, e, alloc_bytes);
  }
  if (st == SG_OK && updatable) {
    st = try_update(s, e, graph, &updated);
  }
  if (st == SG_OK && !updated) {
    st = instantiate(s, e, graph, alloc_bytes);
  }
  if (st == SG_OK) {
    st = SG_CUDA(&s->diag, cudaGraphUpload(e->exec,
                                    (cudaStream_t)s->graphs.capturing_stream));
  }
  s->stats.instantiate_ms += sg_now_ms() - start;
  if (st != SG_OK) {
    (void)cudaGraphDestroy(graph);
    sg_graph_drop(e); /* the key has no graph; the next capture starts over */
    return st == SG_ERR_CUDA && conditionals > 0
               ? refused_conditionals(s, e, conditionals)
               : st;
  }
  if (e->graph != NULL) {
    (void)cudaGraphDestroy(e->graph);
  }
  e->graph = graph;
  e->nodes = nodes;
  e->alloc_bytes = alloc_bytes;
  e->conditionals = conditionals;
  e->last_used = ++s->graphs.clock;
  s->stats.captures++;
  e->captures++;
  sg_cond_capture_commit(s, e);
  dump_capture(s, e);
  sg_log(&s->diag.log, SG_LOG_DEBUG,
         "key %llu captured: %llu nodes (%llu conditional), %llu allocation "
         "bytes, %s",
         (unsigned long long)e->key, (unsigned long long)nodes,
         (unsigned long long)conditionals, (unsigned long long)alloc_bytes,
         updated ? "executable updated in place" : "instantiated");
  return SG_OK;
}

/* STEPGRAPH_TEST_FAIL_CAPTURE_RANK names this rank: a good capture is
 * thrown away as if it had failed, for the multi-GPU tests. */
static sg_status forced_failure(sg_session *s, sg_graph *e, cudaGraph_t graph) {
  (void)cudaGraphDestroy(graph);
  s->rng.step_offset = s->graphs.rng_offset_at_begin; /* as discard does */
  sg_graph_make_eager(e,
                      "capture of key %llu was made to fail on rank %d by "
                      "STEPGRAPH_TEST_FAIL_CAPTURE_RANK (a test switch)",
                      (unsigned long long)e->key, (int)s->comm.rank);
  return key_fails(s, e);
}

/* With a communicator, every way capture_end ends goes through the
 * agreement (agreement.h); when only other ranks failed, the key's answer
 * is the eager one. */
static sg_status agreed(sg_session *s, sg_graph *e, cudaStream_t stream,
                        sg_status local) {
  const sg_status st = sg_agreement_settle(s, e, stream, local);
  return st == SG_RUN_EAGERLY ? sg_engine_answer_eager(s, e) : st;
}

sg_status sg_engine_end(sg_session *s) {
  sg_graph *e = s->graphs.capturing;
  const cudaStream_t stream = (cudaStream_t)s->graphs.capturing_stream;
  if (s->conds.depth > 0) {
    return agreed(s, e, stream, unbalanced(s));
  }
  if (s->conds.failed) {
    return agreed(s, e, stream, region_failed(s, e));
  }
  cudaGraph_t graph = NULL;
  cudaError_t err = sg_cond_capture_finish(s, &graph);
  if (err != cudaSuccess || graph == NULL) {
    if (graph != NULL) {
      (void)cudaGraphDestroy(graph);
    }
    return agreed(s, e, stream, capture_failed(s, e, err));
  }
  capture_over(s);
  return agreed(s, e, stream,
                s->comm.forced_failure ? forced_failure(s, e, graph)
                                       : install(s, e, graph));
}

/* With a communicator the ranks must stay in step: an abandoned capture
 * makes the key eager-only here as the agreement makes it on the others. */
static sg_status abandon_agreement(sg_session *s, sg_graph *e,
                                   cudaStream_t stream) {
  if (!sg_comm_active(&s->comm)) {
    return SG_OK;
  }
  if (!e->eager_only) {
    sg_graph_make_eager(e,
                        "the step callback failed while key %llu was being "
                        "captured",
                        (unsigned long long)e->key);
    e->eager_logged = true;
  }
  char cause[SG_ERROR_CAPACITY];
  snprintf(cause, sizeof cause, "%s", e->reason);
  sg_error_set(&s->diag, cause);
  sg_status st = sg_agreement_settle(s, e, stream, SG_ERR_CAPTURE_FAILED);
  return st == SG_ERR_CAPTURE_FAILED ? SG_OK : st;
}

/* An abandoned capture that CUDA (or a region) had already invalidated:
 * the key runs eagerly, as after a failed capture_end. */
static void abandoned_invalid(sg_session *s, sg_graph *e, bool regions_failed,
                              const char *reason, cudaError_t err) {
  s->stats.capture_failures++;
  if (regions_failed) {
    sg_graph_make_eager(e, "capture of key %llu failed: %s",
                        (unsigned long long)e->key, reason);
  } else {
    const cudaError_t why =
        err != cudaSuccess ? err : cudaErrorStreamCaptureInvalidated;
    sg_graph_make_eager(e,
                        "capture of key %llu failed with %s (the step "
                        "callback returned an error while capturing): %s",
                        (unsigned long long)e->key, cudaGetErrorName(why),
                        capture_error_cause(why));
  }
  e->eager_logged = true;
  sg_log(&s->diag.log, SG_LOG_ERROR, "step: %s", e->reason);
}

sg_status sg_engine_abandon(sg_session *s, bool agree, bool *invalidated_out) {
  sg_graph *e = s->graphs.capturing;
  const cudaStream_t stream = (cudaStream_t)s->graphs.capturing_stream;
  enum cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  (void)cudaStreamIsCapturing(stream, &status);
  const bool regions_failed = s->conds.failed;
  char reason[SG_COND_REASON_CAPACITY];
  snprintf(reason, sizeof reason, "%s", s->conds.reason);
  const cudaError_t err = discard(s);
  *invalidated_out = status == cudaStreamCaptureStatusInvalidated ||
                     err != cudaSuccess || regions_failed;
  if (*invalidated_out) {
    abandoned_invalid(s, e, regions_failed, reason, err);
  }
  return agree ? abandon_agreement(s, e, stream) : SG_OK;
}

/* The static-input copies: one kernel launch per SG_K_COPY_MAX sources
 * (a cudaMemcpyAsync each would cost the host a launch each). */
static sg_status copy_statics(sg_session *s, sg_stream stream,
                              const void *const *sources, uint32_t count) {
  sg_k_copy_batch batch;
  batch.count = 0;
  sg_status st = SG_OK;
  for (uint32_t i = 0; i < count && st == SG_OK; i++) {
    if (sources[i] != NULL) {
      const sg_static_buffer *b = &s->statics.buffers[i];
      batch.items[batch.count++] = (sg_k_copy){b->data, sources[i], b->bytes};
    }
    if (batch.count == SG_K_COPY_MAX || (i + 1 == count && batch.count > 0)) {
      st = SG_CUDA(&s->diag, sg_k_copy_launch(&batch, s->sm_count,
                                       (cudaStream_t)stream));
      batch.count = 0;
    }
  }
  return st;
}

/* Host sources: every one is checked before anything is enqueued, and
 * read through the address CUDA gives the device for it. */
static sg_status readable_sources(sg_session *s, const sg_sources *src) {
  sg_status st = SG_OK;
  for (uint32_t i = 0; i < src->count && st == SG_OK; i++) {
    s->statics.readable[i] = src->ptrs[i];
    if (src->ptrs[i] != NULL) {
      st = sg_source_address(&s->diag, s->device, src->ptrs[i], i,
                             &s->statics.readable[i]);
    }
  }
  return st;
}

sg_status sg_engine_copy_sources(sg_session *s, sg_stream stream,
                                 const sg_sources *src) {
  if (src->count == 0) {
    return SG_OK;
  }
  if (!src->host) {
    return copy_statics(s, stream, src->ptrs, src->count);
  }
  sg_status st = readable_sources(s, src);
  return st == SG_OK ? copy_statics(s, stream, s->statics.readable, src->count)
                     : st;
}

sg_status sg_engine_launch(sg_session *s, sg_graph *e, sg_stream stream) {
  nvtxRangePushA("stepgraph:replay");
  sg_status st =
      SG_CUDA(&s->diag, cudaGraphLaunch(e->exec, (cudaStream_t)stream));
  nvtxRangePop();
  if (st == SG_OK) {
    e->replays++;
    e->last_used = ++s->graphs.clock;
    s->stats.replays++;
  }
  return st;
}

/* The key runs eagerly this call: counts it and logs why, the first time
 * only. */
static void count_eager(sg_session *s, sg_graph *e, const char *message) {
  s->stats.eager_runs++;
  if (!e->eager_logged) {
    e->eager_logged = true;
    sg_log(&s->diag.log, SG_LOG_INFO, "%s", message);
  }
}

static void eager_message(char *buf, size_t cap, const sg_graph *e) {
  snprintf(buf, cap, "%s: key %llu runs eagerly: %s", sg_current_entry(),
           (unsigned long long)e->key, e->reason);
}

sg_status sg_engine_answer_eager(sg_session *s, sg_graph *e) {
  char message[SG_ERROR_CAPACITY];
  eager_message(message, sizeof message, e);
  sg_error_set(&s->diag, message);
  count_eager(s, e, message);
  return SG_RUN_EAGERLY;
}

void sg_engine_note_eager(sg_session *s, sg_graph *e) {
  char message[SG_ERROR_CAPACITY];
  eager_message(message, sizeof message, e);
  count_eager(s, e, message);
}

/* The capture and replay engine: begins and ends captures, installs their
 * graphs (update in place or instantiate), launches them, and answers for
 * keys that run eagerly. The entries (capture.c, replay.c, driver.c,
 * pre_capture.c) check their arguments and the session's state, then call
 * it. */
#include "engine.h"

#include <stdio.h>

#include "agreement.h"
#include "clock.h"
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
  st = sg_engine_check_stream(s, stream, "args->stream");
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

/* Ends the capture in progress in every case and puts the session back in
 * READY. Returns EndCapture's result and graph (NULL on failure). */
static cudaError_t close_capture(sg_session *s, cudaGraph_t *graph) {
  sg_graphs *g = &s->graphs;
  *graph = NULL;
  cudaError_t err =
      cudaStreamEndCapture((cudaStream_t)g->capturing_stream, graph);
  s->stats.capture_ms += sg_now_ms() - g->capture_start_ms;
  nvtxRangeEnd((nvtxRangeId_t)g->capture_range);
  s->state = SG_STATE_READY;
  g->capturing = NULL;
  return err;
}

/* After a failed capture: nothing of it may survive, and the stream must be
 * usable. The device is current. */
static void discard_capture(sg_session *s, cudaGraph_t graph) {
  if (graph != NULL) {
    (void)cudaGraphDestroy(graph);
  }
  (void)cudaGetLastError();
  enum cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  cudaStream_t stream = (cudaStream_t)s->graphs.capturing_stream;
  if (cudaStreamIsCapturing(stream, &status) == cudaSuccess &&
      status != cudaStreamCaptureStatusNone) {
    cudaGraph_t rest = NULL;
    (void)cudaStreamEndCapture(stream, &rest);
    if (rest != NULL) {
      (void)cudaGraphDestroy(rest);
    }
  }
  (void)cudaGetLastError();
  /* The failed step's reservations never ran: the eager rerun reserves the
   * same offsets again. */
  s->rng.step_offset = s->graphs.rng_offset_at_begin;
}

static sg_status capture_failed(sg_session *s, sg_graph *e, cudaGraph_t graph,
                                cudaError_t err) {
  discard_capture(s, graph);
  s->stats.capture_failures++;
  sg_graph_make_eager(e, "capture of key %llu failed with %s: %s",
                      (unsigned long long)e->key,
                      err == cudaSuccess ? "no graph" : cudaGetErrorName(err),
                      capture_error_cause(err));
  e->eager_logged = true; /* sg_fail logs it now */
  return sg_fail(&s->diag, SG_ERR_CAPTURE_FAILED,
                 "%s. The key now runs eagerly (invalidate lets it capture "
                 "again)",
                 e->reason);
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

/* Makes `graph` the key's: update in place or instantiate, then upload on
 * the stream that will launch it. The device is current. */
static sg_status install(sg_session *s, sg_graph *e, cudaGraph_t graph) {
  const double start = sg_now_ms();
  uint64_t nodes = 0, alloc_bytes = 0;
  bool updated = false;
  sg_status st = sg_graph_walk(&s->diag, graph, &nodes, &alloc_bytes);
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
    return st;
  }
  if (e->graph != NULL) {
    (void)cudaGraphDestroy(e->graph);
  }
  e->graph = graph;
  e->nodes = nodes;
  e->alloc_bytes = alloc_bytes;
  e->last_used = ++s->graphs.clock;
  s->stats.captures++;
  e->captures++;
  dump_capture(s, e);
  sg_log(&s->diag.log, SG_LOG_DEBUG,
         "key %llu captured: %llu nodes, %llu allocation bytes, %s",
         (unsigned long long)e->key, (unsigned long long)nodes,
         (unsigned long long)alloc_bytes,
         updated ? "executable updated in place" : "instantiated");
  return SG_OK;
}

/* STEPGRAPH_TEST_FAIL_CAPTURE_RANK names this rank: a good capture is
 * thrown away as if it had failed, for the multi-GPU tests. */
static sg_status forced_failure(sg_session *s, sg_graph *e, cudaGraph_t graph) {
  discard_capture(s, graph);
  s->stats.capture_failures++;
  sg_graph_make_eager(e,
                      "capture of key %llu was made to fail on rank %d by "
                      "STEPGRAPH_TEST_FAIL_CAPTURE_RANK (a test switch)",
                      (unsigned long long)e->key, (int)s->comm.rank);
  e->eager_logged = true;
  return sg_fail(&s->diag, SG_ERR_CAPTURE_FAILED, "%s", e->reason);
}

sg_status sg_engine_end(sg_session *s) {
  sg_graph *e = s->graphs.capturing;
  const cudaStream_t stream = (cudaStream_t)s->graphs.capturing_stream;
  cudaGraph_t graph = NULL;
  cudaError_t err = close_capture(s, &graph);
  sg_status st;
  if (err != cudaSuccess || graph == NULL) {
    st = capture_failed(s, e, graph, err);
  } else if (s->comm.forced_failure) {
    st = forced_failure(s, e, graph);
  } else {
    st = install(s, e, graph);
  }
  st = sg_agreement_settle(s, e, stream, st);
  return st == SG_RUN_EAGERLY ? sg_engine_answer_eager(s, e) : st;
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

sg_status sg_engine_abandon(sg_session *s, bool *invalidated_out) {
  sg_graph *e = s->graphs.capturing;
  const cudaStream_t stream = (cudaStream_t)s->graphs.capturing_stream;
  enum cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  (void)cudaStreamIsCapturing(stream, &status);
  cudaGraph_t graph = NULL;
  cudaError_t err = close_capture(s, &graph);
  discard_capture(s, graph);
  *invalidated_out =
      status == cudaStreamCaptureStatusInvalidated || err != cudaSuccess;
  if (*invalidated_out) {
    const cudaError_t why =
        err != cudaSuccess ? err : cudaErrorStreamCaptureInvalidated;
    s->stats.capture_failures++;
    sg_graph_make_eager(e,
                        "capture of key %llu failed with %s (the step "
                        "callback returned an error while capturing): %s",
                        (unsigned long long)e->key, cudaGetErrorName(why),
                        capture_error_cause(why));
    e->eager_logged = true;
    sg_log(&s->diag.log, SG_LOG_ERROR, "step: %s", e->reason);
  }
  return abandon_agreement(s, e, stream);
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

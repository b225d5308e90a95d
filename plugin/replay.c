/* replay: one graph launch for a key. */
#include "args.h"
#include "cuda_check.h"
#include "entries.h"
#include "static_copy.h"
#include "nvtx.h"
#include "session.h"

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
      st = SG_CUDA(s, sg_k_copy_launch(&batch, s->sm_count,
                                       (cudaStream_t)stream));
      batch.count = 0;
    }
  }
  return st;
}

sg_status sg_engine_launch(sg_session *s, sg_graph *e, sg_stream stream,
                           const void *const *sources, uint32_t count) {
  sg_status st = SG_OK;
  nvtxRangePushA("stepgraph:replay");
  if (count > 0) {
    st = copy_statics(s, stream, sources, count);
  }
  if (st == SG_OK) {
    st = SG_CUDA(s, cudaGraphLaunch(e->exec, (cudaStream_t)stream));
  }
  nvtxRangePop();
  if (st == SG_OK) {
    e->replays++;
    e->last_used = ++s->graphs.clock;
    s->stats.replays++;
  }
  return st;
}

static sg_status check_replay_args(sg_session *s, const sg_replay_args *in) {
  if (in->flags != 0) {
    return sg_fail(s, SG_ERR_INVALID_ARGUMENT,
                   "args->flags is 0x%x, must be 0", (unsigned)in->flags);
  }
  if (in->static_source_count > s->statics.count) {
    return sg_fail(s, SG_ERR_INVALID_ARGUMENT,
                   "args->static_source_count is %u but %u static buffers "
                   "are registered",
                   (unsigned)in->static_source_count, s->statics.count);
  }
  if (in->static_source_count > 0 && in->static_sources == NULL) {
    return sg_fail(s, SG_ERR_INVALID_ARGUMENT,
                   "args->static_sources is NULL but static_source_count "
                   "is %u",
                   (unsigned)in->static_source_count);
  }
  return sg_check_stream_arg(s, in->stream, "args->stream");
}

sg_status sg_replay(sg_session *s, const sg_replay_args *args) {
  sg_call c;
  sg_replay_args in;
  sg_graph *e = NULL;
  sg_status st = sg_enter(&c, s, "replay");
  if (st == SG_OK) {
    st = SG_READ(s, sg_replay_args, args, &in, "args");
  }
  if (st == SG_OK) {
    st = check_replay_args(s, &in);
  }
  if (st == SG_OK) {
    st = sg_require_not_capturing(s);
  }
  if (st == SG_OK && (e = sg_graphs_find(&s->graphs, in.key)) == NULL) {
    st = sg_fail(s, SG_ERR_INVALID_STATE,
                 "key %llu has not been captured (or its graph was evicted "
                 "or invalidated); capture it first",
                 (unsigned long long)in.key);
  }
  if (st == SG_OK) {
    st = sg_require_device(s);
  }
  if (st == SG_OK) {
    st = e->eager_only ? sg_graphs_answer_eager(s, e)
                       : sg_engine_launch(s, e, in.stream, in.static_sources,
                                          in.static_source_count);
  }
  return sg_leave(&c, st);
}

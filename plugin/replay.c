/* replay: one graph launch for a key. */
#include "args.h"
#include "engine.h"
#include "entries.h"
#include "entry.h"

static sg_status check_replay_args(sg_session *s, const sg_replay_args *in) {
  if (in->flags != 0) {
    return sg_fail(&s->diag, SG_ERR_INVALID_ARGUMENT,
                   "args->flags is 0x%x, must be 0", (unsigned)in->flags);
  }
  if (in->static_source_count > s->statics.count) {
    return sg_fail(&s->diag, SG_ERR_INVALID_ARGUMENT,
                   "args->static_source_count is %u but %u static buffers "
                   "are registered",
                   (unsigned)in->static_source_count, s->statics.count);
  }
  if (in->static_source_count > 0 && in->static_sources == NULL) {
    return sg_fail(&s->diag, SG_ERR_INVALID_ARGUMENT,
                   "args->static_sources is NULL but static_source_count "
                   "is %u",
                   (unsigned)in->static_source_count);
  }
  return sg_check_stream_arg(&s->diag, in->stream, "args->stream");
}

sg_status sg_replay(sg_session *s, const sg_replay_args *args) {
  sg_call c;
  sg_replay_args in;
  sg_graph *e = NULL;
  sg_status st = sg_enter(&c, s, "replay");
  if (st == SG_OK) {
    st = SG_READ(&s->diag, sg_replay_args, args, &in, "args");
  }
  if (st == SG_OK) {
    st = check_replay_args(s, &in);
  }
  if (st == SG_OK) {
    st = sg_require_not_capturing(s);
  }
  if (st == SG_OK) { /* before the key: it explains every later refusal */
    st = sg_comm_require_usable(&s->comm);
  }
  if (st == SG_OK && (e = sg_graphs_find(&s->graphs, in.key)) == NULL) {
    st = sg_fail(&s->diag, SG_ERR_INVALID_STATE,
                 "key %llu has not been captured (or its graph was evicted "
                 "or invalidated); capture it first",
                 (unsigned long long)in.key);
  }
  if (st == SG_OK) {
    st = sg_require_device(s);
  }
  if (st == SG_OK) {
    st = e->eager_only ? sg_engine_answer_eager(s, e)
                       : sg_engine_launch(s, e, in.stream, in.static_sources,
                                          in.static_source_count);
  }
  return sg_leave(&c, st);
}

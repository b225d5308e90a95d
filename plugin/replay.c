/* replay: the static-source copies and one graph launch for a key. */
#include "args.h"
#include "engine.h"
#include "entries.h"
#include "entry.h"

static sg_status check_replay_args(sg_session *s, const sg_replay_args *in,
                                   sg_sources *src) {
  sg_status st = sg_statics_read_sources(
      &s->statics, in->static_sources, in->static_source_count, in->flags,
      SG_REPLAY_HOST_SOURCES, "SG_REPLAY_HOST_SOURCES", src);
  return st == SG_OK ? sg_check_stream_arg(&s->diag, in->stream, "args->stream")
                     : st;
}

sg_status sg_replay(sg_session *s, const sg_replay_args *args) {
  sg_call c;
  sg_replay_args in;
  sg_sources src;
  sg_graph *e = NULL;
  sg_status st = sg_enter(&c, s, "replay");
  if (st == SG_OK) {
    st = SG_READ(&s->diag, sg_replay_args, args, &in, "args");
  }
  if (st == SG_OK) {
    st = check_replay_args(s, &in, &src);
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
  /* An eager-only key gets its sources too: the host's eager step reads
   * the static buffers a replay would have. */
  if (st == SG_OK) {
    st = sg_engine_copy_sources(s, in.stream, &src);
  }
  if (st == SG_OK) {
    st = e->eager_only ? sg_engine_answer_eager(s, e)
                       : sg_engine_launch(s, e, in.stream);
  }
  return sg_leave(&c, st);
}

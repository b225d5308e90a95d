/* capture_begin, capture_end, invalidate: argument and state checks, then
 * the engine (engine.c). */
#include "args.h"
#include "engine.h"
#include "entries.h"
#include "entry.h"

/* Argument checks shared by capture_begin and capture_end. */
static sg_status read_capture_args(sg_session *s, const sg_capture_args *args,
                                   sg_capture_args *in) {
  sg_status st = SG_READ(&s->diag, sg_capture_args, args, in, "args");
  if (st == SG_OK && in->capture_mode > SG_CAPTURE_RELAXED) {
    st = sg_fail(&s->diag, SG_ERR_INVALID_ARGUMENT,
                 "args->capture_mode is %u (known: 0..2)",
                 (unsigned)in->capture_mode);
  }
  if (st == SG_OK && in->flags != 0) {
    st = sg_fail(&s->diag, SG_ERR_INVALID_ARGUMENT, "args->flags is 0x%x, must be 0",
                 (unsigned)in->flags);
  }
  if (st == SG_OK) {
    st = sg_check_stream_arg(&s->diag, in->stream, "args->stream");
  }
  return st;
}

static sg_status require_ready(sg_session *s) {
  sg_status st = sg_require_not_capturing(s);
  if (st == SG_OK && s->state != SG_STATE_READY) {
    st = sg_fail(&s->diag, SG_ERR_INVALID_STATE,
                 "call pre_capture first (and again after registering)");
  }
  return st;
}

/* --- The engine ----------------------------------------------------------- */

/* --- Entries -------------------------------------------------------------- */

sg_status sg_capture_begin(sg_session *s, const sg_capture_args *args) {
  sg_call c;
  sg_capture_args in;
  sg_graph *e = NULL;
  sg_status st = sg_enter(&c, s, "capture_begin");
  if (st == SG_OK) {
    st = read_capture_args(s, args, &in);
  }
  if (st == SG_OK) { /* before the state: it explains every later refusal */
    st = sg_comm_require_usable(&s->comm);
  }
  if (st == SG_OK) {
    st = require_ready(s);
  }
  if (st == SG_OK) {
    st = sg_require_device(s);
  }
  if (st == SG_OK) {
    st = sg_engine_begin(s, in.key, in.stream, in.capture_mode, &e);
  }
  return sg_leave(&c, st);
}

static sg_status require_capturing(sg_session *s, const sg_capture_args *in) {
  if (s->state != SG_STATE_CAPTURING) {
    return sg_fail(&s->diag, SG_ERR_INVALID_STATE,
                   "no capture in progress; call capture_begin first");
  }
  if (in->stream == (sg_stream)cudaStreamPerThread &&
      in->stream == s->graphs.capturing_stream &&
      !pthread_equal(pthread_self(), s->graphs.capturing_thread)) {
    /* The handle would name this thread's own stream, not the one that is
     * capturing. */
    return sg_fail(&s->diag, SG_ERR_INVALID_ARGUMENT,
                   "args->stream is cudaStreamPerThread, which names each "
                   "thread's own stream, and the capture of key %llu began "
                   "on another thread's: call capture_end on the thread "
                   "that called capture_begin",
                   (unsigned long long)s->graphs.capturing_key);
  }
  if (in->key != s->graphs.capturing_key ||
      in->stream != s->graphs.capturing_stream) {
    return sg_fail(&s->diag, SG_ERR_INVALID_ARGUMENT,
                   "args->key %llu / stream %p is not the capture in "
                   "progress (key %llu, stream %p)",
                   (unsigned long long)in->key, (void *)in->stream,
                   (unsigned long long)s->graphs.capturing_key,
                   (void *)s->graphs.capturing_stream);
  }
  return SG_OK;
}

sg_status sg_capture_end(sg_session *s, const sg_capture_args *args) {
  sg_call c;
  sg_capture_args in;
  sg_status st = sg_enter(&c, s, "capture_end");
  if (st == SG_OK) {
    st = read_capture_args(s, args, &in);
  }
  if (st == SG_OK) {
    st = require_capturing(s, &in);
  }
  if (st == SG_OK) {
    st = sg_engine_end(s);
  }
  return sg_leave(&c, st);
}

/* Drops the key's graph (or its eager-only mark) and returns the graph's
 * memory to the device. */
static sg_status drop_key(sg_session *s, sg_graph *e) {
  const bool had_alloc = e->alloc_bytes > 0;
  sg_graph_drop(e);
  e->eager_only = false;
  e->eager_logged = false;
  e->reason[0] = '\0';
  s->stats.invalidations++;
  return had_alloc ? sg_graphs_trim(&s->graphs) : SG_OK;
}

sg_status sg_invalidate(sg_session *s, uint64_t key) {
  sg_call c;
  sg_graph *e = NULL;
  sg_status st = sg_enter(&c, s, "invalidate");
  if (st == SG_OK) {
    st = sg_require_not_capturing(s);
  }
  if (st == SG_OK && (e = sg_graphs_find(&s->graphs, key)) == NULL) {
    st = sg_fail(&s->diag, SG_ERR_NOT_FOUND, "key %llu has no graph",
                 (unsigned long long)key);
  }
  if (st == SG_OK) {
    st = drop_key(s, e);
  }
  return sg_leave(&c, st);
}

/* Which way a region entry works (captured or eager), and the checks the
 * opening and closing entries share. */
#include "args.h"
#include "cond.h"
#include "cuda_check.h"

sg_status sg_cond_check_open(sg_session *s, sg_stream stream,
                             const int32_t *ptr, const char *ptr_name,
                             const void *out, const char *out_name) {
  sg_status st = sg_check_stream_arg(&s->diag, stream, "stream");
  if (st == SG_OK && ptr == NULL) {
    st = sg_fail(&s->diag, SG_ERR_INVALID_ARGUMENT,
                 "%s is NULL (a device int32 is required)", ptr_name);
  }
  if (st == SG_OK && out == NULL) {
    st = sg_fail(&s->diag, SG_ERR_INVALID_ARGUMENT, "%s is NULL", out_name);
  }
  return st;
}

sg_status sg_cond_route(sg_session *s, sg_stream stream, bool *captured) {
  *captured = s->state == SG_STATE_CAPTURING;
  if (*captured) {
    if (stream == s->graphs.capturing_stream) {
      return SG_OK;
    }
    return sg_fail(&s->diag, SG_ERR_INVALID_ARGUMENT,
                   "stream %p is not the capture stream %p of key %llu: "
                   "while the session captures, regions are opened and "
                   "closed on the capture stream",
                   (void *)stream, (void *)s->graphs.capturing_stream,
                   (unsigned long long)s->graphs.capturing_key);
  }
  enum cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  sg_status st = SG_CUDA(&s->diag, cudaStreamIsCapturing(stream, &status));
  if (st == SG_OK && status != cudaStreamCaptureStatusNone) {
    st = sg_fail(&s->diag, SG_ERR_INVALID_STATE,
                 "stream %p is capturing, but not in a capture of this "
                 "session (the host's own, e.g. torch.cuda.graph): the "
                 "plugin adds conditional nodes only to its own captures "
                 "(capture_begin or the step driver); the stream is left "
                 "as it was",
                 (void *)stream);
  }
  return st;
}

static const char *kind_name(uint32_t kind) {
  return kind == SG_REGION_GUARD ? "guard" : "loop";
}

static const char *closer_of(uint32_t kind) {
  return kind == SG_REGION_GUARD ? "guard_end"
                                 : "loop_next until it answers 0";
}

sg_status sg_cond_require_top(sg_session *s, sg_stream stream, uint32_t kind,
                              sg_region **out) {
  sg_region *r = sg_conds_top(&s->conds);
  *out = r;
  if (r == NULL) {
    return sg_fail(&s->diag, SG_ERR_INVALID_STATE,
                   "no %s is open (%s)", kind_name(kind),
                   kind == SG_REGION_GUARD
                       ? "guard_begin was not called, or its guard_end "
                         "came already"
                       : "loop_begin was not called or answered 0, or "
                         "loop_next already answered 0");
  }
  if (r->kind != kind) {
    return sg_fail(&s->diag, SG_ERR_INVALID_STATE,
                   "the innermost open region is a %s, not a %s: close it "
                   "with %s first",
                   kind_name(r->kind), kind_name(kind), closer_of(r->kind));
  }
  if (r->stream != stream) {
    return sg_fail(&s->diag, SG_ERR_INVALID_ARGUMENT,
                   "stream %p is not the stream %p the %s was opened on",
                   (void *)stream, (void *)r->stream, kind_name(kind));
  }
  return SG_OK;
}

sg_status sg_cond_require_closed(sg_session *s, const char *who) {
  sg_conds *c = &s->conds;
  if (c->depth == 0) {
    return SG_OK;
  }
  const uint32_t open = c->depth;
  const sg_region *top = sg_conds_top(c);
  const char *name = kind_name(top->kind);
  c->depth = 0;
  return sg_fail(&s->diag, SG_ERR_INVALID_STATE,
                 "%s left %u region(s) open (the innermost a %s, to be "
                 "closed with %s); they are closed now",
                 who, open, name, closer_of(top->kind));
}

/* Conditional regions run eagerly (warm-up, graphs disabled, an eager-only
 * key): the plugin reads the host's device int32 — the one documented
 * synchronisation of these entries — and tells the host what to run. Eager
 * loops keep their index in the word of their nesting depth, written in
 * stream order, so the body's kernels read the same values a replay
 * gives them. */
#include "cond.h"
#include "conditional.h"
#include "cuda_check.h"

/* *out = *ptr, after everything enqueued on `stream` so far. */
static sg_status read_int(sg_session *s, sg_stream stream, const int32_t *ptr,
                          int32_t *out) {
  sg_conds *c = &s->conds;
  sg_status st = SG_CUDA(&s->diag,
                         cudaMemcpyAsync(c->pinned, ptr, sizeof *c->pinned,
                                         cudaMemcpyDefault,
                                         (cudaStream_t)stream));
  if (st == SG_OK) {
    st = SG_CUDA(&s->diag, cudaStreamSynchronize((cudaStream_t)stream));
  }
  if (st == SG_OK) {
    *out = *c->pinned;
  }
  return st;
}

static sg_status require_room(sg_session *s) {
  if (s->conds.depth < SG_REGION_DEPTH) {
    return SG_OK;
  }
  return sg_fail(&s->diag, SG_ERR_CAPACITY,
                 "%u regions are open already, the most that nest",
                 SG_REGION_DEPTH);
}

static sg_region *push(sg_conds *c, uint32_t kind, sg_stream stream) {
  sg_region *r = &c->stack[c->depth++];
  *r = (sg_region){0};
  r->kind = kind;
  r->stream = stream;
  return r;
}

sg_status sg_cond_eager_guard(sg_session *s, sg_stream stream,
                              const int32_t *flag, uint32_t *run_body) {
  int32_t value = 0;
  sg_status st = require_room(s);
  if (st == SG_OK) {
    st = read_int(s, stream, flag, &value);
  }
  if (st == SG_OK) {
    push(&s->conds, SG_REGION_GUARD, stream);
    s->conds.guards++;
    s->conds.guards_skipped += value == 0;
    *run_body = value != 0;
  }
  return st;
}

sg_status sg_cond_eager_loop(sg_session *s, sg_stream stream,
                             const int32_t *trip, const uint32_t **index_out,
                             uint32_t *again) {
  sg_conds *c = &s->conds;
  int32_t trips = 0;
  const uint32_t word = c->depth;
  sg_status st = require_room(s);
  if (st == SG_OK) {
    st = read_int(s, stream, trip, &trips);
  }
  if (st == SG_OK) {
    st = SG_CUDA(&s->diag, sg_k_index_reset(sg_conds_word(c, word),
                                            (cudaStream_t)stream));
  }
  if (st != SG_OK) {
    return st;
  }
  if (trips > 0) { /* else no iteration: the loop is over at once */
    sg_region *r = push(c, SG_REGION_LOOP, stream);
    r->word = word;
    r->trips = trips;
  }
  c->loops++;
  *index_out = sg_conds_word(c, word);
  *again = trips > 0;
  return SG_OK;
}

sg_status sg_cond_eager_next(sg_session *s, sg_region *r, uint32_t *again) {
  sg_status st = SG_CUDA(&s->diag,
                         sg_k_index_advance(sg_conds_word(&s->conds, r->word),
                                            (cudaStream_t)r->stream));
  if (st != SG_OK) {
    return st;
  }
  r->done++;
  *again = r->done < r->trips;
  if (!*again) {
    s->conds.depth--;
  }
  return SG_OK;
}

void sg_cond_eager_end(sg_session *s) { s->conds.depth--; }

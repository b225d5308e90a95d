/* The graph-safe RNG entries: rng_reserve, rng_end_step, rng_device_state,
 * rng_get_state, rng_set_state. The state itself is in rng.c. */
#include "args.h"
#include "entries.h"
#include "entry.h"

sg_status sg_rng_reserve(sg_session *s, uint64_t count, uint64_t *offset_out) {
  sg_call c;
  sg_status st = sg_enter(&c, s, "rng_reserve");
  if (st == SG_OK && offset_out == NULL) {
    st = sg_fail(&s->diag, SG_ERR_INVALID_ARGUMENT, "offset_out is NULL");
  }
  if (st == SG_OK && count == 0) {
    st = sg_fail(&s->diag, SG_ERR_INVALID_ARGUMENT, "count is 0");
  }
  uint64_t next;
  if (st == SG_OK &&
      __builtin_add_overflow(s->rng.step_offset, count, &next)) {
    st = sg_fail(&s->diag, SG_ERR_INVALID_ARGUMENT,
                 "count %llu overflows the step's offsets",
                 (unsigned long long)count);
  }
  if (st == SG_OK) {
    *offset_out = s->rng.step_offset;
    s->rng.step_offset = next;
  }
  return sg_leave(&c, st);
}

sg_status sg_rng_end_step(sg_session *s, sg_stream stream) {
  sg_call c;
  sg_status st = sg_enter(&c, s, "rng_end_step");
  if (st == SG_OK) {
    st = sg_require_usable(s);
  }
  if (st == SG_OK) {
    st = sg_rng_advance(&s->rng, (cudaStream_t)stream);
  }
  return sg_leave(&c, st);
}

sg_status sg_rng_device_state_get(sg_session *s, sg_rng_device_state *out) {
  sg_call c;
  sg_status st = sg_enter(&c, s, "rng_device_state");
  sg_rng_device_state ours = {0};
  if (st == SG_OK) {
    st = SG_CHECK_OUT(&s->diag, sg_rng_device_state, out, "out");
  }
  if (st == SG_OK) {
    sg_rng_pointers(&s->rng, &ours.seed, &ours.base_offset);
    st = SG_WRITE(&s->diag, sg_rng_device_state, out, &ours, "out");
  }
  return sg_leave(&c, st);
}

/* Checkpoint entries wait for `stream`: not while capturing, not on the
 * legacy stream, not in an unusable multi-GPU session (its stream may
 * hold a collective that never completes). Validation-only sessions use
 * their host-side state. */
static sg_status require_checkpoint(sg_session *s, sg_stream stream) {
  sg_status st = sg_require_not_capturing(s);
  if (st == SG_OK) {
    st = sg_check_stream_arg(&s->diag, stream, "stream");
  }
  return st == SG_OK ? sg_require_usable(s) : st;
}

sg_status sg_rng_get_state(sg_session *s, sg_stream stream, sg_rng_state *out) {
  sg_call c;
  sg_status st = sg_enter(&c, s, "rng_get_state");
  sg_rng_state ours = {0};
  if (st == SG_OK) {
    st = SG_CHECK_OUT(&s->diag, sg_rng_state, out, "out");
  }
  if (st == SG_OK) {
    st = require_checkpoint(s, stream);
  }
  if (st == SG_OK) {
    st = sg_rng_get(&s->rng, (cudaStream_t)stream, &ours.seed, &ours.offset);
  }
  if (st == SG_OK) {
    st = SG_WRITE(&s->diag, sg_rng_state, out, &ours, "out");
  }
  return sg_leave(&c, st);
}

sg_status sg_rng_set_state(sg_session *s, sg_stream stream,
                           const sg_rng_state *state) {
  sg_call c;
  sg_status st = sg_enter(&c, s, "rng_set_state");
  sg_rng_state in;
  if (st == SG_OK) {
    st = SG_READ(&s->diag, sg_rng_state, state, &in, "state");
  }
  if (st == SG_OK) {
    st = require_checkpoint(s, stream);
  }
  if (st == SG_OK) {
    st = sg_rng_put(&s->rng, (cudaStream_t)stream, in.seed, in.offset);
  }
  return sg_leave(&c, st);
}

/* The graph-safe RNG entries: rng_reserve, rng_end_step, rng_device_state,
 * rng_get_state, rng_set_state. The state itself is in rng.c. */
#include "args.h"
#include "cuda_check.h"
#include "entries.h"
#include "entry.h"
#include "rng_advance.h"

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
    st = sg_require_device(s);
  }
  if (st == SG_OK) {
    /* The step's total is baked into a captured launch: every replay
     * advances the base offset exactly as the eager step did. */
    st = SG_CUDA(&s->diag, sg_k_rng_advance(&s->rng.device_state[1],
                                     s->rng.step_offset,
                                     (cudaStream_t)stream));
  }
  if (st == SG_OK) {
    s->rng.step_offset = 0;
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
    st = sg_require_device(s);
  }
  if (st == SG_OK) {
    ours.seed = &s->rng.device_state[0];
    ours.base_offset = &s->rng.device_state[1];
    st = SG_WRITE(&s->diag, sg_rng_device_state, out, &ours, "out");
  }
  return sg_leave(&c, st);
}

sg_status sg_rng_get_state(sg_session *s, sg_stream stream, sg_rng_state *out) {
  sg_call c;
  sg_status st = sg_enter(&c, s, "rng_get_state");
  sg_rng_state ours = {0};
  if (st == SG_OK) {
    st = SG_CHECK_OUT(&s->diag, sg_rng_state, out, "out");
  }
  if (st == SG_OK) {
    st = sg_require_sync_allowed(s, stream);
  }
  uint64_t state[2];
  if (st == SG_OK) {
    st = SG_CUDA(&s->diag, cudaMemcpyAsync(state, s->rng.device_state, sizeof state,
                                    cudaMemcpyDeviceToHost, stream));
  }
  if (st == SG_OK) {
    st = SG_CUDA(&s->diag, cudaStreamSynchronize(stream));
  }
  if (st == SG_OK) {
    ours.seed = state[0];
    ours.offset = state[1];
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
    st = sg_require_sync_allowed(s, stream);
  }
  if (st == SG_OK) {
    st = sg_rng_put(&s->rng, (cudaStream_t)stream, in.seed, in.offset);
  }
  return sg_leave(&c, st);
}

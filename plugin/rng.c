#include "rng.h"

#include "cuda_check.h"
#include "rng_advance.h"

sg_status sg_rng_put(sg_rng *r, cudaStream_t stream, uint64_t seed,
                     uint64_t offset) {
  if (r->device_state == NULL) {
    r->seed = seed;
    r->host_offset = offset;
    return SG_OK;
  }
  const uint64_t state[2] = {seed, offset};
  sg_status st = SG_CUDA(r->diag,
                         cudaMemcpyAsync(r->device_state, state, sizeof state,
                                         cudaMemcpyHostToDevice, stream));
  if (st == SG_OK) {
    st = SG_CUDA(r->diag, cudaStreamSynchronize(stream));
  }
  if (st == SG_OK) {
    r->seed = seed;
  }
  return st;
}

sg_status sg_rng_get(sg_rng *r, cudaStream_t stream, uint64_t *seed,
                     uint64_t *offset) {
  if (r->device_state == NULL) {
    *seed = r->seed;
    *offset = r->host_offset;
    return SG_OK;
  }
  uint64_t state[2];
  sg_status st = SG_CUDA(r->diag,
                         cudaMemcpyAsync(state, r->device_state, sizeof state,
                                         cudaMemcpyDeviceToHost, stream));
  if (st == SG_OK) {
    st = SG_CUDA(r->diag, cudaStreamSynchronize(stream));
  }
  if (st == SG_OK) {
    *seed = state[0];
    *offset = state[1];
  }
  return st;
}

sg_status sg_rng_advance(sg_rng *r, cudaStream_t stream) {
  sg_status st = SG_OK;
  if (r->device_state == NULL) {
    r->host_offset += r->step_offset; /* wraps modulo 2^64, as the kernel */
  } else {
    /* The step's total is baked into a captured launch: every replay
     * advances the base offset exactly as the eager step did. */
    st = SG_CUDA(r->diag, sg_k_rng_advance(&r->device_state[1],
                                           r->step_offset, stream));
  }
  if (st == SG_OK) {
    r->step_offset = 0;
  }
  return st;
}

void sg_rng_pointers(const sg_rng *r, const uint64_t **seed,
                     const uint64_t **base_offset) {
  if (r->device_state == NULL) {
    *seed = SG_RNG_PLACEHOLDER_SEED;
    *base_offset = SG_RNG_PLACEHOLDER_BASE_OFFSET;
    return;
  }
  *seed = &r->device_state[0];
  *base_offset = &r->device_state[1];
}

sg_status sg_rng_open(sg_rng *r, sg_diag *diag, uint64_t seed,
                      bool with_device, cudaStream_t stream) {
  r->diag = diag;
  r->seed = seed;
  if (!with_device) {
    return SG_OK;
  }
  sg_status st = SG_CUDA(diag, cudaMalloc((void **)&r->device_state,
                                          2 * sizeof(uint64_t)));
  if (st == SG_OK) {
    st = sg_rng_put(r, stream, seed, 0);
  }
  return st;
}

void sg_rng_close(sg_rng *r) {
  if (r->device_state != NULL) {
    (void)SG_CUDA(r->diag, cudaFree(r->device_state));
  }
}

#include "rng.h"

#include "cuda_check.h"

sg_status sg_rng_put(sg_rng *r, cudaStream_t stream, uint64_t seed,
                     uint64_t offset) {
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

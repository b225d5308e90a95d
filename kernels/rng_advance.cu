/* The end-of-step RNG advance: *base_offset += count, one thread. */
#include "rng_advance.h"

namespace {

__global__ void rng_advance_kernel(unsigned long long *base_offset,
                                   unsigned long long count) {
  *base_offset += count;
}

}  // namespace

extern "C" cudaError_t sg_k_rng_advance(uint64_t *base_offset, uint64_t count,
                                        cudaStream_t stream) {
  if (base_offset == nullptr) {
    return cudaErrorInvalidValue;
  }
  unsigned long long *base =
      reinterpret_cast<unsigned long long *>(base_offset);
  unsigned long long n = count;
  void *args[] = {&base, &n};
  return cudaLaunchKernel(reinterpret_cast<const void *>(&rng_advance_kernel),
                          dim3(1), dim3(1), args, 0, stream);
}

extern "C" cudaError_t sg_k_rng_load(void) {
  cudaFuncAttributes attributes;
  return cudaFuncGetAttributes(
      &attributes, reinterpret_cast<const void *>(&rng_advance_kernel));
}

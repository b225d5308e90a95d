/* Kernels of the host-integration GPU tests (see host_kernels.h). */
#include "host_kernels.h"

namespace {

__global__ void wait_flag(const volatile int *flag) {
  const long long start = clock64();
  const long long limit = 40000000000ll; /* ~20 s at 2 GHz */
  while (*flag == 0 && clock64() - start < limit) {
  }
}

__global__ void checksum(const uint32_t *tokens, size_t words,
                         unsigned long long *sum) {
  unsigned long long acc = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < words;
       i += (size_t)gridDim.x * blockDim.x) {
    acc += tokens[i];
  }
  atomicAdd(sum, acc);
}

__global__ void record(const hk_scalars *scalars, unsigned long long *sum,
                       hk_record *records, uint32_t *counter,
                       uint32_t capacity) {
  const uint32_t k = *counter;
  if (k < capacity) {
    records[k].lr = scalars->lr;
    records[k].step = scalars->step;
    records[k].checksum = *sum;
  }
  *counter = k + 1;
  *sum = 0;
}

template <typename K>
cudaError_t load(K kernel) {
  cudaFuncAttributes a;
  return cudaFuncGetAttributes(&a, reinterpret_cast<const void *>(kernel));
}

}  // namespace

extern "C" {

cudaError_t hk_wait_flag(const volatile int *flag, cudaStream_t stream) {
  wait_flag<<<1, 1, 0, stream>>>(flag);
  return cudaGetLastError();
}

cudaError_t hk_checksum(const uint32_t *tokens, size_t words,
                        unsigned long long *sum, cudaStream_t stream) {
  checksum<<<64, 256, 0, stream>>>(tokens, words, sum);
  return cudaGetLastError();
}

cudaError_t hk_record_step(const hk_scalars *scalars,
                           unsigned long long *sum,
                           hk_record *records, uint32_t *counter,
                           uint32_t capacity, cudaStream_t stream) {
  record<<<1, 1, 0, stream>>>(scalars, sum, records, counter, capacity);
  return cudaGetLastError();
}

cudaError_t hk_preload(void) {
  const cudaError_t errs[] = {load(wait_flag), load(checksum), load(record)};
  for (cudaError_t e : errs) {
    if (e != cudaSuccess) {
      return e;
    }
  }
  return cudaSuccess;
}

}  // extern "C"

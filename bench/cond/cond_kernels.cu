#include "cond_kernels.h"

namespace {

constexpr unsigned kThreads = 256;

unsigned blocks(size_t n) {
  const size_t b = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(b < 1024 ? b : 1024);
}

__global__ void gather(float *acc, const float *inputs, const uint32_t *index,
                       uint32_t slices, size_t n) {
  const float *in = inputs + (*index % slices) * n;
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n;
       i += size_t{gridDim.x} * blockDim.x) {
    acc[i] += in[i];
  }
}

__global__ void work(float *v, size_t n) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n;
       i += size_t{gridDim.x} * blockDim.x) {
    v[i] = v[i] * 0.999f + 0.001f;
  }
}

__global__ void apply(float *w, float *acc, size_t n) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n;
       i += size_t{gridDim.x} * blockDim.x) {
    w[i] -= 1e-3f * acc[i];
    acc[i] = 0.0f;
  }
}

__global__ void set(int32_t *p, int32_t v) { *p = v; }

}  // namespace

extern "C" cudaError_t ck_gather(float *acc, const float *inputs,
                                 const uint32_t *index, uint32_t slices,
                                 size_t n, cudaStream_t stream) {
  gather<<<blocks(n), kThreads, 0, stream>>>(acc, inputs, index, slices, n);
  return cudaGetLastError();
}

extern "C" cudaError_t ck_work(float *v, size_t n, cudaStream_t stream) {
  work<<<blocks(n), kThreads, 0, stream>>>(v, n);
  return cudaGetLastError();
}

extern "C" cudaError_t ck_apply(float *w, float *acc, size_t n,
                                cudaStream_t stream) {
  apply<<<blocks(n), kThreads, 0, stream>>>(w, acc, n);
  return cudaGetLastError();
}

extern "C" cudaError_t ck_set(int32_t *p, int32_t v, cudaStream_t stream) {
  set<<<1, 1, 0, stream>>>(p, v);
  return cudaGetLastError();
}

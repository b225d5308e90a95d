/* Kernels of the GPU test programs (see gpu_kernels.h). */
#include <curand_kernel.h>

#include "gpu_kernels.h"

namespace {

constexpr unsigned kThreads = 256;

unsigned blocks_for(size_t n) {
  size_t b = (n + kThreads - 1) / kThreads;
  return b == 0 ? 1u : (b > 65535 ? 65535u : static_cast<unsigned>(b));
}

__global__ void philox_uniform(float *out, uint32_t n, const uint64_t *seed,
                               const uint64_t *base_offset, uint64_t offset) {
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += gridDim.x * blockDim.x) {
    curandStatePhilox4_32_10_t state;
    curand_init(static_cast<unsigned long long>(*seed), i,
                static_cast<unsigned long long>(*base_offset + offset),
                &state);
    out[i] = curand_uniform(&state);
  }
}

__global__ void axpby(float *v, const float *c, float a, float b,
                      uint32_t n) {
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += gridDim.x * blockDim.x) {
    v[i] = a * v[i] + b * c[i];
  }
}

__global__ void add_noise(float *v, const float *u, float scale, uint32_t n) {
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += gridDim.x * blockDim.x) {
    v[i] += scale * (u[i] - 0.5f);
  }
}

/* Sums kThreads values of shared memory in a fixed tree order. */
__device__ float block_sum(float *sh, float x) {
  sh[threadIdx.x] = x;
  __syncthreads();
  for (unsigned w = blockDim.x / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) {
      sh[threadIdx.x] += sh[threadIdx.x + w];
    }
    __syncthreads();
  }
  return sh[0];
}

__global__ void sumsq_partials(const float *v, uint32_t n, float *partials) {
  __shared__ float sh[kThreads];
  float acc = 0.0f;
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += gridDim.x * blockDim.x) {
    acc += v[i] * v[i];
  }
  float total = block_sum(sh, acc);
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = total;
  }
}

__global__ void finish_norm(const float *partials, float *norm,
                            float *hist_norm, float *hist_u, const float *u,
                            uint32_t *counter, uint32_t capacity) {
  __shared__ float sh[kThreads];
  float x = threadIdx.x < TK_PARTIALS ? partials[threadIdx.x] : 0.0f;
  float total = block_sum(sh, x);
  if (threadIdx.x == 0) {
    *norm = total;
    uint32_t k = *counter;
    if (k < capacity) {
      hist_norm[k] = total;
      for (int j = 0; j < 4; j++) {
        hist_u[4 * k + j] = u[j];
      }
    }
    *counter = k + 1;
  }
}

__global__ void scale_by_norm(float *v, const float *norm, uint32_t n) {
  float f = rsqrtf(*norm / static_cast<float>(n) + 1e-6f);
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += gridDim.x * blockDim.x) {
    v[i] *= f;
  }
}

__global__ void set_int(int *p, int v) { *p = v; }
__global__ void add_int(int *p, int v) { *p += v; }

__global__ void log_entry(int *log, int *count, int capacity, int tag,
                          const uint32_t *index) {
  const int at = *count;
  if (at < capacity) {
    log[at] = tag * 1000 + (index != nullptr ? static_cast<int>(*index) : 0);
  }
  *count = at + 1;
}

__global__ void scale_copy(float *dst, const float *src, float a, size_t n) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    dst[i] = a * src[i];
  }
}

__global__ void fill_bytes(uint8_t *p, uint8_t v, size_t n) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    p[i] = v;
  }
}

__global__ void mix_bytes(uint8_t *p, size_t n) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    p[i] = static_cast<uint8_t>(p[i] * 5u + 3u);
  }
}

template <typename K>
cudaError_t load(K kernel) {
  cudaFuncAttributes a;
  return cudaFuncGetAttributes(&a, reinterpret_cast<const void *>(kernel));
}

}  // namespace

extern "C" {

cudaError_t tk_philox_uniform(float *out, uint32_t n, const uint64_t *seed,
                              const uint64_t *base_offset, uint64_t offset,
                              cudaStream_t stream) {
  philox_uniform<<<blocks_for(n), kThreads, 0, stream>>>(out, n, seed,
                                                         base_offset, offset);
  return cudaGetLastError();
}

cudaError_t tk_axpby(float *v, const float *c, float a, float b, uint32_t n,
                     cudaStream_t stream) {
  axpby<<<blocks_for(n), kThreads, 0, stream>>>(v, c, a, b, n);
  return cudaGetLastError();
}

cudaError_t tk_add_noise(float *v, const float *u, float scale, uint32_t n,
                         cudaStream_t stream) {
  add_noise<<<blocks_for(n), kThreads, 0, stream>>>(v, u, scale, n);
  return cudaGetLastError();
}

cudaError_t tk_sumsq_partials(const float *v, uint32_t n, float *partials,
                              cudaStream_t stream) {
  sumsq_partials<<<TK_PARTIALS, kThreads, 0, stream>>>(v, n, partials);
  return cudaGetLastError();
}

cudaError_t tk_finish_norm(const float *partials, float *norm,
                           float *hist_norm, float *hist_u, const float *u,
                           uint32_t *counter, uint32_t capacity,
                           cudaStream_t stream) {
  finish_norm<<<1, kThreads, 0, stream>>>(partials, norm, hist_norm, hist_u,
                                          u, counter, capacity);
  return cudaGetLastError();
}

cudaError_t tk_scale_by_norm(float *v, const float *norm, uint32_t n,
                             cudaStream_t stream) {
  scale_by_norm<<<blocks_for(n), kThreads, 0, stream>>>(v, norm, n);
  return cudaGetLastError();
}

cudaError_t tk_set_int(int *p, int v, cudaStream_t stream) {
  set_int<<<1, 1, 0, stream>>>(p, v);
  return cudaGetLastError();
}

cudaError_t tk_add_int(int *p, int v, cudaStream_t stream) {
  add_int<<<1, 1, 0, stream>>>(p, v);
  return cudaGetLastError();
}

cudaError_t tk_log(int *log, int *count, int capacity, int tag,
                   const uint32_t *index, cudaStream_t stream) {
  log_entry<<<1, 1, 0, stream>>>(log, count, capacity, tag, index);
  return cudaGetLastError();
}

cudaError_t tk_scale_copy(float *dst, const float *src, float a, size_t n,
                          cudaStream_t stream) {
  scale_copy<<<blocks_for(n), kThreads, 0, stream>>>(dst, src, a, n);
  return cudaGetLastError();
}

cudaError_t tk_fill_bytes(uint8_t *p, uint8_t v, size_t n,
                          cudaStream_t stream) {
  fill_bytes<<<blocks_for(n), kThreads, 0, stream>>>(p, v, n);
  return cudaGetLastError();
}

cudaError_t tk_mix_bytes(uint8_t *p, size_t n, cudaStream_t stream) {
  mix_bytes<<<blocks_for(n), kThreads, 0, stream>>>(p, n);
  return cudaGetLastError();
}

cudaError_t tk_preload(void) {
  cudaError_t errs[] = {load(philox_uniform), load(axpby),
                        load(add_noise),      load(sumsq_partials),
                        load(finish_norm),    load(scale_by_norm),
                        load(set_int),        load(add_int),
                        load(scale_copy),     load(fill_bytes),
                        load(mix_bytes),      load(log_entry)};
  for (cudaError_t e : errs) {
    if (e != cudaSuccess) {
      return e;
    }
  }
  return cudaSuccess;
}

}  // extern "C"

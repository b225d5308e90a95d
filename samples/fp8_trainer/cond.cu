/* The trainer's conditional-feature kernels (cond_kernels.h). */
#include <math.h>

#include "cond_kernels.h"
#include "launch.cuh"

__global__ void schedule_kernel(const uint32_t *iter, const uint32_t *steps,
                                const int32_t *counts, uint32_t entries,
                                int32_t *trip) {
  const uint32_t now = *iter;
  int32_t n = counts[0];
  for (uint32_t k = 1; k < entries && steps[k] <= now; k++) {
    n = counts[k];
  }
  *trip = n;
}

__global__ void microbatch_rng_kernel(const uint64_t *base_offset,
                                      uint64_t block, const uint32_t *index,
                                      uint64_t per_microbatch,
                                      uint64_t *mb_base) {
  *mb_base = *base_offset + block + *index * per_microbatch;
}

__global__ void accumulate_kernel(float4 *grad, const float4 *mb, size_t quads,
                                  const uint32_t *index) {
  const size_t i = tr_quad_index();
  if (i >= quads) {
    return;
  }
  const float4 g = mb[i];
  if (*index == 0) {
    grad[i] = g;
    return;
  }
  const float4 a = grad[i];
  grad[i] = make_float4(a.x + g.x, a.y + g.y, a.z + g.z, a.w + g.w);
}

__global__ void arm_and_inject_kernel(float *grad, const uint32_t *iter,
                                      const uint32_t *faults, uint32_t count,
                                      int32_t *finite) {
  *finite = 1;
  for (uint32_t k = 0; k < count; k++) {
    if (faults[k] == *iter) {
      grad[0] = nanf("");
    }
  }
}

__global__ void all_finite_kernel(const float4 *grad, size_t quads,
                                  int32_t *finite) {
  const size_t i = tr_quad_index();
  if (i < quads) {
    const float4 g = grad[i];
    if (!isfinite(g.x) || !isfinite(g.y) || !isfinite(g.z) ||
        !isfinite(g.w)) {
      *finite = 0; /* every writer writes 0: no race on the value */
    }
  }
}

__global__ void advance_kernel(uint32_t *counter) { *counter += 1u; }

struct regions {
  tr_k_region r[TR_DIGEST_REGIONS];
};

__device__ __forceinline__ uint64_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xFF51AFD7ED558CCDull;
  x ^= x >> 33;
  x *= 0xC4CEB9FE1A85EC53ull;
  return x ^ (x >> 33);
}

__global__ void digest_kernel(regions rs, const uint32_t *iter, uint32_t phase,
                              unsigned long long *digests, uint32_t capacity) {
  uint64_t sum = 0;
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (uint32_t k = 0; k < TR_DIGEST_REGIONS; k++) {
    const uint32_t *words = static_cast<const uint32_t *>(rs.r[k].p);
    const size_t n = rs.r[k].bytes / 4;
    for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
         i < n; i += stride) {
      sum += mix((static_cast<uint64_t>(k) << 56) ^ (i << 32) ^ words[i]);
    }
  }
  unsigned long long part = sum;
  for (int o = 16; o > 0; o >>= 1) {
    part += __shfl_down_sync(0xffffffffu, part, o);
  }
  const uint32_t slot = 2u * *iter + phase;
  if ((threadIdx.x & 31u) == 0 && slot < capacity) {
    atomicAdd(&digests[slot], part); /* integer sums: any order, same bits */
  }
}

extern "C" cudaError_t tr_k_schedule(const uint32_t *iter,
                                     const uint32_t *steps,
                                     const int32_t *counts, uint32_t entries,
                                     int32_t *trip, cudaStream_t stream) {
  schedule_kernel<<<1, 1, 0, stream>>>(iter, steps, counts, entries, trip);
  return cudaGetLastError();
}

extern "C" cudaError_t tr_k_microbatch_rng(const uint64_t *base_offset,
                                           uint64_t block,
                                           const uint32_t *index,
                                           uint64_t per_microbatch,
                                           uint64_t *mb_base,
                                           cudaStream_t stream) {
  microbatch_rng_kernel<<<1, 1, 0, stream>>>(base_offset, block, index,
                                             per_microbatch, mb_base);
  return cudaGetLastError();
}

extern "C" cudaError_t tr_k_accumulate(float *grad, const float *mb, size_t n,
                                       const uint32_t *index,
                                       cudaStream_t stream) {
  accumulate_kernel<<<tr_blocks_for(n), TR_BLOCK, 0, stream>>>(
      reinterpret_cast<float4 *>(grad), reinterpret_cast<const float4 *>(mb),
      n / 4, index);
  return cudaGetLastError();
}

extern "C" cudaError_t tr_k_arm_and_inject(float *grad, const uint32_t *iter,
                                           const uint32_t *faults,
                                           uint32_t count, int32_t *finite,
                                           cudaStream_t stream) {
  arm_and_inject_kernel<<<1, 1, 0, stream>>>(grad, iter, faults, count,
                                             finite);
  return cudaGetLastError();
}

extern "C" cudaError_t tr_k_all_finite(const float *grad, size_t n,
                                       int32_t *finite, cudaStream_t stream) {
  all_finite_kernel<<<tr_blocks_for(n), TR_BLOCK, 0, stream>>>(
      reinterpret_cast<const float4 *>(grad), n / 4, finite);
  return cudaGetLastError();
}

extern "C" cudaError_t tr_k_advance(uint32_t *counter, cudaStream_t stream) {
  advance_kernel<<<1, 1, 0, stream>>>(counter);
  return cudaGetLastError();
}

extern "C" cudaError_t tr_k_digest(const tr_k_region *regions,
                                   const uint32_t *iter, uint32_t phase,
                                   uint64_t *digests, uint32_t capacity,
                                   cudaStream_t stream) {
  struct regions rs;
  for (int k = 0; k < TR_DIGEST_REGIONS; k++) {
    rs.r[k] = regions[k];
  }
  digest_kernel<<<256, TR_BLOCK, 0, stream>>>(
      rs, iter, phase, reinterpret_cast<unsigned long long *>(digests),
      capacity);
  return cudaGetLastError();
}

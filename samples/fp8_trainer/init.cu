/* Setup-time kernels: weight initialisation, and the empty kernel whose
 * launches measure the benchmark's speedup ceiling. */
#include "kernels.h"
#include "launch.cuh"
#include "philox.cuh"

/* Counter-based like the step's RNG but keyed by the host's seed and a
 * stream id, so each buffer's initial values are fixed by (seed, id) and
 * identical in every mode. */
__global__ void init_normal_kernel(float4 *dst, size_t quads, float std,
                                   uint64_t seed, uint64_t stream_id) {
  const size_t i = tr_quad_index();
  if (i < quads) {
    const uint4 r = tr_philox(seed ^ (stream_id * 0x9E3779B97F4A7C15ull), i);
    const float2 a = tr_normal2(r.x, r.y);
    const float2 b = tr_normal2(r.z, r.w);
    dst[i] = make_float4(a.x * std, a.y * std, b.x * std, b.y * std);
  }
}

__global__ void empty_kernel() {}

extern "C" cudaError_t tr_k_init_normal(float *dst, size_t n, float std,
                                        uint64_t seed, uint64_t stream_id,
                                        cudaStream_t stream) {
  init_normal_kernel<<<tr_blocks_for(n), TR_BLOCK, 0, stream>>>(
      reinterpret_cast<float4 *>(dst), n / 4, std, seed, stream_id);
  return cudaGetLastError();
}

extern "C" cudaError_t tr_k_empty(cudaStream_t stream) {
  empty_kernel<<<1, 1, 0, stream>>>();
  return cudaGetLastError();
}

/* The fixed random teacher the student regresses: each step draws fresh
 * inputs x ~ N(0, 1) on the device through the plugin's graph-safe RNG, and
 * the teacher maps them to targets t = tanh(x A1^T) A2^T (two FP32 GEMMs in
 * step.c around the tanh below). A1 and A2 are drawn once at setup and
 * never trained. */
#include <cuda_bf16.h>
#include <cuda_fp8.h>

#include "kernels.h"
#include "launch.cuh"
#include "philox.cuh"
#include "quant.cuh"

__global__ void draw_inputs_kernel(tr_rng_stream rng, float4 *x,
                                   tr_k_operand out, size_t quads) {
  const size_t i = tr_quad_index();
  float amax = 0.0f;
  if (i < quads) {
    const uint4 r = tr_rng_draw(rng, i);
    const float2 a = tr_normal2(r.x, r.y);
    const float2 b = tr_normal2(r.z, r.w);
    const float4 v = make_float4(a.x, a.y, b.x, b.y);
    x[i] = v;
    amax = tr_quantize4<__NV_E4M3>(out, 4 * i, v);
  }
  tr_amax_commit(out.amax, amax);
}

__global__ void tanh_kernel(float4 *v, size_t quads) {
  const size_t i = tr_quad_index();
  if (i < quads) {
    const float4 x = v[i];
    v[i] = make_float4(tanhf(x.x), tanhf(x.y), tanhf(x.z), tanhf(x.w));
  }
}

extern "C" uint64_t tr_k_rng_counters(size_t n) { return n / 4; }

extern "C" cudaError_t tr_k_draw_inputs(tr_rng_stream rng, float *x,
                                        tr_k_operand out, size_t n,
                                        cudaStream_t stream) {
  draw_inputs_kernel<<<tr_blocks_for(n), TR_BLOCK, 0, stream>>>(
      rng, reinterpret_cast<float4 *>(x), out, n / 4);
  return cudaGetLastError();
}

extern "C" cudaError_t tr_k_tanh(float *v, size_t n, cudaStream_t stream) {
  tanh_kernel<<<tr_blocks_for(n), TR_BLOCK, 0, stream>>>(
      reinterpret_cast<float4 *>(v), n / 4);
  return cudaGetLastError();
}

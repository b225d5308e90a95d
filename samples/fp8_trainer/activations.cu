/* GELU and dropout between hidden layers, forward and backward, each fused
 * with the quantization of the next GEMM's operand so that the FP32
 * activation never makes a second trip through memory. */
#include <cuda_bf16.h>
#include <cuda_fp8.h>

#include "kernels.h"
#include "launch.cuh"
#include "philox.cuh"
#include "quant.cuh"

/* Exact (erf) GELU and its derivative. */
__device__ __forceinline__ float gelu(float x) {
  return 0.5f * x * (1.0f + erff(x * 0.70710678f));
}

__device__ __forceinline__ float gelu_grad(float x) {
  const float cdf = 0.5f * (1.0f + erff(x * 0.70710678f));
  const float pdf = 0.39894228f * expf(-0.5f * x * x);
  return cdf + x * pdf;
}

__global__ void gelu_dropout_kernel(const void *y, tr_rng_stream rng,
                                    float p, uchar4 *keep, tr_k_operand out,
                                    size_t quads) {
  const size_t i = tr_quad_index();
  float amax = 0.0f;
  if (i < quads) {
    const uint4 r = tr_rng_draw(rng, i);
    const float inv_keep = 1.0f / (1.0f - p);
    const float4 v = tr_load_bf16x4(y, i);
    const uchar4 k = make_uchar4(tr_uniform(r.x) >= p, tr_uniform(r.y) >= p,
                                 tr_uniform(r.z) >= p, tr_uniform(r.w) >= p);
    const float4 a = make_float4(gelu(v.x) * k.x * inv_keep,
                                 gelu(v.y) * k.y * inv_keep,
                                 gelu(v.z) * k.z * inv_keep,
                                 gelu(v.w) * k.w * inv_keep);
    keep[i] = k;
    amax = tr_quantize4<__NV_E4M3>(out, 4 * i, a);
  }
  tr_amax_commit(out.amax, amax);
}

__global__ void gelu_dropout_backward_kernel(const void *dx, const void *y,
                                             const uchar4 *keep, float p,
                                             tr_k_operand out, size_t quads) {
  const size_t i = tr_quad_index();
  float amax = 0.0f;
  if (i < quads) {
    const float inv_keep = 1.0f / (1.0f - p);
    const float4 d = tr_load_bf16x4(dx, i);
    const float4 v = tr_load_bf16x4(y, i);
    const uchar4 k = keep[i];
    const float4 g = make_float4(d.x * (k.x * inv_keep) * gelu_grad(v.x),
                                 d.y * (k.y * inv_keep) * gelu_grad(v.y),
                                 d.z * (k.z * inv_keep) * gelu_grad(v.z),
                                 d.w * (k.w * inv_keep) * gelu_grad(v.w));
    amax = tr_quantize4<__NV_E5M2>(out, 4 * i, g);
  }
  tr_amax_commit(out.amax, amax);
}

extern "C" cudaError_t tr_k_gelu_dropout(const void *y, tr_rng_stream rng,
                                         float p, uint8_t *keep,
                                         tr_k_operand out, size_t n,
                                         cudaStream_t stream) {
  gelu_dropout_kernel<<<tr_blocks_for(n), TR_BLOCK, 0, stream>>>(
      y, rng, p,
      reinterpret_cast<uchar4 *>(keep), out, n / 4);
  return cudaGetLastError();
}

extern "C" cudaError_t tr_k_gelu_dropout_backward(const void *dx,
                                                  const void *y,
                                                  const uint8_t *keep, float p,
                                                  tr_k_operand out, size_t n,
                                                  cudaStream_t stream) {
  gelu_dropout_backward_kernel<<<tr_blocks_for(n), TR_BLOCK, 0, stream>>>(
      dx, y, reinterpret_cast<const uchar4 *>(keep), p, out, n / 4);
  return cudaGetLastError();
}

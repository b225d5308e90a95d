/* Quantizing a tensor for the FP8 GEMMs with delayed scaling: each kernel
 * that produces a GEMM operand writes it as FP8 codes q = sat(x * scale) (the
 * scale derived from earlier steps' amax) and as BF16 (for the weight-
 * gradient GEMM), and records this step's amax for the next scale. The
 * FP8 GEMMs' own outputs arrive as BF16. */
#ifndef TR_QUANT_CUH
#define TR_QUANT_CUH

#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <stdint.h>

#include "kernels.h"

/* Four consecutive values at element i (a multiple of 4): FP8 codes with
 * the hardware's saturating conversion, the BF16 copy; returns their amax. */
template <__nv_fp8_interpretation_t FMT>
__device__ __forceinline__ float tr_quantize4(const tr_k_operand &o,
                                              size_t i, float4 v) {
  const float s = *o.scale;
  const __nv_fp8x2_storage_t lo =
      __nv_cvt_float2_to_fp8x2(make_float2(v.x * s, v.y * s), __NV_SATFINITE, FMT);
  const __nv_fp8x2_storage_t hi =
      __nv_cvt_float2_to_fp8x2(make_float2(v.z * s, v.w * s), __NV_SATFINITE, FMT);
  *reinterpret_cast<uint32_t *>(o.q + i) = (uint32_t)lo | ((uint32_t)hi << 16);
  __nv_bfloat162 *bf = reinterpret_cast<__nv_bfloat162 *>(o.bf) + i / 2;
  bf[0] = __floats2bfloat162_rn(v.x, v.y);
  bf[1] = __floats2bfloat162_rn(v.z, v.w);
  return fmaxf(fmaxf(fabsf(v.x), fabsf(v.y)), fmaxf(fabsf(v.z), fabsf(v.w)));
}

/* Four BF16 values (8 bytes) of group `quad` as floats: a BF16 is the top
 * half of a float, so widening is exact. */
__device__ __forceinline__ float4 tr_load_bf16x4(const void *p, size_t quad) {
  const uint2 raw = reinterpret_cast<const uint2 *>(p)[quad];
  return make_float4(__uint_as_float(raw.x << 16),
                     __uint_as_float(raw.x & 0xFFFF0000u),
                     __uint_as_float(raw.y << 16),
                     __uint_as_float(raw.y & 0xFFFF0000u));
}

/* Folds one thread's amax into the tensor's: the warp's maximum, then one
 * integer atomicMax per warp on the float's bits. Non-negative floats order
 * like their bit patterns, and a maximum does not depend on the order the
 * warps arrive in, so the result is deterministic (no float atomics). The
 * scale-update kernel clears it for the next step. */
__device__ __forceinline__ void tr_amax_commit(float *amax, float mine) {
  uint32_t bits = __float_as_uint(mine);
#pragma unroll
  for (int d = 16; d > 0; d >>= 1) {
    bits = max(bits, __shfl_xor_sync(0xffffffffu, bits, d));
  }
  if ((threadIdx.x & 31u) == 0) {
    atomicMax(reinterpret_cast<unsigned int *>(amax), bits);
  }
}

#endif

/* Device-side FP8 conversion used by the refresh kernels: 16 master elements
 * at a time, scaled, converted with the hardware's saturating instruction,
 * and their amax. test_fp8_device checks sg_k_fp8x2 against the CPU
 * reference for all 2^32 inputs. */
#ifndef SG_KERNELS_FP8_CONVERT_CUH
#define SG_KERNELS_FP8_CONVERT_CUH

#include <cuda_fp8.h>
#include <stdint.h>

#include "refresh.h"

/* Two floats to two FP8 codes, `lo` in the low byte. On sm_89+ this is one
 * cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32; older GPUs get CUDA's software path,
 * which gives the same bits. */
template <uint32_t FMT>
__device__ __forceinline__ uint32_t sg_k_fp8x2(float lo, float hi) {
  constexpr __nv_fp8_interpretation_t kind = FMT == SG_K_FP8_E4M3 ? __NV_E4M3 : __NV_E5M2;
  return __nv_cvt_float2_to_fp8x2(make_float2(lo, hi), __NV_SATFINITE, kind);
}

/* Sixteen consecutive master elements as raw bits: FP32 one per word, BF16
 * two per word (element 2k in the low half, as in memory). */
template <uint32_t DT>
struct sg_k_master16 {
  static constexpr int kWords = DT == SG_K_MASTER_FP32 ? 16 : 8;
  static constexpr int kElemBytes = DT == SG_K_MASTER_FP32 ? 4 : 2;
  uint32_t b[kWords];

  /* Element i as FP32 bits; BF16 widens exactly by a 16-bit shift. */
  __device__ __forceinline__ uint32_t bits(int i) const {
    if (DT == SG_K_MASTER_FP32) {
      return b[i];
    }
    const uint32_t word = b[i >> 1];
    return (i & 1) != 0 ? (word & 0xFFFF0000u) : (word << 16);
  }

  /* Sets words 4q .. 4q + 3 from the 16 bytes x (the q-th of a chunk's
   * kWords / 4 vectors). */
  __device__ __forceinline__ void set_vector(int q, const uint4 &x) {
    b[4 * q] = x.x;
    b[4 * q + 1] = x.y;
    b[4 * q + 2] = x.z;
    b[4 * q + 3] = x.w;
  }
};

/* FP8 codes of M*s for the 16 elements, byte i = element i. amax_bits takes
 * the max with each |M| bit pattern: that orders finite values and infinities
 * like their magnitudes and puts any NaN above them, so a NaN wins. The
 * product is __fmul_rn so it is never contracted or flushed. */
template <uint32_t FMT, uint32_t DT>
__device__ __forceinline__ uint4 sg_k_cast16(const sg_k_master16<DT> &m, float s,
                                             uint32_t &amax_bits) {
  uint32_t pairs[8];
#pragma unroll
  for (int k = 0; k < 8; k++) {
    const uint32_t x0 = m.bits(2 * k);
    const uint32_t x1 = m.bits(2 * k + 1);
    amax_bits = max(amax_bits, max(x0 & 0x7FFFFFFFu, x1 & 0x7FFFFFFFu));
    pairs[k] = sg_k_fp8x2<FMT>(__fmul_rn(__uint_as_float(x0), s),
                               __fmul_rn(__uint_as_float(x1), s));
  }
  return make_uint4(pairs[0] | (pairs[1] << 16), pairs[2] | (pairs[3] << 16),
                    pairs[4] | (pairs[5] << 16), pairs[6] | (pairs[7] << 16));
}

/* The amax of 16 elements alone (the amax pass, the block recipe's first
 * look at a tile). */
template <uint32_t DT>
__device__ __forceinline__ void sg_k_amax16(const sg_k_master16<DT> &m, uint32_t &amax_bits) {
#pragma unroll
  for (int i = 0; i < 16; i++) {
    amax_bits = max(amax_bits, m.bits(i) & 0x7FFFFFFFu);
  }
}

/* One element: the FP8 code of M*s from M's bits, with its amax. */
template <uint32_t FMT>
__device__ __forceinline__ uint8_t sg_k_cast1(uint32_t m_bits, float s, uint32_t &amax_bits) {
  amax_bits = max(amax_bits, m_bits & 0x7FFFFFFFu);
  return static_cast<uint8_t>(sg_k_fp8x2<FMT>(__fmul_rn(__uint_as_float(m_bits), s), 0.0f));
}

/* The scale computed from an amax bit pattern (refresh.h, sg_k_scale_of):
 * 1 for 0, +inf and NaN; else fp8_max / amax by one IEEE division, FLT_MAX
 * where that overflows; pow2: the mantissa cleared (never to 0: the
 * smallest scale, 448 / FLT_MAX, is a normal float). */
__device__ __forceinline__ float sg_k_scale_of(uint32_t amax_bits, uint32_t format, bool pow2) {
  if (amax_bits == 0 || amax_bits >= 0x7F800000u) {
    return 1.0f;
  }
  const float fp8_max = format == SG_K_FP8_E4M3 ? 448.0f : 57344.0f;
  float s = __fdiv_rn(fp8_max, __uint_as_float(amax_bits));
  if (__float_as_uint(s) == 0x7F800000u) {
    s = __uint_as_float(0x7F7FFFFFu); /* FLT_MAX */
  }
  return pow2 ? __uint_as_float(__float_as_uint(s) & 0xFF800000u) : s;
}

/* Element i of a master row as FP32 bits (BF16 widened exactly). */
template <uint32_t DT>
__device__ __forceinline__ uint32_t sg_k_master_bits(const char *m, uint64_t i) {
  if (DT == SG_K_MASTER_FP32) {
    return reinterpret_cast<const uint32_t *>(m)[i];
  }
  return static_cast<uint32_t>(reinterpret_cast<const unsigned short *>(m)[i]) << 16;
}

#endif /* SG_KERNELS_FP8_CONVERT_CUH */

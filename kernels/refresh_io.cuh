/* 16-element chunks of a master between global memory and registers:
 * whole ones as 16-byte vectors at 16-byte aligned addresses; whole ones of
 * unaligned rows as the aligned vectors around them, shifted into place;
 * and strips cut short by a matrix's edge, with predicated element accesses
 * at compile-time positions (so the chunk stays in registers). */
#ifndef SG_KERNELS_REFRESH_IO_CUH
#define SG_KERNELS_REFRESH_IO_CUH

#include <stdint.h>

#include "fp8_convert.cuh"
#include "refresh_unaligned.cuh"

/* Asks for p's line in this multiprocessor's L1 without waiting for it. */
__device__ __forceinline__ void sg_k_prefetch_l1(const void *p) {
  asm volatile("prefetch.global.L1 [%0];" ::"l"(p));
}

__device__ __forceinline__ void sg_k_store_bytes16(uint8_t *p, const uint4 &v) {
  *reinterpret_cast<uint4 *>(p) = v;
}

template <uint32_t DT>
__device__ __forceinline__ sg_k_master16<DT> sg_k_load_master16(const void *p) {
  sg_k_master16<DT> m;
  const uint4 *v = static_cast<const uint4 *>(p);
#pragma unroll
  for (int q = 0; q < m.kWords / 4; q++) {
    m.set_vector(q, __ldg(v + q));
  }
  return m;
}

/* The 16 elements at p, any element-aligned address, from the aligned
 * vectors that hold them (each holds one of their bytes, so all lie inside
 * a tile that sg_k_tile_vectors_inside accepts), shifted into place: 3
 * (BF16) or 5 (FP32) vector loads where element loads took 16, each of
 * which touched as many L1 lines as a vector load (on [1024, 4099] the
 * block cast ran at 14-19% of the copy). Which vectors: sg_k_last_vector. */
template <uint32_t DT>
__device__ __forceinline__ sg_k_master16<DT> sg_k_load_master16_shifted(const char *p) {
  constexpr uint32_t kBytes = 16u * sg_k_master16<DT>::kElemBytes;
  constexpr int kVectors = sg_k_master16<DT>::kWords / 4;
  const uint32_t shift = static_cast<uint32_t>(reinterpret_cast<uintptr_t>(p) & 15u);
  const uint4 *base = reinterpret_cast<const uint4 *>(p - shift);
  uint4 v[kVectors + 1];
#pragma unroll
  for (int q = 0; q < kVectors; q++) {
    v[q] = __ldg(base + q);
  }
  v[kVectors] = __ldg(base + sg_k_last_vector(shift, kBytes));
  sg_k_master16<DT> m;
#pragma unroll
  for (int q = 0; q < kVectors; q++) {
    m.set_vector(q, sg_k_shift16(v[q], v[q + 1], shift));
  }
  return m;
}

/* The strip of n (0..16) master elements at p: a vector when `vec` (then
 * n is 16 and p aligned); shifted out of the aligned vectors around it when
 * `shifted` (n is 16 and the tile's vectors inside the master); else
 * element by element. Elements past n read as +0, which no amax notices. */
template <uint32_t DT>
__device__ __forceinline__ sg_k_master16<DT> sg_k_load_strip(const char *p, uint32_t n, bool vec,
                                                             bool shifted) {
  if (vec) {
    return sg_k_load_master16<DT>(p);
  }
  if (shifted) {
    return sg_k_load_master16_shifted<DT>(p);
  }
  sg_k_master16<DT> m;
#pragma unroll
  for (int k = 0; k < m.kWords; k++) {
    m.b[k] = 0;
  }
#pragma unroll
  for (uint32_t i = 0; i < 16; i++) {
    if (i < n) {
      const uint32_t bits = sg_k_master_bits<DT>(p, i);
      if (DT == SG_K_MASTER_FP32) {
        m.b[i] = bits;
      } else {
        m.b[i >> 1] |= (bits >> 16) << (16u * (i & 1u));
      }
    }
  }
  return m;
}

#endif /* SG_KERNELS_REFRESH_IO_CUH */

/* 16-element chunks between global memory and registers: whole ones as
 * 16-byte vectors at 16-byte aligned addresses; and strips, a chunk that may
 * be cut short by a matrix's edge or unaligned, with predicated element
 * accesses at compile-time positions (so the chunk stays in registers). The
 * tuned pipelines send partial or unaligned chunks element by element
 * instead, which holds fewer registers and keeps their occupancy. */
#ifndef SG_KERNELS_REFRESH_IO_CUH
#define SG_KERNELS_REFRESH_IO_CUH

#include <stdint.h>

#include "fp8_convert.cuh"

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
    const uint4 x = __ldg(v + q);
    m.b[4 * q] = x.x;
    m.b[4 * q + 1] = x.y;
    m.b[4 * q + 2] = x.z;
    m.b[4 * q + 3] = x.w;
  }
  return m;
}

/* The strip of n (0..16) master elements at p: a vector when `vec` (then
 * n is 16 and p aligned), else element by element; elements past n read as
 * +0, which no amax notices. */
template <uint32_t DT>
__device__ __forceinline__ sg_k_master16<DT> sg_k_load_strip(const char *p, uint32_t n, bool vec) {
  if (vec) {
    return sg_k_load_master16<DT>(p);
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

/* Stores the first n (0..16) codes of a chunk at p: one vector when `vec`
 * (then n is 16 and p aligned), else byte by byte. */
__device__ __forceinline__ void sg_k_store_strip(uint8_t *p, const uint4 &codes, uint32_t n,
                                                 bool vec) {
  if (vec) {
    sg_k_store_bytes16(p, codes);
    return;
  }
  const uint32_t words[4] = {codes.x, codes.y, codes.z, codes.w};
#pragma unroll
  for (uint32_t i = 0; i < 16; i++) {
    if (i < n) {
      p[i] = static_cast<uint8_t>(words[i >> 2] >> (8u * (i & 3u)));
    }
  }
}

#endif /* SG_KERNELS_REFRESH_IO_CUH */

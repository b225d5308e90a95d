/* Whole 16-element chunks between global memory and registers, as 16-byte
 * vectors at 16-byte aligned addresses. Partial or unaligned chunks do not
 * come here: callers handle them element by element, which is slower but
 * holds few registers, so the vector path keeps its occupancy. */
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

#endif /* SG_KERNELS_REFRESH_IO_CUH */

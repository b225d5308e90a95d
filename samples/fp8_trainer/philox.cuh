/* Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2,
 * 3", SC'11): a counter-based generator, so a kernel's numbers depend only on
 * (seed, counter) and not on launch order. That is what makes the plugin's
 * graph-safe RNG work: each kernel's counters start at
 * *base_offset + (its offset reserved within the step), both read on the
 * device, so a replayed graph draws fresh numbers every step and the same
 * ones an eager run draws. */
#ifndef TR_PHILOX_CUH
#define TR_PHILOX_CUH

#include <stdint.h>

#include "kernels.h"

__device__ __forceinline__ uint4 tr_philox_round(uint4 c, uint2 k) {
  const uint32_t m0 = 0xD2511F53u, m1 = 0xCD9E8D57u;
  const uint32_t hi0 = __umulhi(m0, c.x), lo0 = m0 * c.x;
  const uint32_t hi1 = __umulhi(m1, c.z), lo1 = m1 * c.z;
  return make_uint4(hi1 ^ c.y ^ k.x, lo1, hi0 ^ c.w ^ k.y, lo0);
}

/* Four 32-bit words for counter `ctr` under key `key`. */
__device__ __forceinline__ uint4 tr_philox(uint64_t key, uint64_t ctr) {
  uint4 c = make_uint4((uint32_t)ctr, (uint32_t)(ctr >> 32), 0u, 0u);
  uint2 k = make_uint2((uint32_t)key, (uint32_t)(key >> 32));
#pragma unroll
  for (int i = 0; i < 10; i++) {
    c = tr_philox_round(c, k);
    k.x += 0x9E3779B9u;
    k.y += 0xBB67AE85u;
  }
  return c;
}

/* Counter `i` of this kernel's reserved range in the current step. */
__device__ __forceinline__ uint4 tr_rng_draw(const tr_rng_stream &r,
                                             uint64_t i) {
  return tr_philox(*r.seed, *r.base_offset + r.offset + i);
}

/* A word to a uniform in [0, 1): its top 24 bits, exactly representable. */
__device__ __forceinline__ float tr_uniform(uint32_t w) {
  return (float)(w >> 8) * (1.0f / 16777216.0f);
}

/* Two standard normals from two words (Box-Muller); the first word maps to
 * (0, 1] so the log is finite. */
__device__ __forceinline__ float2 tr_normal2(uint32_t a, uint32_t b) {
  const float u1 = ((float)(a >> 8) + 1.0f) * (1.0f / 16777216.0f);
  const float radius = sqrtf(-2.0f * logf(u1));
  float s, c;
  sincospif(2.0f * tr_uniform(b), &s, &c);
  return make_float2(radius * c, radius * s);
}

#endif

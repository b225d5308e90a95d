/* Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2,
 * 3", SC'11): a counter-based generator, so a kernel's numbers depend only on
 * (seed, counter) and not on launch order. That is what makes the plugin's
 * graph-safe RNG work: each kernel's counters start at
 * *base_offset + (its offset reserved within the step), both read on the
 * device, so a replayed graph draws fresh numbers every step and the same
 * ones an eager run draws. The generator is the plugin's device-side header
 * (abi/stepgraph_rng.cuh); this file adapts it to the trainer's names. */
#ifndef TR_PHILOX_CUH
#define TR_PHILOX_CUH

#include <stdint.h>

#include "kernels.h"
#include "stepgraph_rng.cuh"

/* Four 32-bit words for counter `ctr` under key `key` (subsequence 0). */
__device__ __forceinline__ uint4 tr_philox(uint64_t key, uint64_t ctr) {
  return sg_rng_philox(key, ctr, 0);
}

/* Counter `i` of this kernel's reserved range in the current step. */
__device__ __forceinline__ uint4 tr_rng_draw(const tr_rng_stream &r,
                                             uint64_t i) {
  return sg_rng_draw(sg_rng_reservation{r.seed, r.base_offset, r.offset}, i,
                     0);
}

/* A word to a uniform in [0, 1): its top 24 bits, exactly representable. */
__device__ __forceinline__ float tr_uniform(uint32_t w) {
  return sg_rng_uniform(w);
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

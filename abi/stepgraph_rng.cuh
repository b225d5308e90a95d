/*
 * stepgraph_rng.cuh — device-side helpers for kernels that draw random
 * numbers from a stepgraph session's graph-safe RNG. For CUDA C/C++ kernels;
 * every helper is also plain host C/C++ (__host__ __device__ under nvcc,
 * static inline elsewhere), so a host computes the very same values on the
 * CPU. Needs <stdint.h> and CUDA's <vector_types.h> (uint4) only; the C
 * ABI header, stepgraph.h, stays free of device code. Installed beside it.
 *
 * How the RNG works. The session keeps a Philox4x32-10 seed and a 64-bit
 * base offset in device memory (rng_device_state gives both addresses,
 * valid until session_destroy). For each random kernel of a step the host
 * calls rng_reserve(count) and passes the kernel a sg_rng_reservation:
 * both addresses and the offset it got. The kernel reads seed and base
 * offset on the device, never the host, so a captured graph draws fresh
 * numbers at every replay; rng_end_step, captured at the end of the step,
 * adds the step's reserved total to the base offset. The reserved offsets
 * are the same every step, so they may be baked into the graph.
 *
 * Counters. A counter is one Philox4x32-10 block: a 128-bit input whose
 * low 64 bits are the counter and high 64 bits a subsequence, giving four
 * 32-bit words. Reserving `count` counters gives the kernel counters
 * *base_offset + offset + i for i < count, under every subsequence (2^64
 * of them): sg_rng_draw(r, i, subsequence). A kernel that draws per
 * element usually takes the element's index as the subsequence and i as
 * the draw number; one that wants a seed per launch reserves 1 counter:
 *
 *   host:   api->rng_reserve(session, 1, &offset);            // once per
 *           launch_dropout(x, (sg_rng_reservation){dev.seed,   // step, in
 *                          dev.base_offset, offset}, stream);  // order
 *   kernel: const uint64_t seed = sg_rng_seed64(r);  // this launch's seed
 *           ... hash(seed, element) ...
 *
 * That seed is fresh every step (the base offset moved), distinct between
 * the step's kernels (their offsets differ), and the same in an eager run
 * and in the replay of the captured step.
 *
 * Validation-only sessions give placeholder addresses
 * (SG_RNG_PLACEHOLDER_*) that must never be dereferenced: do not launch
 * kernels with them.
 *
 * Compatibility with cuRAND: sg_rng_draw(r, i, subsequence) equals
 * curand4(&state) right after curand_init(*r.seed, subsequence,
 * 4 * (*r.base_offset + r.offset + i), &state) with a
 * curandStatePhilox4_32_10_t, for counters below 2^62 (cuRAND's 64-bit
 * offset counts 32-bit words, so it cannot name larger ones), and
 * sg_rng_philox is Random123's philox4x32-10 (its known-answer vectors hold;
 * tests/kernels checks both).
 */
#ifndef STEPGRAPH_RNG_CUH
#define STEPGRAPH_RNG_CUH

#include <stdint.h>

#include <vector_types.h>

#if defined(__CUDACC__)
#define SG_RNG_FN static __host__ __device__ __forceinline__
#else
#define SG_RNG_FN static inline
#endif

/* One kernel's share of the step's random numbers. */
typedef struct sg_rng_reservation {
  const uint64_t *seed;        /* device: sg_rng_device_state.seed */
  const uint64_t *base_offset; /* device: sg_rng_device_state.base_offset */
  uint64_t offset;             /* rng_reserve's *offset_out */
} sg_rng_reservation;

/* Philox's multipliers and Weyl key increments (Salmon et al., SC'11). */
#define SG_RNG_PHILOX_M0 0xD2511F53u
#define SG_RNG_PHILOX_M1 0xCD9E8D57u
#define SG_RNG_PHILOX_W0 0x9E3779B9u
#define SG_RNG_PHILOX_W1 0xBB67AE85u

SG_RNG_FN uint32_t sg_rng_mulhilo(uint32_t a, uint32_t b, uint32_t *hi) {
  const uint64_t p = (uint64_t)a * b;
  *hi = (uint32_t)(p >> 32);
  return (uint32_t)p;
}

/* Philox4x32-10 of the 128-bit counter (ctr_lo, ctr_hi) under the 64-bit
 * key: words x, y, z, w of the output. */
SG_RNG_FN uint4 sg_rng_philox(uint64_t key, uint64_t ctr_lo, uint64_t ctr_hi) {
  uint32_t c0 = (uint32_t)ctr_lo, c1 = (uint32_t)(ctr_lo >> 32);
  uint32_t c2 = (uint32_t)ctr_hi, c3 = (uint32_t)(ctr_hi >> 32);
  uint32_t k0 = (uint32_t)key, k1 = (uint32_t)(key >> 32);
  for (int round = 0; round < 10; round++) {
    uint32_t hi0, hi1;
    const uint32_t lo0 = sg_rng_mulhilo(SG_RNG_PHILOX_M0, c0, &hi0);
    const uint32_t lo1 = sg_rng_mulhilo(SG_RNG_PHILOX_M1, c2, &hi1);
    c0 = hi1 ^ c1 ^ k0;
    c1 = lo1;
    c2 = hi0 ^ c3 ^ k1;
    c3 = lo0;
    k0 += SG_RNG_PHILOX_W0;
    k1 += SG_RNG_PHILOX_W1;
  }
  uint4 out;
  out.x = c0;
  out.y = c1;
  out.z = c2;
  out.w = c3;
  return out;
}

/* The counter of draw i of the reservation in the current step (wrapping
 * modulo 2^64, as the base offset does). Reads *r.base_offset. */
SG_RNG_FN uint64_t sg_rng_counter(sg_rng_reservation r, uint64_t i) {
  return *r.base_offset + r.offset + i;
}

/* Four random words: draw i (< the reserved count) of `subsequence`. */
SG_RNG_FN uint4 sg_rng_draw(sg_rng_reservation r, uint64_t i,
                            uint64_t subsequence) {
  return sg_rng_philox(*r.seed, sg_rng_counter(r, i), subsequence);
}

/* A 64-bit seed for this launch in this step (draw 0 of subsequence 0:
 * reserving 1 counter is enough). */
SG_RNG_FN uint64_t sg_rng_seed64(sg_rng_reservation r) {
  const uint4 w = sg_rng_draw(r, 0, 0);
  return ((uint64_t)w.y << 32) | w.x;
}

/* A 32-bit seed: the low half of sg_rng_seed64. */
SG_RNG_FN uint32_t sg_rng_seed32(sg_rng_reservation r) {
  return sg_rng_draw(r, 0, 0).x;
}

/* A word to a uniform float in [0, 1): its top 24 bits, exactly
 * representable (cuRAND's curand_uniform is (0, 1] instead). */
SG_RNG_FN float sg_rng_uniform(uint32_t word) {
  return (float)(word >> 8) * (1.0f / 16777216.0f);
}

#undef SG_RNG_FN

#endif /* STEPGRAPH_RNG_CUH */

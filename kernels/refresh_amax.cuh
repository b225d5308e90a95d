/* amax and scale_inv across the threads and blocks of one launch.
 *
 * Inside a block: every warp reduces its threads' max |M| bit patterns and
 * stashes the result in shared memory; after the next barrier thread 0
 * merges the block's warps. (The cast mode and the amax pass, whose warps
 * work apart, publish a warp's max as a block's: refresh_items.cuh.)
 * Across blocks: a block that did all of a parameter's items writes amax
 * and scale_inv at once (no atomics: the many-small set's case). Otherwise
 * it merges into the parameter's scratch with atomicMax and adds its items
 * to a count; the block that completes the count publishes amax and
 * scale_inv and clears the scratch, so amax is written (never accumulated
 * across launches) and the next launch, or a graph replay, starts clean. */
#ifndef SG_KERNELS_REFRESH_AMAX_CUH
#define SG_KERNELS_REFRESH_AMAX_CUH

#include <stdint.h>

#include "fp8_convert.cuh"
#include "refresh_table.h"
#include "refresh_tile.cuh"

/* Per-warp maxima of two runs in turn (a run's stash and its merge are a
 * barrier apart; the next run writes the other half meanwhile). */
struct sg_k_amax_slots {
  uint32_t warp[2][SG_K_THREADS / 32];
};

/* All threads: the warp's max of `bits` into slots.warp[half]. */
__device__ __forceinline__ void sg_k_amax_stash(uint32_t bits, sg_k_amax_slots &slots,
                                                uint32_t half) {
  bits = __reduce_max_sync(0xFFFFFFFFu, bits);
  if ((threadIdx.x & 31u) == 0) {
    slots.warp[half][threadIdx.x >> 5] = bits;
  }
}

/* After a barrier that follows the stash: the block's max, or with
 * GROUPS > 1 the max of the calling thread's group of warps (the block's
 * warps in GROUPS equal runs: block scaling's pair of tiles). */
template <uint32_t GROUPS = 1>
__device__ __forceinline__ uint32_t sg_k_amax_merged(const sg_k_amax_slots &slots,
                                                     uint32_t half) {
  constexpr uint32_t kWarps = SG_K_THREADS / 32 / GROUPS;
  const uint32_t first = GROUPS == 1 ? 0u : (threadIdx.x >> 5) / kWarps * kWarps;
  uint32_t bits = 0;
#pragma unroll
  for (uint32_t w = 0; w < kWarps; w++) {
    bits = max(bits, slots.warp[half][first + w]);
  }
  return bits;
}

/* Where a parameter's amax goes: its outputs, its scale (already read) and
 * its item count in the launch's list. The amax pass of current scaling
 * (to_scale) writes none of them: it leaves the scale of the amax in the
 * scratch, for the cast that follows (which writes amax and scale_inv). */
struct sg_k_amax_target {
  float *amax, *scale_inv;
  float s;
  uint64_t items;
  sg_k_scratch *scratch;
  bool to_scale;
  uint32_t format;
  bool pow2;
};

/* The usual target: amax and scale_inv of a cast with scale s. */
__device__ __forceinline__ sg_k_amax_target sg_k_amax_outputs(float *amax, float *scale_inv,
                                                              float s, uint64_t items,
                                                              sg_k_scratch *scratch) {
  return sg_k_amax_target{amax, scale_inv, s, items, scratch, false, 0u, false};
}

__device__ __forceinline__ void sg_k_amax_write(const sg_k_amax_target &t, uint32_t bits) {
  if (t.to_scale) {
    t.scratch->scale = sg_k_scale_of(bits, t.format, t.pow2);
    return;
  }
  *t.amax = __uint_as_float(bits);
  *t.scale_inv = __fdiv_rn(1.0f, t.s);
}

/* The scale a cast multiplies by: the host's (delayed scaling), or the one
 * the amax pass left in the parameter's scratch (current scaling, whose
 * descriptor has none). */
__device__ __forceinline__ const float *sg_k_scale_ptr(const float *scale,
                                                       sg_k_scratch *scratch) {
  return scale != nullptr ? scale : &scratch->scale;
}

/* One thread, for a block's share `bits` over `items` of t's items (the
 * cast mode and the amax pass: a warp's). */
__device__ __forceinline__ void sg_k_amax_publish(const sg_k_amax_target &t, uint32_t bits,
                                                  uint64_t items) {
  if (items == t.items) {
    sg_k_amax_write(t, bits);
    return;
  }
  atomicMax(&t.scratch->amax_bits, bits);
  __threadfence(); /* the max is visible before the count that reports it */
  unsigned long long *done = reinterpret_cast<unsigned long long *>(&t.scratch->items_done);
  if (atomicAdd(done, items) + items != t.items) {
    return;
  }
  __threadfence(); /* every other block's max is read after its count */
  const uint32_t all = atomicExch(&t.scratch->amax_bits, 0u);
  atomicExch(done, 0ull);
  sg_k_amax_write(t, all);
}

#endif /* SG_KERNELS_REFRESH_AMAX_CUH */

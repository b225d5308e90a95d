/* amax and scale_inv across the blocks of one launch. Each warp that worked
 * on a parameter merges its partial amax into the parameter's scratch with
 * atomicMax and adds the items its block did to a count; the warp that
 * completes the count (items x warps per block) publishes amax and scale_inv
 * and clears the scratch, so amax is written (never accumulated across
 * launches) and the next launch, or a graph replay, starts clean. Warps do
 * this independently: no block barrier, and only the publishing lane waits
 * for its fences. */
#ifndef SG_KERNELS_REFRESH_AMAX_CUH
#define SG_KERNELS_REFRESH_AMAX_CUH

#include <stdint.h>

#include "refresh_table.h"
#include "refresh_tile.cuh"

/* Called by every thread of the block once it finished its part of `items`
 * items of parameter d; amax_bits is the thread's own max |M| bit pattern. */
template <uint32_t MODE>
__device__ __forceinline__ void sg_k_publish_amax(uint32_t amax_bits, uint64_t items,
                                                  sg_k_scratch *scratch, const sg_k_desc &d) {
  amax_bits = __reduce_max_sync(0xFFFFFFFFu, amax_bits);
  if ((threadIdx.x & 31u) != 0) {
    return;
  }
  atomicMax(&scratch->amax_bits, amax_bits);
  __threadfence(); /* the max is visible before the count that reports it */
  unsigned long long *done = reinterpret_cast<unsigned long long *>(&scratch->items_done);
  const uint64_t total = d.items[MODE] * (SG_K_THREADS / 32);
  if (atomicAdd(done, items) + items != total) {
    return;
  }
  __threadfence(); /* every other warp's max is read after its count */
  const uint32_t bits = atomicExch(&scratch->amax_bits, 0u);
  atomicExch(done, 0ull);
  *d.amax = __uint_as_float(bits);
  *d.scale_inv = __fdiv_rn(1.0f, *d.scale);
}

#endif /* SG_KERNELS_REFRESH_AMAX_CUH */

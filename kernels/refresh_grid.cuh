/* Block scaling's transpose mode also writes Wt's scale_inv grid from W's:
 * grid_t[tc][tr] = grid[tr][tc], one float a tile. A kernel of its own
 * after the whole-tile instance's tiles, so that instance carries no grid
 * code and block-scaled tiles move like the delayed recipe's: with the
 * entries moved inside its pipeline (one warp a tile, stored a chunk
 * later, in an instance of its own) block scaling's transpose ran at 72-76%
 * of the copy on the H200 where the delayed recipe's same tiles ran at
 * 86-92%, for a few kilobytes of grid. The general instance still moves
 * its tiles' entries itself (refresh_pipeline.cuh): this kernel after it
 * cost the many-small set 5 us, one launch.
 *
 * It walks the selection's transpose items (a whole-tile parameter's,
 * the only ones it moves, are its tiles, one item a tile; a dense
 * vector's spans are never whole, and the general instance moves their
 * entries; the tile kernel's chunk order does not
 * matter here, so item local is tile (local / tiles_per_row, local %
 * tiles_per_row)), 32 a
 * warp: the warp finds the holder of its first item (refresh_schedule.cuh),
 * and each lane the holder of its own among the 32 descriptors from there
 * (every parameter has at least one item, so 32 items span at most 32
 * descriptors) by comparing their first items, shuffled. Items of other
 * recipes are skipped, and those of parameters with edge or unaligned
 * tiles (a split's rest: the general instance moves their entries, maybe
 * at the same time, refresh_overlap.cuh). */
#ifndef SG_KERNELS_REFRESH_GRID_CUH
#define SG_KERNELS_REFRESH_GRID_CUH

#include <stdint.h>

#include "refresh_schedule.cuh"
#include "refresh_table.h"

/* Of the 32 descriptors from p0 (lane k holds descriptor p0 + k's first
 * item, or the end past the run), the last whose first item is <= j:
 * empty ones sharing a first item come before the one that holds it. */
__device__ __forceinline__ uint32_t sg_k_lane_holder(uint64_t first, uint64_t j) {
  uint32_t k = 0;
#pragma unroll
  for (uint32_t x = 1; x < 32; x++) {
    k = __shfl_sync(0xFFFFFFFFu, first, x) <= j ? x : k;
  }
  return k;
}

template <uint32_t LIST>
__device__ __forceinline__ void sg_k_grid_transpose(const sg_k_table_head &head,
                                                    const sg_k_desc *descs, uint32_t group) {
  const sg_k_group_items g = sg_k_group<LIST>(head, descs, group);
  const uint32_t lane = threadIdx.x & 31u;
  const uint64_t warps = uint64_t{gridDim.x} * (SG_K_THREADS / 32u);
  for (uint64_t j0 = g.ib + 32u * (uint64_t{blockIdx.x} * (SG_K_THREADS / 32u) + threadIdx.x / 32u);
       j0 < g.ie; j0 += 32u * warps) {
    const uint32_t p0 = sg_k_holder<LIST>(descs, g.pb, g.pe, j0, sg_k_guess(g, j0));
    const uint32_t mine = p0 + lane;
    const uint64_t first = mine < g.pe ? descs[mine].item_first[LIST] : UINT64_MAX;
    const uint64_t j = j0 + lane;
    const uint32_t k = sg_k_lane_holder(first, j);
    if (j < g.ie) {
      const sg_k_desc &d = descs[p0 + k];
      if ((d.vec & (SG_K_VEC_GRID | SG_K_VEC_WHOLE_T)) == (SG_K_VEC_GRID | SG_K_VEC_WHOLE_T)) {
        const uint64_t local = j - d.item_first[LIST];
        const uint64_t tr = sg_k_div(local, d.tiles_per_row);
        const uint64_t tc = local - tr * d.tiles_per_row;
        d.grid_t[tc * d.ld_grid_t + tr] = d.grid[tr * d.ld_grid + tc];
      }
    }
  }
}

#endif /* SG_KERNELS_REFRESH_GRID_CUH */

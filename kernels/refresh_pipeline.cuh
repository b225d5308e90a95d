/* The transpose mode's tile pipeline. A block's items (strided over the
 * grid, across parameters: refresh_schedule.cuh) go through a ring of three
 * shared-memory buffers: while one drains to Wt, the next two load with
 * cp.async (no registers held), so every block keeps loads in flight through
 * its drains, even when each parameter is a single tile (the many-small set). */
#ifndef SG_KERNELS_REFRESH_PIPELINE_CUH
#define SG_KERNELS_REFRESH_PIPELINE_CUH

#include <stdint.h>

#include "refresh_schedule.cuh"
#include "refresh_sources.cuh"
#include "refresh_table.h"
#include "refresh_tile.cuh"

/* What the drain of a tile needs, kept while later tiles load; rows == 0
 * marks no tile. */
struct sg_k_tile_job {
  uint8_t *wt; /* the tile's origin in Wt */
  uint64_t ld_wt;
  uint32_t rows, cols;
  bool vec;
};

/* Starts loading the cursor's tile into sh and moves the cursor on. Whole
 * aligned chunks go by cp.async (the caller waits for them); edge and
 * unaligned tiles are copied here, element by element. */
__device__ __forceinline__ sg_k_tile_job sg_k_transpose_issue(sg_k_tile_smem &sh,
                                                              sg_k_stride_cursor &cur) {
  if (cur.j >= cur.end) {
    return sg_k_tile_job{nullptr, 0, 0, 0, false};
  }
  const sg_k_desc &d = cur.descs[cur.p];
  const uint64_t local = cur.j - d.item_first[SG_K_MODE_TRANSPOSE];
  const uint64_t tr = local / d.tiles_per_row;
  const uint64_t r0 = tr * SG_K_TILE;
  const uint64_t c0 = (local - tr * d.tiles_per_row) * SG_K_TILE;
  const uint32_t rows = static_cast<uint32_t>(min(d.rows - r0, uint64_t{SG_K_TILE}));
  const uint32_t cols = static_cast<uint32_t>(min(d.cols - c0, uint64_t{SG_K_TILE}));
  sg_k_transpose_src src{d.w, d.ld_w, (d.vec & SG_K_VEC_W) != 0, nullptr};
  src.at_tile(r0, c0);
  if (cols == SG_K_TILE && src.vec()) {
    const uint32_t q = threadIdx.x & 7u;
    for (uint32_t row = threadIdx.x >> 3; row < rows; row += SG_K_THREADS / 8) {
      sg_k_cp_async16(&sh.chunk[sg_k_slot(row, q)], src.tile + row * d.ld_w + 16u * q);
    }
  } else {
    sg_k_tile_fill<false>(sh, src, rows, cols);
  }
  const sg_k_tile_job job{d.wt + c0 * d.ld_wt + r0, d.ld_wt, rows, cols,
                          rows % 16u == 0 && (d.vec & SG_K_VEC_WT) != 0};
  sg_k_stride_next<SG_K_MODE_TRANSPOSE>(cur);
  return job;
}

__device__ __forceinline__ void sg_k_transpose_drain(const sg_k_tile_smem &sh,
                                                     const sg_k_tile_job &job) {
  if (job.vec) {
    sg_k_tile_drain<true>(sh, job.wt, job.ld_wt, job.rows, job.cols);
  } else {
    sg_k_tile_drain<false>(sh, job.wt, job.ld_wt, job.rows, job.cols);
  }
}

/* Transposes the cursor's items. Tile k sits in ring[k % 3]; the barrier of
 * iteration k makes it visible and also ends every drain of tile k-1, whose
 * buffer tile k+2 then reuses. Every iteration commits one cp.async group
 * (empty near the end), so "all but the newest group done" means tile k.
 * The cursor is the same in every thread, so all leave the loop together. */
__device__ __forceinline__ void sg_k_transpose_pipeline(sg_k_tile_smem (&ring)[3],
                                                        sg_k_stride_cursor cur) {
  sg_k_tile_job now = sg_k_transpose_issue(ring[0], cur);
  sg_k_cp_async_commit();
  sg_k_tile_job next = sg_k_transpose_issue(ring[1], cur);
  sg_k_cp_async_commit();
#pragma unroll 1
  for (uint32_t k = 0; now.rows != 0; k++) {
    sg_k_cp_async_wait<1>();
    __syncthreads();
    sg_k_transpose_drain(ring[k % 3], now);
    const sg_k_tile_job later = sg_k_transpose_issue(ring[(k + 2) % 3], cur);
    sg_k_cp_async_commit();
    now = next;
    next = later;
  }
}

#endif /* SG_KERNELS_REFRESH_PIPELINE_CUH */

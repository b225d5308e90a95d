/* The transpose mode's tile pipeline. A block's items (chunks dealt over the
 * grid, across parameters: refresh_schedule.cuh) go through a ring of three
 * shared-memory stages, one chunk of tiles per stage: while one stage drains
 * to Wt, the next two load with cp.async (no registers held). A chunk's
 * tiles are issued together, so in the wide layout (2 x 2 tiles a chunk)
 * the memory sees one block ask for a 256 x 256 block of W at once and
 * write a 256 x 256 block of Wt at once: runs of 256 bytes where single
 * tiles give 128 (on the GPT set that took the transpose from 79% to 91% of
 * the copy's bandwidth; pairs of tiles, 83-85%). The general instance also
 * moves block scaling's grid entries with its tiles; after the whole
 * instance a kernel of their own does (refresh_grid.cuh). A dense vector's
 * items are 16 KB spans that the general instance copies through the same
 * ring (W and Wt are the same bytes). The instance with the realigned drain
 * (REALIGN) also loads the 16 W rows below an odd-rowed tile into its
 * stage, which that drain reaches into. */
#ifndef SG_KERNELS_REFRESH_PIPELINE_CUH
#define SG_KERNELS_REFRESH_PIPELINE_CUH

#include <stdint.h>

#include "refresh_schedule.cuh"
#include "refresh_table.h"
#include "refresh_tile.cuh"

/* How a tile drains (sg_k_tile_job.drain). */
enum : uint32_t {
  SG_K_DRAIN_EDGE = 0,    /* an edge tile, or Wt rows 2-, 4- or 8-byte aligned (or odd,
                             outside the REALIGN instance) */
  SG_K_DRAIN_VEC = 1,     /* whole vectors */
  SG_K_DRAIN_LINEAR = 2,  /* a linear parameter's span: copied, not transposed */
  SG_K_DRAIN_REALIGN = 3, /* odd Wt rows: realigned in shared memory */
  SG_K_DRAIN_REALIGN_FIRST = 4 /* the same for a tile that starts its Wt rows */
};

/* What the drain of a tile needs; rows == 0 marks no tile (a linear span:
 * rows is its byte count). Written by thread 0 when the tile is issued,
 * read by all after the barriers between. */
struct sg_k_tile_job {
  uint8_t *wt; /* the tile's origin in Wt */
  uint64_t ld_wt;
  uint32_t rows, cols;
  uint32_t drain; /* SG_K_DRAIN_* */
  uint32_t below; /* realigned: the W rows filled below the tile */
};

/* Three stages of one chunk of K tiles each (chunks of one size and any
 * order share it). */
template <uint32_t K, bool REALIGN>
struct sg_k_transpose_ring {
  static constexpr uint32_t kStages = 3;
  sg_k_ring_tile<REALIGN> tile[kStages][K];
  sg_k_tile_job job[kStages][K];
};

/* Starts loading span `local` of a linear parameter (SG_K_VEC_LINEAR,
 * whose W and Wt start 16-byte aligned): up to SG_K_LINEAR_ITEM bytes of
 * W, in order, into sh's slots (no swizzle: the drain reads them in the
 * same order), by cp.async, the last span's ragged bytes one a thread. */
template <uint32_t ROWS>
__device__ __forceinline__ void sg_k_linear_issue(sg_k_tile_rows<ROWS> &sh, sg_k_tile_job &job,
                                                  const sg_k_view &v, uint64_t local) {
  const uint64_t at = local * SG_K_LINEAR_ITEM;
  const uint32_t bytes = sg_k_linear_bytes(v.rows, v.cols, local);
  const uint8_t *src = v.w + at;
  if (threadIdx.x == 0) {
    job = sg_k_tile_job{v.wt + at, 1, bytes, 1, SG_K_DRAIN_LINEAR, 0};
  }
#pragma unroll
  for (uint32_t k = 0; k < SG_K_LINEAR_ITEM / 16u / SG_K_THREADS; k++) {
    const uint32_t o = 16u * (threadIdx.x + k * SG_K_THREADS);
    if (o + 16u <= bytes) {
      sg_k_cp_async16(&sh.chunk[o / 16u], src + o);
    }
  }
  const uint32_t b = (bytes & ~15u) + threadIdx.x;
  if (b < bytes) {
    reinterpret_cast<uint8_t *>(sh.chunk)[b] = src[b];
  }
}

/* Writes a linear span to Wt, in order. */
template <uint32_t ROWS>
__device__ __forceinline__ void sg_k_linear_drain(const sg_k_tile_rows<ROWS> &sh,
                                                  const sg_k_tile_job &job) {
  for (uint32_t g = threadIdx.x; 16u * g + 16u <= job.rows; g += SG_K_THREADS) {
    sg_k_store_bytes16(job.wt + 16u * g, sh.chunk[g]);
  }
  const uint32_t b = (job.rows & ~15u) + threadIdx.x;
  if (b < job.rows) {
    job.wt[b] = reinterpret_cast<const uint8_t *>(sh.chunk)[b];
  }
}

/* How an edge or unaligned tile of v at r0 with `rows` W rows drains;
 * REALIGN: the instance has the realigned drain (else such a tile drains as
 * an edge one, its bytes the same). */
template <bool REALIGN>
__device__ __forceinline__ uint32_t sg_k_drain_of(const sg_k_view &v, uint64_t r0,
                                                  uint32_t rows) {
  return REALIGN && (v.vec & SG_K_VEC_REALIGN) != 0
             ? (r0 == 0 ? SG_K_DRAIN_REALIGN_FIRST : SG_K_DRAIN_REALIGN)
         : (v.vec & SG_K_VEC_WT) != 0 && rows % 16u == 0 ? SG_K_DRAIN_VEC
                                                               : SG_K_DRAIN_EDGE;
}

/* The W rows below a tile of v at r0 with `rows` rows that its drain
 * reads: a realigned one's (sg_k_drain_of), 0 for the others. */
__device__ __forceinline__ uint32_t sg_k_rows_below(const sg_k_view &v, uint64_t r0,
                                                    uint32_t rows, uint32_t drain) {
  return drain >= SG_K_DRAIN_REALIGN ? sg_k_below_of(v.rows, r0, rows) : 0u;
}

/* Starts loading tile `local` of v into sh and records its job. Whole
 * aligned rows go by cp.async (the caller waits for them); edge and
 * unaligned tiles by cp.async where their rows are 4-byte aligned, else
 * gathered here as aligned words (sg_k_tile_fill_any). WHOLE: the launch's
 * plan says every tile is a whole aligned one (sg_k_plan.whole), and this
 * instance has no other path; REALIGN: it has the realigned drain
 * (sg_k_plan.realign), whose tiles' fill takes the rows below them too. */
template <class Chunk, bool WHOLE, bool REALIGN>
__device__ __forceinline__ void sg_k_transpose_issue(sg_k_ring_tile<REALIGN> &sh, sg_k_tile_job &job,
                                                     const sg_k_view &v, uint64_t local) {
  if (!WHOLE && (v.vec & SG_K_VEC_LINEAR) != 0) {
    sg_k_linear_issue(sh, job, v, local);
    return;
  }
  uint64_t r0, c0;
  sg_k_tile_origin<Chunk>(v, local, r0, c0);
  const uint32_t rows = static_cast<uint32_t>(min(v.rows - r0, uint64_t{SG_K_TILE}));
  const uint32_t cols = static_cast<uint32_t>(min(v.cols - c0, uint64_t{SG_K_TILE}));
  const uint32_t drain = WHOLE ? uint32_t{SG_K_DRAIN_VEC} : sg_k_drain_of<REALIGN>(v, r0, rows);
  const uint32_t below = sg_k_rows_below(v, r0, rows, drain);
  const uint8_t *src = v.w + r0 * v.ld_w + c0;
  const uint64_t ld_w = v.ld_w;
  /* a realigned tile's Wt rows end in the next tile's first bytes, whose W
   * rows the general fill loads too */
  constexpr uint32_t kCopied = REALIGN ? SG_K_VEC_W | SG_K_VEC_REALIGN : SG_K_VEC_W;
  if (WHOLE || (cols == SG_K_TILE && (v.vec & kCopied) == SG_K_VEC_W)) {
    const uint32_t q = threadIdx.x & 7u;
    const uint32_t n = WHOLE ? SG_K_TILE : rows;
    for (uint32_t row = threadIdx.x >> 3; row < n; row += SG_K_THREADS / 8) {
      sg_k_cp_async16(&sh.chunk[sg_k_slot(row, q)], src + row * ld_w + 16u * q);
    }
  } else if constexpr (!WHOLE) {
    sg_k_tile_fill_any(sh, src, ld_w, rows + below, cols,
                       sg_k_async_unit(v.w, ld_w), v.w, v.w + (v.rows - 1) * ld_w + v.cols);
  }
  if (threadIdx.x == 0) {
    job = sg_k_tile_job{v.wt + c0 * v.ld_wt + r0, v.ld_wt, rows, cols, drain, below};
  }
}

/* Tile (tr, tc)'s 1/s from W's grid to Wt's (one float a tile, so moving
 * every tile's entry is the grids' transpose). */
__device__ __forceinline__ void sg_k_move_grid_entry(const sg_k_desc &d, uint64_t tr,
                                                     uint64_t tc) {
  d.grid_t[tc * d.ld_grid_t + tr] = d.grid[tr * d.ld_grid + tc];
}

/* A block-scaled parameter's tile `local`. */
template <class Chunk>
__device__ __forceinline__ void sg_k_transpose_grid(const sg_k_desc &d, const sg_k_view &v,
                                                    uint64_t local) {
  uint64_t r0, c0;
  sg_k_tile_origin<Chunk>(v, local, r0, c0);
  sg_k_move_grid_entry(d, r0 / SG_K_TILE, c0 / SG_K_TILE);
}

/* A block-scaled dense vector's (SG_K_VEC_LINEAR) span `local` of `bytes`
 * elements: its 128-element block k (k < 128 a thread), one of the
 * vector's tiles, along its one row (1 x N) or column (N x 1). */
__device__ __forceinline__ void sg_k_transpose_span_grid(const sg_k_desc &d, uint64_t local,
                                                         uint32_t bytes, bool row, uint32_t k) {
  if (k * SG_K_TILE < bytes) {
    const uint64_t b = local * (SG_K_LINEAR_ITEM / SG_K_TILE) + k;
    sg_k_move_grid_entry(d, row ? 0 : b, row ? b : 0);
  }
}

/* Issues the cursor's chunk into stage s (a job with rows 0 where the chunk
 * has no item) and moves the cursor on. The general instance also moves
 * the block grid entries of the chunk's items, after every item's rows are
 * on their way (a tile's by the first thread of warp t, tile t's; a
 * span's by its first 128 threads, one a block): with the grid
 * kernel after it instead, block scaling's many-small set took 5 us more
 * (one launch) and the narrow instance spilled. */
template <class Chunk, bool WHOLE, bool REALIGN>
__device__ __forceinline__ void sg_k_transpose_issue_chunk(
    sg_k_transpose_ring<Chunk::K, REALIGN> &ring, uint32_t s,
    sg_k_cursor<SG_K_MODE_TRANSPOSE, Chunk> &cur) {
  static_assert(Chunk::K <= SG_K_THREADS / 32, "a warp per tile of a chunk moves its grid entry");
  uint32_t items = 0;
#pragma unroll
  for (uint32_t t = 0; t < Chunk::K; t++) {
    if (sg_k_cursor_item(cur, t)) {
      const uint64_t local = cur.j + t - cur.view[t].first;
      sg_k_transpose_issue<Chunk, WHOLE, REALIGN>(ring.tile[s][t], ring.job[s][t], cur.view[t],
                                                  local);
      items |= 1u << t;
    } else if (threadIdx.x == 0) {
      ring.job[s][t] = sg_k_tile_job{nullptr, 0, 0, 0, 0, 0};
    }
  }
  if constexpr (!WHOLE) {
#pragma unroll
    for (uint32_t t = 0; t < Chunk::K; t++) {
      const uint32_t vec = cur.view[t].vec;
      const uint64_t local = cur.j + t - cur.view[t].first;
      if ((items & (1u << t)) == 0 || (vec & SG_K_VEC_GRID) == 0) {
        continue;
      }
      if ((vec & SG_K_VEC_LINEAR) != 0) {
        sg_k_transpose_span_grid(cur.descs[cur.p[t]], local,
                                 sg_k_linear_bytes(cur.view[t].rows, cur.view[t].cols, local),
                                 cur.view[t].rows == 1, threadIdx.x);
      } else if (threadIdx.x == 32u * t) {
        sg_k_transpose_grid<Chunk>(cur.descs[cur.p[t]], cur.view[t], local);
      }
    }
  }
  sg_k_cursor_advance(cur);
}

/* A tile's drain into Wt, as its job says (SG_K_DRAIN_*). */
template <bool WHOLE, bool REALIGN>
__device__ __forceinline__ void sg_k_transpose_drain(sg_k_ring_tile<REALIGN> &sh,
                                                     const sg_k_tile_job &job) {
  if (job.drain == SG_K_DRAIN_VEC) {
    sg_k_tile_drain<true>(sh, job.wt, job.ld_wt, job.rows, job.cols);
  } else if (!WHOLE && job.drain == SG_K_DRAIN_LINEAR) {
    sg_k_linear_drain(sh, job);
  } else if (REALIGN && job.drain >= SG_K_DRAIN_REALIGN) {
    if constexpr (REALIGN) {
      sg_k_tile_drain_realigned(sh, job.wt, job.ld_wt, job.cols, job.rows + job.below,
                                job.drain == SG_K_DRAIN_REALIGN_FIRST);
    }
  } else if (!WHOLE && job.rows != 0) {
    sg_k_tile_drain<false>(sh, job.wt, job.ld_wt, job.rows, job.cols);
  }
}

/* Transposes the cursor's items. Stage k % 3 holds the k-th chunk; the
 * barrier of iteration k makes it visible and also ends every drain of chunk
 * k-1, whose stage chunk k+2 then reuses. Every iteration commits one
 * cp.async group (empty near the end), so "all but the newest group done"
 * means chunk k. Jobs are the same for all threads, so all leave the loop
 * together. */
template <class Chunk, bool WHOLE, bool REALIGN>
__device__ __forceinline__ void sg_k_transpose_pipeline(sg_k_transpose_ring<Chunk::K, REALIGN> &ring,
                                                        sg_k_cursor<SG_K_MODE_TRANSPOSE, Chunk> cur) {
  static_assert(!(WHOLE && REALIGN), "whole tiles are aligned");
  constexpr uint32_t S = sg_k_transpose_ring<Chunk::K, REALIGN>::kStages;
#pragma unroll 1
  for (uint32_t k = 0; k + 1 < S; k++) {
    sg_k_transpose_issue_chunk<Chunk, WHOLE, REALIGN>(ring, k, cur);
    sg_k_cp_async_commit();
  }
#pragma unroll 1
  for (uint32_t k = 0;; k++) {
    sg_k_cp_async_wait<S - 2>();
    __syncthreads();
    const uint32_t now = k % S;
    if (ring.job[now][0].rows == 0) {
      break;
    }
#pragma unroll
    for (uint32_t t = 0; t < Chunk::K; t++) {
      sg_k_transpose_drain<WHOLE, REALIGN>(ring.tile[now][t], ring.job[now][t]);
    }
    sg_k_transpose_issue_chunk<Chunk, WHOLE, REALIGN>(ring, (k + S - 1) % S, cur);
    sg_k_cp_async_commit();
  }
}

#endif /* SG_KERNELS_REFRESH_PIPELINE_CUH */

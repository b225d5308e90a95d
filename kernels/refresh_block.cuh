/* Block scaling (DeepSeek-V3's recipe for weights): a work item is one
 * SG_K_TILE x SG_K_TILE tile of W, which is also its scaling block (a
 * dense vector's is a span of 128 blocks: the end of this comment). The
 * block of threads loads the tile's master into registers (each thread a
 * 16-column strip of 4 rows, 32 rows apart: 64 values), merges their max |M|
 * over the block, derives the block's scale, and converts from the same
 * registers, so the master is read once: W and W's grid entry, and for the
 * cast-transpose the codes through shared memory into Wt (refresh_tile.cuh)
 * and Wt's grid entry. Tiles are dealt round-robin over the persistent grid
 * (refresh_schedule.cuh), one at a time; a BF16 tile followed by another
 * loads the next one's master after its conversion (sg_k_block_bf16_run).
 * Unaligned master rows load as the
 * aligned vectors around each strip, edge strips element by element
 * (refresh_io.cuh); unaligned W rows store as aligned vectors, each
 * lane's codes shifted against its neighbour's, with short pieces at the
 * tile's two ends (sg_k_store_row, refresh_tile.cuh). A dense vector's
 * blocks are 128
 * consecutive elements: it goes in spans of 128 of them, 8 threads a block,
 * whose amax merges by shuffles, with no barrier (sg_k_block_span). */
#ifndef SG_KERNELS_REFRESH_BLOCK_CUH
#define SG_KERNELS_REFRESH_BLOCK_CUH

#include <stdint.h>

#include "fp8_convert.cuh"
#include "refresh_amax.cuh"
#include "refresh_io.cuh"
#include "refresh_schedule.cuh"
#include "refresh_table.h"
#include "refresh_tile.cuh"

using sg_k_block_chunk = sg_k_chunk<1, 1>;
using sg_k_block_cursor = sg_k_cursor<SG_K_LIST_BLOCK, sg_k_block_chunk>;

/* Rows of a tile each thread holds (SG_K_THREADS / 8 threads per row set). */
constexpr uint32_t SG_K_BLOCK_ROWS = SG_K_TILE / (SG_K_THREADS / 8);

/* Tiles a step holds: one, or a pair of at most SG_K_TILE / 2 rows each
 * (the many-small set's [64, 128] tiles left half of a block's strips
 * empty, a step each). */
constexpr uint32_t SG_K_BLOCK_PAIR = 2;

/* Two code tiles and two halves of amax slots, alternating by step: a
 * step's barriers then also order the previous step's drain and merge
 * before the next step's writes to the same half. */
struct sg_k_block_smem {
  sg_k_tile_smem code[2];
  sg_k_amax_slots slots;
};

/* One tile: its extent, where its master, W and Wt start, and the grid
 * entries of its block. A pair's absent second tile is all zero (no
 * rows). */
struct sg_k_block_job {
  const char *m;
  uint8_t *w, *wt;
  float *grid, *grid_t;
  uint64_t ld_m, ld_w, ld_wt;
  uint32_t rows, cols, vec, format;
  bool shifted; /* unaligned master rows, the tile's vectors inside the master */
};

/* Tile `local` of view v, descriptor d. */
__device__ __forceinline__ sg_k_block_job sg_k_block_job_of(const sg_k_desc &d, const sg_k_view &v,
                                                            uint64_t local) {
  uint64_t r0, c0;
  sg_k_tile_origin<sg_k_block_chunk>(v, local, r0, c0);
  const uint64_t elem = v.master_dtype == SG_K_MASTER_BF16 ? 2u : 4u;
  const uint64_t tr = r0 / SG_K_TILE;
  const uint64_t tc = c0 / SG_K_TILE;
  const char *m = v.master + (r0 * v.ld_master + c0) * elem;
  const uint32_t rows = static_cast<uint32_t>(min(v.rows - r0, uint64_t{SG_K_TILE}));
  const uint32_t cols = static_cast<uint32_t>(min(v.cols - c0, uint64_t{SG_K_TILE}));
  const bool shifted = (v.vec & SG_K_VEC_MASTER) == 0 &&
                       sg_k_tile_vectors_inside(v.master, v.rows, v.cols, m, rows, cols,
                                                v.ld_master, elem);
  return sg_k_block_job{m,
                        v.w + r0 * v.ld_w + c0,
                        v.wt + c0 * v.ld_wt + r0,
                        d.grid + tr * d.ld_grid + tc,
                        d.grid_t + tc * d.ld_grid_t + tr,
                        v.ld_master,
                        v.ld_w,
                        v.ld_wt,
                        rows,
                        cols,
                        v.vec,
                        v.format,
                        shifted};
}

/* The thread map of a step of T tiles: tile t is converted by threads
 * t * 256 / T onwards, each a 16-column strip of 4 rows (32 rows apart in
 * a whole tile, 16 in a pair's), so that a thread holds one tile's master;
 * tile t's codes take the slot rows from t * SG_K_TILE / T, and its Wt
 * rows drain from the lanes whose drain rows are there. */
template <uint32_t T>
struct sg_k_block_step {
  static_assert(T == 1 || T == SG_K_BLOCK_PAIR, "a step holds one tile or a pair");
  static constexpr uint32_t kSets = SG_K_THREADS / 8 / T; /* row sets of a tile */
  static constexpr uint32_t kRows = SG_K_TILE / T;        /* a tile's slot rows */
  __device__ static uint32_t tile() { return T == 1 ? 0u : threadIdx.x / (SG_K_THREADS / T); }
  __device__ static uint32_t row(uint32_t k) {
    return (T == 1 ? threadIdx.x >> 3 : (threadIdx.x >> 3) % kSets) + kSets * k;
  }
  __device__ static bool leads() { /* the thread that writes its tile's grid entries */
    return T == 1 ? threadIdx.x == 0 : threadIdx.x % (SG_K_THREADS / T) == 0;
  }
  __device__ static sg_k_block_job pick(const sg_k_block_job (&jobs)[T], uint32_t t) {
    return T == 1 || t == 0 ? jobs[0] : jobs[T - 1];
  }
};

/* The thread's strips of its tile's master into m (the loads are issued;
 * their first use waits for them). */
template <uint32_t DT, uint32_t T>
__device__ __forceinline__ void sg_k_block_load(const sg_k_block_job &job,
                                                sg_k_master16<DT> (&m)[SG_K_BLOCK_ROWS]) {
  constexpr uint64_t kElem = sg_k_master16<DT>::kElemBytes;
  const uint32_t c = 16u * (threadIdx.x & 7u);
  const uint32_t n = c < job.cols ? min(job.cols - c, 16u) : 0u;
  const bool vec_m = n == 16u && (job.vec & SG_K_VEC_MASTER) != 0;
#pragma unroll
  for (uint32_t k = 0; k < SG_K_BLOCK_ROWS; k++) {
    const uint32_t r = sg_k_block_step<T>::row(k);
    const uint32_t in = r < job.rows ? n : 0u;
    m[k] = sg_k_load_strip<DT>(job.m + (r * job.ld_m + c) * kElem, in, vec_m && in == 16u,
                               job.shifted && in == 16u);
  }
}

/* All threads: a step whose master m holds (or is loading), up to its
 * drain; job is the thread's tile. Each tile's max |M| is merged through
 * slots[half] (the barrier after the stash makes every warp's visible),
 * the scale follows from it, the codes go to W and, with TRANSPOSE, into
 * `code`. The tile's first thread writes its grid entries. REALIGN: W rows
 * that are not all 16-byte aligned store as aligned vectors
 * (sg_k_store_row: every lane converts, for the shuffle), else each lane
 * in the tile stores its own codes at their address. The pairing instance
 * does the latter: realigned, the many-small set's block rows (all
 * aligned) ran 1-5% slower on the H100, the instance's registers moving
 * with its code. (Each instance's PTX is the one measured: without
 * REALIGN only the tile's lanes convert, and whole aligned vectors store
 * without sg_k_store16_any's address test.) */
template <uint32_t FMT, uint32_t DT, bool TRANSPOSE, uint32_t T, bool REALIGN>
__device__ __forceinline__ void sg_k_block_convert(const sg_k_block_job &job,
                                                   const sg_k_master16<DT> (&m)[SG_K_BLOCK_ROWS],
                                                   sg_k_tile_smem &code, sg_k_amax_slots &slots,
                                                   uint32_t half) {
  using step = sg_k_block_step<T>;
  const uint32_t q = threadIdx.x & 7u;
  const uint32_t c = 16u * q;
  const uint32_t n = c < job.cols ? min(job.cols - c, 16u) : 0u;
  const bool aligned_w = (job.vec & SG_K_VEC_W) != 0; /* the same for the whole warp */
  const bool vec_w = n == 16u && (job.vec & SG_K_VEC_W) != 0;
  uint32_t amax_bits = 0;
#pragma unroll
  for (uint32_t k = 0; k < SG_K_BLOCK_ROWS; k++) {
    sg_k_amax16(m[k], amax_bits);
  }
  sg_k_amax_stash(amax_bits, slots, half);
  __syncthreads();
  const float s =
      sg_k_scale_of(sg_k_amax_merged<T>(slots, half), FMT, (job.vec & SG_K_VEC_POW2) != 0);
#pragma unroll
  for (uint32_t k = 0; k < SG_K_BLOCK_ROWS; k++) {
    const uint32_t r = step::row(k);
    const bool in = r < job.rows && n > 0;
    if (!REALIGN && !in) {
      continue;
    }
    uint32_t unused = 0;
    const uint4 codes = sg_k_cast16<FMT, DT>(m[k], s, unused);
    if (REALIGN && !aligned_w) {
      sg_k_store_row(job.w + r * job.ld_w, job.cols, codes, r < job.rows);
    } else if (!REALIGN && vec_w) {
      sg_k_store_bytes16(job.w + r * job.ld_w + c, codes);
    } else if (in) {
      sg_k_store16_any(job.w + r * job.ld_w + c, codes, n);
    }
    if (TRANSPOSE && in) {
      code.chunk[sg_k_slot(step::kRows * step::tile() + r, q)] = codes;
    }
  }
  if (step::leads() && (T == 1 || job.rows > 0)) {
    const float inv = __fdiv_rn(1.0f, s);
    *job.grid = inv;
    if constexpr (TRANSPOSE) {
      *job.grid_t = inv;
    }
  }
}

/* A step's converted codes to Wt, after a barrier (TRANSPOSE; the cast
 * has none): each thread drains its drain rows' tile. */
template <bool TRANSPOSE, uint32_t T>
__device__ __forceinline__ void sg_k_block_drain(const sg_k_block_job (&jobs)[T],
                                                 const sg_k_tile_smem &code) {
  using step = sg_k_block_step<T>;
  if constexpr (TRANSPOSE) {
    __syncthreads();
    const uint32_t t = T == 1 ? 0u : sg_k_drain_row() / step::kRows;
    const sg_k_block_job job = step::pick(jobs, t);
    if (job.rows % 16u == 0 && (job.vec & SG_K_VEC_WT) != 0) {
      sg_k_tile_drain_from<true>(code, step::kRows * t, job.wt, job.ld_wt, job.rows, job.cols);
    } else {
      sg_k_tile_drain_from<false>(code, step::kRows * t, job.wt, job.ld_wt, job.rows, job.cols);
    }
  }
}

/* Span `local` of a dense vector (SG_K_VEC_SPANS): its up to 128
 * scaling blocks of 128 elements, each thread a 16-element strip of 4 of
 * them (strips t + 256 b), the 8 lanes of a block merging its amax by
 * shuffles; the codes go to W and (TRANSPOSE) to Wt's same bytes, the
 * first lane of a block writes its grid entries (W's grid is 1 x blocks
 * for a 1 x N vector, blocks x 1 for N x 1; Wt's the other way). All 32
 * lanes of a warp take part in the shuffles, past the span's end with
 * empty strips. */
template <uint32_t FMT, uint32_t DT, bool TRANSPOSE>
__device__ __forceinline__ void sg_k_block_span(const sg_k_desc &d, const sg_k_view &v,
                                                uint64_t local) {
  constexpr uint32_t kElem = sg_k_master16<DT>::kElemBytes;
  const uint64_t first = local * SG_K_LINEAR_ITEM;
  const uint32_t n = sg_k_linear_bytes(v.rows, v.cols, local);
  const char *m = v.master + first * kElem;
  const uint32_t load = sg_k_span_load(v.master, v.rows * v.cols, local, kElem);
  const bool vec = load == SG_K_SPAN_VECTORS;
  const bool shifted = load == SG_K_SPAN_SHIFTED;
  const bool pow2 = (v.vec & SG_K_VEC_POW2) != 0;
  sg_k_master16<DT> x[SG_K_BLOCK_ROWS];
  uint32_t len[SG_K_BLOCK_ROWS];
#pragma unroll
  for (uint32_t b = 0; b < SG_K_BLOCK_ROWS; b++) {
    const uint32_t at = 16u * (threadIdx.x + SG_K_THREADS * b);
    len[b] = at < n ? min(n - at, 16u) : 0u;
    x[b] = sg_k_load_strip<DT>(m + at * kElem, len[b], vec && len[b] == 16u,
                               shifted && len[b] == 16u);
  }
#pragma unroll
  for (uint32_t b = 0; b < SG_K_BLOCK_ROWS; b++) {
    uint32_t bits = 0;
    sg_k_amax16(x[b], bits);
#pragma unroll
    for (uint32_t lane = 1; lane < 8; lane <<= 1) {
      bits = max(bits, __shfl_xor_sync(0xFFFFFFFFu, bits, lane));
    }
    const uint32_t at = 16u * (threadIdx.x + SG_K_THREADS * b);
    const float s = sg_k_scale_of(bits, FMT, pow2);
    if (len[b] > 0) {
      uint32_t unused = 0;
      const uint4 codes = sg_k_cast16<FMT, DT>(x[b], s, unused);
      sg_k_store16_any(v.w + first + at, codes, len[b]);
      if constexpr (TRANSPOSE) {
        sg_k_store16_any(v.wt + first + at, codes, len[b]);
      }
    }
    if (len[b] > 0 && (threadIdx.x & 7u) == 0) {
      const uint64_t k = (first + at) / SG_K_TILE; /* the block along the vector */
      const uint64_t tr = v.rows == 1 ? 0 : k;
      const uint64_t tc = v.rows == 1 ? k : 0;
      const float inv = __fdiv_rn(1.0f, s);
      d.grid[tr * d.ld_grid + tc] = inv;
      if constexpr (TRANSPOSE) {
        d.grid_t[tc * d.ld_grid_t + tr] = inv;
      }
    }
  }
}

/* Step k's conversion with its format as a template argument (its codes
 * in smem.code[k % 2], its amaxes in smem.slots' half k % 2); a pair's
 * tiles share their format. */
template <uint32_t DT, bool TRANSPOSE, uint32_t T, bool REALIGN>
__device__ __forceinline__ void sg_k_block_convert_of(const sg_k_block_job &job,
                                                      const sg_k_master16<DT> (&m)[SG_K_BLOCK_ROWS],
                                                      sg_k_block_smem &smem, uint32_t k,
                                                      uint32_t format) {
  if (format == SG_K_FP8_E4M3) {
    sg_k_block_convert<SG_K_FP8_E4M3, DT, TRANSPOSE, T, REALIGN>(job, m, smem.code[k & 1u],
                                                                 smem.slots, k & 1u);
  } else {
    sg_k_block_convert<SG_K_FP8_E5M2, DT, TRANSPOSE, T, REALIGN>(job, m, smem.code[k & 1u],
                                                                 smem.slots, k & 1u);
  }
}

/* The job of the cursor's item (settled by sg_k_cursor_item). */
__device__ __forceinline__ sg_k_block_job sg_k_block_job_at(const sg_k_block_cursor &cur) {
  return sg_k_block_job_of(cur.descs[cur.p[0]], cur.view[0], cur.j - cur.view[0].first);
}

/* Whether a tile fits half a step (at most SG_K_TILE / 2 rows): a pair's. */
__device__ __forceinline__ bool sg_k_block_short(const sg_k_block_job &job) {
  return job.rows <= SG_K_TILE / 2;
}

/* Whether the cursor's item (settled) is a tile (not a span) of master
 * type DT. */
template <uint32_t DT>
__device__ __forceinline__ bool sg_k_block_tile_of(const sg_k_block_cursor &cur) {
  return cur.view[0].master_dtype == DT && (cur.view[0].vec & SG_K_VEC_SPANS) == 0;
}

/* The cursor's run of BF16 tiles (it holds one), counting steps in k;
 * with PAIRS, of tiles of more than SG_K_TILE / 2 rows.
 * Each tile's loads, barriers, conversion and stores run one after
 * another, so one BF16 tile at a time, half an FP32 one's bytes, had too
 * few in flight to keep the memory busy (the BF16 casts ran at 76-81% of
 * the copy, FP32 at 87-96%); here the next tile's master loads into
 * registers once this one is converted (before the cast-transpose's
 * drain), where an L1 request for it (the cast's with this tile's loads,
 * the cast-transpose's before the drain) left block scaling's BF16
 * cast-transpose of the GPT set at 85-86%; beside this tile's master the
 * loads spilled. The cursor moves past the next tile only after this one's
 * drain, its job derived again then, so that the drain holds only its
 * master. */
template <bool TRANSPOSE, bool PAIRS>
__device__ __forceinline__ void sg_k_block_bf16_run(sg_k_block_cursor &cur, sg_k_block_smem &smem,
                                                    uint32_t &k) {
  constexpr uint32_t B16 = SG_K_MASTER_BF16;
  sg_k_master16<B16> m[SG_K_BLOCK_ROWS];
  sg_k_block_job job[1] = {sg_k_block_job_at(cur)};
  sg_k_block_load<B16, 1>(job[0], m);
  sg_k_cursor_advance(cur);
  for (;;) {
    sg_k_master16<B16> ahead[SG_K_BLOCK_ROWS];
    bool more = sg_k_cursor_item(cur, 0) && sg_k_block_tile_of<B16>(cur);
    sg_k_block_convert_of<B16, TRANSPOSE, 1, !PAIRS>(job[0], m, smem, k, job[0].format);
    if (more) {
      const sg_k_block_job next = sg_k_block_job_at(cur);
      if constexpr (PAIRS) {
        more = !sg_k_block_short(next);
      }
      if (more) {
        sg_k_block_load<B16, 1>(next, ahead);
      }
    }
    sg_k_block_drain<TRANSPOSE>(job, smem.code[k++ & 1u]);
    if (!more) {
      return;
    }
    job[0] = sg_k_block_job_at(cur);
    sg_k_cursor_advance(cur);
#pragma unroll
    for (uint32_t r = 0; r < SG_K_BLOCK_ROWS; r++) {
      m[r] = ahead[r];
    }
  }
}

/* One step of the cursor's tile. */
template <uint32_t DT, bool TRANSPOSE, bool PAIRS>
__device__ __forceinline__ void sg_k_block_single(sg_k_block_cursor &cur, sg_k_block_smem &smem,
                                                  uint32_t &k) {
  sg_k_master16<DT> m[SG_K_BLOCK_ROWS];
  const sg_k_block_job job[1] = {sg_k_block_job_at(cur)};
  sg_k_block_load<DT, 1>(job[0], m);
  sg_k_cursor_advance(cur);
  sg_k_block_convert_of<DT, TRANSPOSE, 1, !PAIRS>(job[0], m, smem, k, job[0].format);
  sg_k_block_drain<TRANSPOSE>(job, smem.code[k++ & 1u]);
}

/* One step of `first`, a short tile the cursor has moved past, and the
 * cursor's item where that is a short tile of the same master type and
 * format (else the pair's second tile is absent). */
template <uint32_t DT, bool TRANSPOSE>
__device__ __forceinline__ void sg_k_block_pair(const sg_k_block_job &first,
                                                sg_k_block_cursor &cur, sg_k_block_smem &smem,
                                                uint32_t &k) {
  constexpr uint32_t T = SG_K_BLOCK_PAIR;
  sg_k_master16<DT> m[SG_K_BLOCK_ROWS];
  sg_k_block_job jobs[T] = {first};
  if (sg_k_cursor_item(cur, 0) && sg_k_block_tile_of<DT>(cur) &&
      cur.view[0].format == first.format) {
    const sg_k_block_job next = sg_k_block_job_at(cur);
    if (sg_k_block_short(next)) {
      jobs[1] = next;
      sg_k_cursor_advance(cur);
    }
  }
  const sg_k_block_job mine = sg_k_block_step<T>::pick(jobs, sg_k_block_step<T>::tile());
  sg_k_block_load<DT, T>(mine, m);
  sg_k_block_convert_of<DT, TRANSPOSE, T, false>(mine, m, smem, k, first.format);
  sg_k_block_drain<TRANSPOSE>(jobs, smem.code[k++ & 1u]);
}

template <bool TRANSPOSE>
__device__ __forceinline__ void sg_k_block_span_of(const sg_k_desc &d, const sg_k_view &v,
                                                   uint64_t local) {
  constexpr uint32_t E4 = SG_K_FP8_E4M3, E5 = SG_K_FP8_E5M2;
  constexpr uint32_t F32 = SG_K_MASTER_FP32, B16 = SG_K_MASTER_BF16;
  const bool bf16 = v.master_dtype == SG_K_MASTER_BF16;
  if (v.format == SG_K_FP8_E4M3) {
    bf16 ? sg_k_block_span<E4, B16, TRANSPOSE>(d, v, local)
         : sg_k_block_span<E4, F32, TRANSPOSE>(d, v, local);
  } else {
    bf16 ? sg_k_block_span<E5, B16, TRANSPOSE>(d, v, local)
         : sg_k_block_span<E5, F32, TRANSPOSE>(d, v, local);
  }
}

/* Every item the cursor deals this block: tiles and a dense vector's
 * spans; with PAIRS (sg_k_plan.pairs) short tiles two a step. The cursor
 * loads the next item's view before this one is converted. Steps
 * alternate code tiles and amax halves by their own count (k), so that
 * the barriers of the step between two that share a buffer order them;
 * spans have no barrier and use neither. */
template <bool TRANSPOSE, bool PAIRS>
__device__ __forceinline__ void sg_k_block_scale(sg_k_block_cursor cur) {
  __shared__ sg_k_block_smem smem;
  uint32_t k = 0;
#pragma unroll 1
  while (sg_k_cursor_item(cur, 0)) {
    const sg_k_view v = cur.view[0];
    const uint64_t local = cur.j - v.first;
    const bool bf16 = v.master_dtype == SG_K_MASTER_BF16;
    if ((v.vec & SG_K_VEC_SPANS) != 0) {
      const sg_k_desc &d = cur.descs[cur.p[0]];
      sg_k_cursor_advance(cur);
      sg_k_block_span_of<TRANSPOSE>(d, v, local);
      continue;
    }
    if constexpr (PAIRS) {
      const sg_k_block_job first = sg_k_block_job_at(cur);
      if (sg_k_block_short(first)) {
        sg_k_cursor_advance(cur);
        bf16 ? sg_k_block_pair<SG_K_MASTER_BF16, TRANSPOSE>(first, cur, smem, k)
             : sg_k_block_pair<SG_K_MASTER_FP32, TRANSPOSE>(first, cur, smem, k);
        continue;
      }
    }
    if (bf16) {
      sg_k_block_bf16_run<TRANSPOSE, PAIRS>(cur, smem, k);
    } else {
      sg_k_block_single<SG_K_MASTER_FP32, TRANSPOSE, PAIRS>(cur, smem, k);
    }
  }
}

#endif /* SG_KERNELS_REFRESH_BLOCK_CUH */

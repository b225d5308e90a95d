/* The work items of one parameter in the cast modes: cast-transpose tiles
 * (through refresh_tile.cuh) and cast runs over the owned flat range. The
 * transpose mode has its own pipeline (refresh_pipeline.cuh). */
#ifndef SG_KERNELS_REFRESH_ITEMS_CUH
#define SG_KERNELS_REFRESH_ITEMS_CUH

#include <stdint.h>

#include "fp8_convert.cuh"
#include "refresh_amax.cuh"
#include "refresh_io.cuh"
#include "refresh_schedule.cuh"
#include "refresh_sources.cuh"
#include "refresh_table.h"
#include "refresh_tile.cuh"

/* Tile `local` (row-major over the tile grid) of d through `src`, in the
 * buffer `parity` picks. Tiles alternate between two buffers (the parity
 * carries over across parameters), so one barrier per tile suffices: the
 * fill of tile k+1 only touches the buffer tile k's drain is not reading,
 * and tile k+2's fill comes after the barrier that follows every drain of
 * tile k. Warps that finish draining start loading the next tile while
 * others still drain. */
template <class Src>
__device__ __forceinline__ void sg_k_tile(sg_k_tile_smem (&ring)[2], uint32_t &parity, Src &src,
                                          const sg_k_desc &d, uint64_t local) {
  const uint64_t tr = local / d.tiles_per_row;
  const uint64_t r0 = tr * SG_K_TILE;
  const uint64_t c0 = (local - tr * d.tiles_per_row) * SG_K_TILE;
  const uint32_t rows = static_cast<uint32_t>(min(d.rows - r0, uint64_t{SG_K_TILE}));
  const uint32_t cols = static_cast<uint32_t>(min(d.cols - c0, uint64_t{SG_K_TILE}));
  sg_k_tile_smem &sh = ring[parity];
  src.at_tile(r0, c0);
  if (cols == SG_K_TILE && src.vec()) {
    sg_k_tile_fill<true>(sh, src, rows, cols);
  } else {
    sg_k_tile_fill<false>(sh, src, rows, cols);
  }
  __syncthreads();
  uint8_t *wt = d.wt + c0 * d.ld_wt + r0;
  if (rows % 16u == 0 && (d.vec & SG_K_VEC_WT) != 0) {
    sg_k_tile_drain<true>(sh, wt, d.ld_wt, rows, cols);
  } else {
    sg_k_tile_drain<false>(sh, wt, d.ld_wt, rows, cols);
  }
  parity ^= 1u;
}

/* Casts len consecutive elements (one row segment). Where the master is
 * 16-byte aligned at W's first 16-byte boundary, the whole chunks from there
 * go as vectors, kBatch per thread at a time; the head before it and the
 * tail after them, or the whole run when the two never align, go element by
 * element. */
template <uint32_t FMT, uint32_t DT>
__device__ __forceinline__ void sg_k_cast_run(uint8_t *w, const char *m, uint32_t len, float s,
                                              uint32_t &amax_bits) {
  using Raw = sg_k_master16<DT>;
  /* As in the tiles: larger batches spill at 3 blocks per multiprocessor. */
  constexpr int kBatch = sg_k_cast_src<FMT, DT>::kBatch;
  constexpr uint32_t kElem = Raw::kElemBytes;
  constexpr uint32_t kStep = kBatch * SG_K_THREADS;
  const uint32_t misalign = static_cast<uint32_t>(reinterpret_cast<uintptr_t>(w) & 15u);
  uint32_t head = min(len, (16u - misalign) & 15u);
  uint32_t whole = (len - head) / 16u;
  if ((reinterpret_cast<uintptr_t>(m + head * kElem) & 15u) != 0) {
    head = len;
    whole = 0;
  }
#pragma unroll 1 /* the batch is the unrolling; more would only hold registers */
  for (uint32_t k0 = threadIdx.x; k0 < whole; k0 += kStep) {
    Raw raw[kBatch];
#pragma unroll
    for (int b = 0; b < kBatch; b++) {
      const uint32_t k = k0 + b * SG_K_THREADS;
      if (k < whole) {
        raw[b] = sg_k_load_master16<DT>(m + (head + 16u * k) * kElem);
      }
    }
#pragma unroll
    for (int b = 0; b < kBatch; b++) {
      const uint32_t k = k0 + b * SG_K_THREADS;
      if (k < whole) {
        sg_k_store_bytes16(w + head + 16u * k, sg_k_cast16<FMT, DT>(raw[b], s, amax_bits));
      }
    }
  }
  const uint32_t tail = head + 16u * whole; /* first element after the chunks */
  for (uint32_t e = threadIdx.x; e < head + (len - tail); e += SG_K_THREADS) {
    const uint32_t i = e < head ? e : tail + (e - head);
    w[i] = sg_k_cast1<FMT>(sg_k_master_bits<DT>(m, i), s, amax_bits);
  }
}

/* Cast items [lo, hi) of d; returns the thread's max |M| bit pattern. An item
 * is a slice of the owned range and may span rows of a strided parameter. */
template <uint32_t FMT, uint32_t DT>
__device__ __forceinline__ uint32_t sg_k_cast_items(const sg_k_desc &d, uint64_t lo,
                                                    uint64_t hi) {
  constexpr uint64_t kElem = sg_k_master16<DT>::kElemBytes;
  const char *m = static_cast<const char *>(d.master);
  const float s = *d.scale;
  uint32_t amax_bits = 0;
#pragma unroll 1
  for (uint64_t it = lo; it < hi; it++) {
    uint64_t f = d.range_begin + it * SG_K_CAST_ITEM;
    const uint64_t f_end = min(d.range_end, f + SG_K_CAST_ITEM);
    uint64_t r = f / d.flat_cols;
    uint64_t c = f - r * d.flat_cols;
    while (f < f_end) {
      const uint32_t len = static_cast<uint32_t>(min(d.flat_cols - c, f_end - f));
      sg_k_cast_run<FMT, DT>(d.w + r * d.flat_ld_w + c, m + (r * d.flat_ld_master + c) * kElem,
                             len, s, amax_bits);
      f += len;
      r++;
      c = 0;
    }
  }
  return amax_bits;
}

/* Calls f with sg_k_kind<FMT, DT> for d's format and master dtype, so that
 * the inner loops are compiled per combination and never branch on them. */
template <uint32_t FMT, uint32_t DT>
struct sg_k_kind {
  static constexpr uint32_t fmt = FMT;
  static constexpr uint32_t dt = DT;
};

template <class F>
__device__ __forceinline__ uint32_t sg_k_dispatch(const sg_k_desc &d, F f) {
  const bool fp32 = d.master_dtype == SG_K_MASTER_FP32;
  if (d.format == SG_K_FP8_E4M3) {
    return fp32 ? f(sg_k_kind<SG_K_FP8_E4M3, SG_K_MASTER_FP32>{})
                : f(sg_k_kind<SG_K_FP8_E4M3, SG_K_MASTER_BF16>{});
  }
  return fp32 ? f(sg_k_kind<SG_K_FP8_E5M2, SG_K_MASTER_FP32>{})
              : f(sg_k_kind<SG_K_FP8_E5M2, SG_K_MASTER_BF16>{});
}

/* Cast mode: items [lo, hi) of d, then this block's share of amax. */
__device__ __forceinline__ void sg_k_cast_param(const sg_k_desc &d, uint64_t lo, uint64_t hi,
                                                sg_k_scratch *scratch) {
  const uint32_t amax_bits = sg_k_dispatch(d, [&](auto kind) {
    return sg_k_cast_items<decltype(kind)::fmt, decltype(kind)::dt>(d, lo, hi);
  });
  sg_k_publish_amax<SG_K_MODE_CAST>(amax_bits, hi - lo, scratch, d);
}

/* Cast-transpose: tile `local` of d; returns the thread's amax of it. */
__device__ __forceinline__ uint32_t sg_k_cast_tile(sg_k_tile_smem (&ring)[2], uint32_t &parity,
                                                   const sg_k_desc &d, uint64_t local) {
  return sg_k_dispatch(d, [&](auto kind) {
    sg_k_cast_src<decltype(kind)::fmt, decltype(kind)::dt> src{
        static_cast<const char *>(d.master), d.ld_master, d.w, d.ld_w, *d.scale,
        (d.vec & SG_K_VEC_MASTER) != 0, (d.vec & SG_K_VEC_W) != 0, 0u, nullptr, nullptr};
    sg_k_tile(ring, parity, src, d, local);
    return src.amax_bits;
  });
}

/* Cast-transpose: the cursor's tiles; amax is published per run of
 * consecutive tiles of one parameter. */
__device__ __forceinline__ void sg_k_cast_transpose(sg_k_tile_smem (&ring)[2],
                                                    sg_k_stride_cursor cur,
                                                    sg_k_scratch *scratch) {
  constexpr uint32_t kMode = SG_K_MODE_CAST_TRANSPOSE;
  uint32_t parity = 0;
  uint32_t amax_bits = 0;
  uint64_t run = 0;
  while (cur.j < cur.end) {
    const uint32_t p = cur.p;
    const sg_k_desc &d = cur.descs[p];
    amax_bits = max(amax_bits, sg_k_cast_tile(ring, parity, d, cur.j - d.item_first[kMode]));
    run++;
    sg_k_stride_next<kMode>(cur);
    if (cur.j >= cur.end || cur.p != p) {
      sg_k_publish_amax<kMode>(amax_bits, run, scratch + p, d);
      amax_bits = 0;
      run = 0;
    }
  }
}

#endif /* SG_KERNELS_REFRESH_ITEMS_CUH */

/* One SG_K_TILE x SG_K_TILE tile of W transposed through shared memory by a
 * block of SG_K_THREADS threads.
 *
 * Fill: 16-byte chunks of W rows (8 threads per 128-byte row, so a warp
 * covers 4 whole rows: coalesced), each stored whole in its slot.
 * Drain: each thread reads a 16-row x 4-column block as 16 words, transposes
 * it in registers with byte permutes, and writes 16 bytes to each of 4 Wt
 * rows; 8 lanes cover 128 consecutive bytes of a Wt row (coalesced).
 * A drain read touches one word in each of 16 rows, so chunk q of row r sits
 * in slot q ^ (r / 16 % 8): the 32 lanes of a read then hit 32 distinct banks,
 * and the 8 lanes that store one row still write 8 distinct slots.
 * Edge tiles and unaligned parameters gather and scatter 16 bytes a thread
 * at the widest alignment they have (aligned words with predicated ends at
 * worst: refresh_unaligned.cuh), through the same slots and the same
 * register transpose; the transpose mode realigns odd Wt rows of 4096
 * bytes or more in shared memory first (in a kernel instance of its own),
 * so that only the rows' ends are not whole vectors. */
#ifndef SG_KERNELS_REFRESH_TILE_CUH
#define SG_KERNELS_REFRESH_TILE_CUH

#include <stdint.h>

#include "refresh_io.cuh"
#include "refresh_table.h"
#include "refresh_unaligned.cuh"

#define SG_K_THREADS 256

static_assert(SG_K_TILE == 128 && SG_K_THREADS == 256,
              "the fill and drain thread maps assume 128x128 tiles, 256 threads");

/* A tile's slots: ROWS rows of 8 16-byte chunks; a transpose ring's in the
 * instance with the realigned drain (REALIGN) with the SG_K_BELOW rows
 * under the tile that the drain reaches into. */
template <uint32_t ROWS>
struct sg_k_tile_rows {
  uint4 chunk[ROWS * SG_K_TILE / 16];
};
using sg_k_tile_smem = sg_k_tile_rows<SG_K_TILE>;
template <bool REALIGN>
using sg_k_ring_tile = sg_k_tile_rows<SG_K_TILE + (REALIGN ? SG_K_BELOW : 0u)>;

__device__ __forceinline__ uint32_t sg_k_slot(uint32_t row, uint32_t q) {
  return row * 8u + (q ^ ((row >> 4) & 7u));
}

/* Up to 16 bytes at p for a gather (n of them wanted, inside [lo, hi)):
 * one vector where p is 16-byte aligned and the whole chunk wanted, else
 * aligned words (refresh_unaligned.cuh). */
__device__ __forceinline__ uint4 sg_k_load16_any(const uint8_t *p, uint32_t n, const uint8_t *lo,
                                                 const uint8_t *hi) {
  if (n == 16u && (reinterpret_cast<uintptr_t>(p) & 15u) == 0) {
    return *reinterpret_cast<const uint4 *>(p);
  }
  return sg_k_gather16(p, n, lo, hi, sg_k_plain_io{});
}

/* Bytes 0..n-1 of v to [p, p + n): the store counterpart of
 * sg_k_load16_any, with two 8-byte stores for a whole chunk at an 8-byte
 * aligned address (rows of 1000 or 3000 bytes). */
__device__ __forceinline__ void sg_k_store16_any(uint8_t *p, const uint4 &v, uint32_t n) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  if (n == 16u && (a & 15u) == 0) {
    sg_k_store_bytes16(p, v);
  } else if (n == 16u && (a & 7u) == 0) {
    reinterpret_cast<uint2 *>(p)[0] = make_uint2(v.x, v.y);
    reinterpret_cast<uint2 *>(p)[1] = make_uint2(v.z, v.w);
  } else {
    sg_k_scatter16(p, v, n, sg_k_plain_io{});
  }
}

/* A tile's row of `cols` codes (cols <= SG_K_TILE) held by 8 consecutive
 * lanes, lane q the 16 from column 16q (`codes`), stored to `row`, an
 * address of any alignment: lane q stores the aligned vector from the
 * first aligned address past its own first byte, its codes' end and its
 * right neighbour's start (shuffled over), cut at the row's end, and lane
 * 0 the bytes before it (sg_k_row_pieces' cut of a whole row). Each lane
 * storing its own 16 codes at their address instead took two 8-byte
 * stores on a row of 1000 bytes and a scatter of words and single bytes on
 * one of 4099 (ten L2 sectors written for every one of W: Nsight Compute,
 * H100). All 32 lanes of the warp call it (the shuffle); `store`: whether
 * the lane's row is in the tile. */
__device__ __forceinline__ void sg_k_store_row(uint8_t *row, uint32_t cols, const uint4 &codes,
                                               bool store) {
  const uint32_t q = threadIdx.x & 7u;
  const uint4 next = make_uint4(
      __shfl_down_sync(0xFFFFFFFFu, codes.x, 1), __shfl_down_sync(0xFFFFFFFFu, codes.y, 1),
      __shfl_down_sync(0xFFFFFFFFu, codes.z, 1), __shfl_down_sync(0xFFFFFFFFu, codes.w, 1));
  if (store) {
    sg_k_row_pieces(reinterpret_cast<uintptr_t>(row), cols, true, q,
                    [&](uint32_t at, uint32_t len) {
                      sg_k_store16_any(row + at, sg_k_shift16(codes, next, at - 16u * q), len);
                    });
  }
}

/* Asynchronous 16-byte copy global -> shared (no registers held while in
 * flight), and the group bookkeeping that waits for it. The L2 fetches 256
 * bytes around each miss: the runs a block reads are 256 bytes or more (a
 * wide chunk's W rows, FP32 and BF16 master rows) or continue in a
 * neighbouring block's tile; on the GPT set this took the wide transpose
 * from 90.6-90.7% to 91.5% of the copy's bandwidth, the rest unchanged. */
__device__ __forceinline__ void sg_k_cp_async16(uint4 *dst, const uint8_t *src) {
  const uint32_t s = static_cast<uint32_t>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.cg.shared.global.L2::256B [%0], [%1], 16;\n" ::"r"(s), "l"(src)
               : "memory");
}

/* The same for one aligned 4- or 8-byte value (a parameter's fields, next
 * to its tile). */
__device__ __forceinline__ void sg_k_cp_async4(void *dst, const void *src) {
  const uint32_t s = static_cast<uint32_t>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(s), "l"(src) : "memory");
}

__device__ __forceinline__ void sg_k_cp_async8(void *dst, const void *src) {
  const uint32_t s = static_cast<uint32_t>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 8;\n" ::"r"(s), "l"(src) : "memory");
}

__device__ __forceinline__ void sg_k_cp_async_commit() {
  asm volatile("cp.async.commit_group;\n" ::: "memory");
}

/* Waits until at most `pending` of this thread's newest groups are in flight. */
template <int pending>
__device__ __forceinline__ void sg_k_cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(pending) : "memory");
}

/* The alignment of every row of a matrix at `base`, rows `ld` bytes
 * apart, that cp.async can use: 16, 8 or 4 bytes, else 0. */
__device__ __forceinline__ uint32_t sg_k_async_unit(const uint8_t *base, uint64_t ld) {
  const uint64_t bits = reinterpret_cast<uintptr_t>(base) | ld;
  return (bits & 15u) == 0 ? 16u : (bits & 7u) == 0 ? 8u : (bits & 3u) == 0 ? 4u : 0u;
}

/* Fills an edge or unaligned tile: each thread a 16-column strip of every
 * 32nd row, as the whole-tile path does, from W's extent [lo, hi). A whole
 * chunk of rows aligned to `unit` (sg_k_async_unit) goes by cp.async in
 * pieces of that size, with the tile's group; the rest (chunks cut by the
 * edge, rows 2-byte aligned or odd) is gathered now (sg_k_load16_any).
 * rows (1 .. ROWS: a realigned tile's count takes in the rows below it)
 * and cols (1 .. SG_K_TILE) are the extent to fill; slots past it stay
 * stale, and the drain never emits them. Gathered rows wait for
 * their loads one after another, which held [3000, 1000] (8-byte aligned
 * rows) to half of the copy; loading a thread's four rows before storing
 * any spilled registers in the narrow transpose. */
template <uint32_t ROWS>
__device__ __forceinline__ void sg_k_tile_fill_any(sg_k_tile_rows<ROWS> &sh, const uint8_t *src,
                                                   uint64_t ld, uint32_t rows, uint32_t cols,
                                                   uint32_t unit, const uint8_t *lo,
                                                   const uint8_t *hi) {
  const uint32_t q = threadIdx.x & 7u;
  const uint32_t c = 16u * q;
  const uint32_t n = c < cols ? min(cols - c, 16u) : 0u;
  if (n == 0) {
    return;
  }
  for (uint32_t row = threadIdx.x >> 3; row < rows; row += SG_K_THREADS / 8) {
    uint4 *dst = &sh.chunk[sg_k_slot(row, q)];
    const uint8_t *p = src + row * ld + c;
    if (n == 16u && unit == 16u) {
      sg_k_cp_async16(dst, p);
    } else if (n == 16u && unit == 8u) {
      sg_k_cp_async8(dst, p);
      sg_k_cp_async8(reinterpret_cast<uint8_t *>(dst) + 8, p + 8);
    } else if (n == 16u && unit == 4u) {
#pragma unroll
      for (uint32_t k = 0; k < 16u; k += 4u) {
        sg_k_cp_async4(reinterpret_cast<uint8_t *>(dst) + k, p + k);
      }
    } else {
      *dst = sg_k_load16_any(p, n, lo, hi);
    }
  }
}

/* o_k = byte k of a0, a1, a2, a3: a 4x4 byte transpose. */
__device__ __forceinline__ void sg_k_transpose4x4(uint32_t a0, uint32_t a1, uint32_t a2,
                                                  uint32_t a3, uint32_t o[4]) {
  const uint32_t t0 = __byte_perm(a0, a1, 0x5140);
  const uint32_t t1 = __byte_perm(a2, a3, 0x5140);
  const uint32_t t2 = __byte_perm(a0, a1, 0x7362);
  const uint32_t t3 = __byte_perm(a2, a3, 0x7362);
  o[0] = __byte_perm(t0, t1, 0x5410);
  o[1] = __byte_perm(t0, t1, 0x7632);
  o[2] = __byte_perm(t2, t3, 0x5410);
  o[3] = __byte_perm(t2, t3, 0x7632);
}

/* The drain's thread map: W rows r .. r + 15 (16 bytes of each Wt row) and
 * W columns c .. c + 3 (4 Wt rows); 8 lanes cover 128 consecutive bytes of
 * a Wt row. */
__device__ __forceinline__ uint32_t sg_k_drain_row() { return 16u * (threadIdx.x & 7u); }
__device__ __forceinline__ uint32_t sg_k_drain_col() {
  return 16u * (threadIdx.x >> 5) + 4u * ((threadIdx.x & 31u) >> 3);
}

/* The thread's 16 x 4 block of the tile as 16 words, transposed in
 * registers with byte permutes: o[t][k] holds bytes 4t .. 4t+3 of Wt row
 * c + k's 16 bytes. */
template <uint32_t ROWS>
__device__ __forceinline__ void sg_k_tile_transpose16x4(const sg_k_tile_rows<ROWS> &sh, uint32_t r,
                                                        uint32_t o[4][4]) {
  const uint32_t lane = threadIdx.x & 31u;
  const uint32_t warp = threadIdx.x >> 5;
  const uint32_t *words = reinterpret_cast<const uint32_t *>(sh.chunk);
  uint32_t a[16];
#pragma unroll
  for (int i = 0; i < 16; i++) {
    a[i] = words[4u * sg_k_slot(r + i, warp) + (lane >> 3)];
  }
#pragma unroll
  for (int t = 0; t < 4; t++) {
    sg_k_transpose4x4(a[4 * t], a[4 * t + 1], a[4 * t + 2], a[4 * t + 3], o[t]);
  }
}

/* Writes rows r0 .. r0 + rows - 1 of the slots, transposed, to Wt: a
 * tile whose origin in Wt is wt and whose extent in W is rows x cols (r0
 * a multiple of 16: block scaling puts two tiles of up to 64 rows in one
 * tile's slots, refresh_block.cuh). Each thread reads a 16 x 4 block as
 * 16 words and transposes it in registers with byte permutes.
 * VEC: rows is a multiple of 16 and Wt's rows are aligned, so every store
 * is a whole vector; otherwise each Wt row's up to 16 bytes go out as a
 * vector where the row allows it, else as aligned words with single bytes
 * at the ends (sg_k_store16_any), and rows past the tile's extent are read
 * stale and never written. (Picking the bytes out of shared memory one by
 * one instead made these tiles' drain eight times the instructions of a
 * whole one.) */
template <bool VEC, uint32_t ROWS>
__device__ __forceinline__ void sg_k_tile_drain_from(const sg_k_tile_rows<ROWS> &sh, uint32_t r0,
                                                     uint8_t *wt, uint64_t ld_wt, uint32_t rows,
                                                     uint32_t cols) {
  const uint32_t r = sg_k_drain_row();
  const uint32_t c = sg_k_drain_col();
  if (r < r0 || r - r0 >= rows || c >= cols) {
    return;
  }
  uint32_t o[4][4];
  sg_k_tile_transpose16x4(sh, r, o);
  uint8_t *out = wt + c * ld_wt + (r - r0);
  const uint32_t n = min(rows - (r - r0), 16u);
#pragma unroll
  for (uint32_t k = 0; k < 4; k++) {
    if (c + k < cols) {
      const uint4 v = make_uint4(o[0][k], o[1][k], o[2][k], o[3][k]);
      if constexpr (VEC) {
        sg_k_store_bytes16(out, v);
      } else {
        sg_k_store16_any(out, v, n);
      }
    }
    out += ld_wt;
  }
}

/* The whole tile's slots to Wt (rows from slot row 0). */
template <bool VEC, uint32_t ROWS>
__device__ __forceinline__ void sg_k_tile_drain(const sg_k_tile_rows<ROWS> &sh, uint8_t *wt,
                                                uint64_t ld_wt, uint32_t rows, uint32_t cols) {
  sg_k_tile_drain_from<VEC>(sh, 0u, wt, ld_wt, rows, cols);
}

/* The realigned drain's pieces of the 16 rows from W row r, where `mine`
 * (the thread's drain block): read as words, transposed, and put back as
 * piece r / 16 of each of the thread's Wt rows m, in the slot of W row r +
 * m (chunk w of every row is warp w's alone). */
__device__ __forceinline__ void sg_k_realign_pieces(sg_k_ring_tile<true> &sh, uint32_t r,
                                                    bool mine, uint32_t cols) {
  const uint32_t warp = threadIdx.x >> 5;
  const uint32_t c = sg_k_drain_col();
  uint32_t o[4][4];
  if (mine) {
    sg_k_tile_transpose16x4(sh, r, o);
  }
  __syncwarp(); /* the warp's words are read before its slots change */
  if (mine) {
#pragma unroll
    for (uint32_t k = 0; k < 4; k++) {
      if (c + k < cols) {
        const uint32_t m = c + k - 16u * warp;
        sh.chunk[sg_k_slot(r + m, warp)] = make_uint4(o[0][k], o[1][k], o[2][k], o[3][k]);
      }
    }
  }
}

/* sg_k_tile_drain for odd Wt rows (in the instance with the realigned
 * drain only), without a store per
 * 16 bytes of each (on [50257, 768], whose Wt rows start at every
 * address, those single-byte and word stores used 4.7 of the 32 bytes of
 * an L2 sector and held the transpose to 30% of the copy). Warp w reads
 * chunk w of every W row, W columns 16w .. 16w + 15, which are its Wt rows
 * 16w + m; so it puts the transposed pieces back into those same slots,
 * piece p of row m in the slot of W row 16p + m (a quarter-warp's 8
 * pieces of a row in 8 distinct bank groups), piece 8 from the rows below
 * the tile (read by the lanes whose drain row is 0, lane & 7 == 0), and then 8
 * lanes a row store the row's aligned vectors whole, each shifted out of
 * two of its pieces (sg_k_row_pieces: the tile's share of the row, so
 * that only the row's two ends are words and bytes). filled: the W rows
 * filled, the tile's and those below it; first: the tile starts its Wt
 * rows. No other warp touches these slots, so warp barriers
 * suffice. Its instance's narrow layout runs 3 blocks a multiprocessor
 * (sg_k_min_blocks): at 4 (64 registers) this drain spilled, inlined or
 * as a call, and [50257, 768] ran at 43-45% of the copy on the H200, at 3
 * (80 registers) 76-78% (77-82% as a call). */
__device__ __forceinline__ void sg_k_tile_drain_realigned(sg_k_ring_tile<true> &sh, uint8_t *wt,
                                                          uint64_t ld_wt, uint32_t cols,
                                                          uint32_t filled, bool first) {
  const uint32_t lane = threadIdx.x & 31u;
  const uint32_t warp = threadIdx.x >> 5;
  const uint32_t c = sg_k_drain_col();
  sg_k_realign_pieces(sh, sg_k_drain_row(), sg_k_drain_row() < filled && c < cols, cols);
  sg_k_realign_pieces(sh, SG_K_TILE, (lane & 7u) == 0 && filled > SG_K_TILE && c < cols, cols);
  __syncwarp();
  for (uint32_t m = lane >> 3; m < 16u && 16u * warp + m < cols; m += 4u) {
    uint8_t *dst = wt + (16u * warp + m) * ld_wt;
    sg_k_row_pieces(reinterpret_cast<uintptr_t>(dst), filled, first, lane & 7u,
                    [&](uint32_t at, uint32_t len) {
                      const uint32_t p = at / 16u;
                      const uint32_t shift = at & 15u;
                      const uint4 lo = sh.chunk[sg_k_slot(16u * p + m, warp)];
                      /* the next piece only where this one reaches it: inside the row */
                      const uint4 hi =
                          shift + len > 16u ? sh.chunk[sg_k_slot(16u * (p + 1u) + m, warp)] : lo;
                      sg_k_store16_any(dst + at, sg_k_shift16(lo, hi, shift), len);
                    });
  }
}

#endif /* SG_KERNELS_REFRESH_TILE_CUH */

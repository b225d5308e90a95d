/* The cast-transpose mode's pipeline. Master rows of a block's tiles (dealt
 * round-robin one at a time: refresh_schedule.cuh) stream into a ring of
 * 16 KB stages with cp.async, in units of 32 rows (FP32) or 64 rows (BF16),
 * three (narrow layout) or five (wide) units ahead of the conversion, so
 * loads stay in flight through conversions, drains, tile and parameter
 * changes (loading each tile's rows into registers, four dependent rounds a
 * tile, reached 83% / 74% of the copy on the GPT set; this, 89-92% /
 * 84-87%). Each unit is converted from shared memory: the codes go to W and
 * into a code tile, which drains to Wt (refresh_tile.cuh) once all of its
 * units are in. Edge and unaligned tiles are one unit converted straight
 * from global memory, 16 elements a thread at a time; so is a span of a
 * dense vector (SG_K_VEC_SPANS), whose codes go to W and to the same bytes
 * of Wt. In the instance with the realigned drain (a ring whose code tiles
 * hold SG_K_BELOW more rows), a tile of odd long Wt rows
 * (SG_K_VEC_REALIGN_CT) also stages and converts the 16 rows below it, and
 * stores its share of each Wt row as aligned vectors (refresh_tile.cuh),
 * where its drain stored a scatter of words and single bytes per 16 bytes
 * (GPT-2's [50257, 768] from BF16 at 48% of the copy, H100). */
#ifndef SG_KERNELS_REFRESH_CAST_TRANSPOSE_CUH
#define SG_KERNELS_REFRESH_CAST_TRANSPOSE_CUH

#include <stdint.h>

#include "fp8_convert.cuh"
#include "refresh_amax.cuh"
#include "refresh_io.cuh"
#include "refresh_schedule.cuh"
#include "refresh_table.h"
#include "refresh_tile.cuh"

enum : uint32_t {
  SG_K_CT_E5M2 = 1u,   /* format E5M2 (else E4M3) */
  SG_K_CT_BF16 = 2u,   /* master BF16 (else FP32) */
  SG_K_CT_STAGED = 4u, /* the unit is in its stage (else: straight from global memory) */
  SG_K_CT_FIRST = 8u,  /* the tile's first unit */
  SG_K_CT_VEC_WT = 16u, /* the tile drains as whole vectors */
  SG_K_CT_VEC_MASTER = 32u, /* the master's rows are 16-byte aligned */
  SG_K_CT_SHIFTED = 64u,    /* they are not, and the tile's vectors lie inside the master */
  SG_K_CT_LINEAR = 128u,    /* a span of a dense vector (sg_k_ct_span_job) */
  SG_K_CT_REALIGN = 256u,   /* converts `below` rows under the tile, drains realigned */
  SG_K_CT_ROW_START = 512u  /* the tile is its Wt rows' first (a realigned drain's head) */
};
constexpr uint32_t SG_K_CT_END = 0xFFFFFFFFu; /* sg_k_ct_job.p: no more units */
constexpr uint32_t SG_K_STAGE_BYTES = 16384;

/* A unit: rows [row0, row0 + rows) of a tile, and what converting and
 * draining it needs. Written by thread 0 when the unit is issued. */
struct sg_k_ct_job {
  const char *m; /* master, W and Wt at the tile's origin */
  uint8_t *w, *wt;
  uint64_t ld_m, ld_w, ld_wt; /* in elements */
  uint32_t p;                 /* descriptor, or SG_K_CT_END */
  uint32_t row0, rows, tile_rows, tile_cols;
  uint32_t last_cols; /* of the tile's last row: tile_cols, or less in a span */
  uint32_t flags;
  uint32_t below; /* SG_K_CT_REALIGN: W rows under the tile converted with it */
};

/* What the amax of the unit's parameter needs, copied by cp.async with the
 * unit (from the descriptor and *scale), so that no register carries it
 * while the unit is in flight. */
struct sg_k_ct_param {
  float *amax, *scale_inv;
  uint64_t items; /* the parameter's */
  float s;
  uint32_t pad_;
};

/* The drain of a tile's code buffer. */
struct sg_k_ct_tile {
  uint8_t *wt;
  uint64_t ld_wt;
  uint32_t rows, cols, flags, below;
};

/* Partial amax of parameters this block shares with others, merged into the
 * scratch when the block is done (one fenced atomic chain per parameter and
 * block, off the pipeline's path), for the group's first SG_K_CT_DEFERRED
 * parameters. 256 keeps the ring under the 99 KB a block may have on
 * sm_86/89 GPUs. */
constexpr uint32_t SG_K_CT_DEFERRED = 256;

/* Master stages of the wide layout's ring, one block per multiprocessor
 * (the narrow layout's has 4, two blocks per multiprocessor). On the GPT set
 * BF16 reached 87.4% of the copy with 6, 87.8% with 8 and 87.1% with 10,
 * against 83.8% narrow; 6 leaves the most shared memory to L1. */
constexpr uint32_t SG_K_CT_WIDE_STAGES = 6;

/* BELOW: 0, or SG_K_BELOW in the instance with the realigned drain, whose
 * code tiles hold the rows below a tile too. */
template <uint32_t STAGES, uint32_t BELOW = 0>
struct sg_k_ct_ring {
  static constexpr uint32_t kStages = STAGES; /* STAGES - 1 units in flight */
  static constexpr uint32_t kBelow = BELOW;
  uint4 stage[kStages][SG_K_STAGE_BYTES / 16];
  sg_k_tile_rows<SG_K_TILE + BELOW> code[2];
  sg_k_ct_job job[kStages];
  sg_k_ct_param param[kStages];
  sg_k_ct_tile drain[2];  /* of code[0], code[1] */
  sg_k_ct_param run[2];   /* thread 0's copy for the runs of sg_k_amax_slots */
  sg_k_amax_slots slots;
  uint32_t deferred_bits[SG_K_CT_DEFERRED];
  uint32_t deferred_items[SG_K_CT_DEFERRED];
};
static_assert(sizeof(sg_k_ct_ring<4>) <= 99u * 1024u,
              "the narrow ring fits the 99 KB a block may have on sm_86/89");

/* Master layout in a stage: rows of 128 elements, each 16-element chunk q
 * (P = 4 or 2 pieces of 16 bytes) with its pieces rotated by q, so that the
 * 8 threads converting one row (chunks 0..7) read 8 distinct bank groups. */
template <uint32_t DT>
struct sg_k_stage_layout {
  static constexpr uint32_t kElem = sg_k_master16<DT>::kElemBytes;
  static constexpr uint32_t kPieces = kElem;                /* per chunk */
  static constexpr uint32_t kRowPieces = SG_K_TILE * kElem / 16;
  static constexpr uint32_t kRows = SG_K_STAGE_BYTES / (SG_K_TILE * kElem);

  __device__ static __forceinline__ uint32_t piece(uint32_t row, uint32_t q, uint32_t i) {
    return row * kRowPieces + q * kPieces + (i ^ ((q / (8u / kPieces)) & (kPieces - 1u)));
  }
};

/* Tile rows per unit: one stage of master. */
__device__ __forceinline__ uint32_t sg_k_unit_rows(bool bf16) {
  return bf16 ? sg_k_stage_layout<SG_K_MASTER_BF16>::kRows
              : sg_k_stage_layout<SG_K_MASTER_FP32>::kRows;
}

/* Starts the copy of `rows` master rows from m (ld_m elements apart). */
template <uint32_t DT>
__device__ __forceinline__ void sg_k_stage_rows(uint4 *stage, const char *m, uint64_t ld_m,
                                                uint32_t rows) {
  using L = sg_k_stage_layout<DT>;
  for (uint32_t g = threadIdx.x; g < rows * L::kRowPieces; g += SG_K_THREADS) {
    const uint32_t row = g / L::kRowPieces;
    const uint32_t piece = g % L::kRowPieces;
    sg_k_cp_async16(&stage[L::piece(row, piece / L::kPieces, piece % L::kPieces)],
                    reinterpret_cast<const uint8_t *>(m) + row * ld_m * L::kElem + 16u * piece);
  }
}

/* Block-wide state of the issuing side: the cursor and the tile whose units
 * it is issuing. Tiles are dealt one by one (chunks of one tile): with
 * larger chunks a block's consecutive small parameters were cast one after
 * another instead of beside their neighbours', which cost the many-small
 * set 6-15%. */
using sg_k_ct_chunk = sg_k_chunk<1, 1>;
using sg_k_ct_cursor = sg_k_cursor<SG_K_MODE_CAST_TRANSPOSE, sg_k_ct_chunk>;

struct sg_k_ct_issuer {
  const sg_k_desc *descs;
  sg_k_scratch *scratch; /* current scaling's scales */
  sg_k_ct_cursor cur;
  sg_k_ct_job tile; /* row0, rows and the FIRST flag are per unit */
  const float *scale;
  uint32_t unit, units;
};

/* The flags of v's format and master dtype. */
__device__ __forceinline__ uint32_t sg_k_ct_kind_flags(const sg_k_view &v) {
  return (v.format == SG_K_FP8_E5M2 ? SG_K_CT_E5M2 : 0u) |
         (v.master_dtype == SG_K_MASTER_BF16 ? SG_K_CT_BF16 : 0u);
}

/* The job of span `local` of parameter v (descriptor p, SG_K_VEC_SPANS): its
 * SG_K_LINEAR_ITEM elements as rows of SG_K_TILE, the last one short, in
 * W, Wt (the same bytes, 16-byte aligned) and the master alike; one unit
 * converted straight from global memory (no stage, no code tile, no
 * drain). Its strips may load shifted where all of the span's vectors lie
 * inside the master (a check per strip held two more registers a job and
 * spilled the narrow instance). */
__device__ __forceinline__ sg_k_ct_job sg_k_ct_span_job(const sg_k_view &v, uint32_t p,
                                                        uint64_t local) {
  const uint32_t elem = v.master_dtype == SG_K_MASTER_BF16 ? 2u : 4u;
  const uint64_t first = local * SG_K_LINEAR_ITEM;
  const uint32_t n = sg_k_linear_bytes(v.rows, v.cols, local);
  const uint32_t rows = (n + SG_K_TILE - 1) / SG_K_TILE;
  const char *m = v.master + first * elem;
  const uint32_t load = sg_k_span_load(v.master, v.rows * v.cols, local, elem);
  const uint32_t flags = SG_K_CT_LINEAR | sg_k_ct_kind_flags(v) |
                         (load == SG_K_SPAN_VECTORS   ? SG_K_CT_VEC_MASTER
                          : load == SG_K_SPAN_SHIFTED ? SG_K_CT_SHIFTED
                                                      : 0u);
  return sg_k_ct_job{m,          v.w + first, v.wt + first, SG_K_TILE, SG_K_TILE, SG_K_TILE, p, 0,
                     rows,       rows,        SG_K_TILE,    n - (rows - 1u) * SG_K_TILE,   flags,
                     0};
}

/* Makes item `local` of v (descriptor p) the tile being issued. WHOLE: the
 * launch's plan says every tile is whole and aligned (sg_k_plan.whole), so
 * each is staged and drains as vectors; the instance has no other path.
 * REALIGN: the instance has the realigned drain; a tile of a parameter
 * with SG_K_VEC_REALIGN_CT (always staged) then takes the rows below it
 * into its units. */
template <bool WHOLE, bool REALIGN>
__device__ __forceinline__ void sg_k_ct_set_tile(sg_k_ct_issuer &is, const sg_k_view &v,
                                                 uint32_t p, uint64_t local) {
  is.scale = sg_k_scale_ptr(v.scale, is.scratch + p);
  is.unit = 0;
  if (!WHOLE && (v.vec & SG_K_VEC_SPANS) != 0) {
    is.tile = sg_k_ct_span_job(v, p, local);
    is.units = 1;
    return;
  }
  uint64_t r0, c0;
  sg_k_tile_origin<sg_k_ct_chunk>(v, local, r0, c0);
  const uint32_t rows = static_cast<uint32_t>(min(v.rows - r0, uint64_t{SG_K_TILE}));
  const uint32_t cols = static_cast<uint32_t>(min(v.cols - c0, uint64_t{SG_K_TILE}));
  const bool bf16 = v.master_dtype == SG_K_MASTER_BF16;
  const uint32_t unit_rows = sg_k_unit_rows(bf16);
  const bool staged = WHOLE || (cols == SG_K_TILE && (v.vec & SG_K_VEC_MASTER) != 0 &&
                                (v.vec & SG_K_VEC_W) != 0);
  uint32_t flags = sg_k_ct_kind_flags(v) | (staged ? SG_K_CT_STAGED : 0u) |
                   ((v.vec & SG_K_VEC_MASTER) != 0 ? SG_K_CT_VEC_MASTER : 0u);
  if (WHOLE || (rows % 16u == 0 && (v.vec & SG_K_VEC_WT) != 0)) {
    flags |= SG_K_CT_VEC_WT;
  }
  uint32_t below = 0;
  if (REALIGN && (v.vec & SG_K_VEC_REALIGN_CT) != 0) {
    below = sg_k_below_of(v.rows, r0, rows);
    flags |= SG_K_CT_REALIGN | (r0 == 0 ? SG_K_CT_ROW_START : 0u);
  }
  const char *m = v.master + (r0 * v.ld_master + c0) * (bf16 ? 2u : 4u);
  if (!WHOLE && (v.vec & SG_K_VEC_MASTER) == 0 &&
      sg_k_tile_vectors_inside(v.master, v.rows, v.cols, m, rows, cols, v.ld_master,
                               bf16 ? 2u : 4u)) {
    flags |= SG_K_CT_SHIFTED;
  }
  is.tile = sg_k_ct_job{m,
                        v.w + r0 * v.ld_w + c0,
                        v.wt + c0 * v.ld_wt + r0,
                        v.ld_master,
                        v.ld_w,
                        v.ld_wt,
                        p,
                        0,
                        rows,
                        rows,
                        cols,
                        cols,
                        flags,
                        below};
  is.units = staged ? (rows + below + unit_rows - 1) / unit_rows : 1u;
}

/* Takes the cursor's next tile and starts loading the view of the one
 * after; false past the block's last one. */
template <bool WHOLE, bool REALIGN>
__device__ __forceinline__ bool sg_k_ct_take_tile(sg_k_ct_issuer &is) {
  if (!sg_k_cursor_item(is.cur, 0)) {
    return false;
  }
  sg_k_ct_set_tile<WHOLE, REALIGN>(is, is.cur.view[0], is.cur.p[0],
                                   is.cur.j - is.cur.view[0].first);
  sg_k_cursor_advance(is.cur);
  return true;
}

/* Issues the next unit into stage s: its master rows (when staged), its job
 * and its parameter's amax fields. Past the block's last tile the job says
 * SG_K_CT_END. */
template <bool WHOLE, bool REALIGN, class Ring>
__device__ __forceinline__ void sg_k_ct_issue(Ring &ring, uint32_t s,
                                              sg_k_ct_issuer &is) {
  if (is.unit == is.units && !sg_k_ct_take_tile<WHOLE, REALIGN>(is)) {
    if (threadIdx.x == 0) {
      ring.job[s].p = SG_K_CT_END;
    }
    return;
  }
  sg_k_ct_job job = is.tile;
  if (WHOLE || (job.flags & SG_K_CT_STAGED) != 0) {
    const bool bf16 = (job.flags & SG_K_CT_BF16) != 0;
    job.row0 = is.unit * sg_k_unit_rows(bf16);
    job.rows = min(job.tile_rows + job.below - job.row0, sg_k_unit_rows(bf16));
    if (bf16) {
      sg_k_stage_rows<SG_K_MASTER_BF16>(ring.stage[s], job.m + job.row0 * job.ld_m * 2u, job.ld_m,
                                        job.rows);
    } else {
      sg_k_stage_rows<SG_K_MASTER_FP32>(ring.stage[s], job.m + job.row0 * job.ld_m * 4u, job.ld_m,
                                        job.rows);
    }
  }
  if (threadIdx.x == 0) {
    job.flags |= is.unit == 0 ? SG_K_CT_FIRST : 0u;
    ring.job[s] = job;
    const sg_k_desc &d = is.descs[job.p];
    sg_k_ct_param &param = ring.param[s];
    sg_k_cp_async8(&param.amax, &d.amax);
    sg_k_cp_async8(&param.scale_inv, &d.scale_inv);
    sg_k_cp_async8(&param.items, &d.items[SG_K_MODE_CAST_TRANSPOSE]);
    sg_k_cp_async4(&param.s, is.scale);
  }
  is.unit++;
}

/* Converts a staged unit: each thread one 16-element chunk per 32 rows
 * (the rows below a realigned tile into the code tile only: W's are the
 * next tile's). */
template <uint32_t FMT, uint32_t DT, bool REALIGN, uint32_t ROWS>
__device__ __forceinline__ void sg_k_ct_convert_staged(const uint4 *stage, const sg_k_ct_job &job,
                                                       float s, sg_k_tile_rows<ROWS> &code,
                                                       uint32_t &amax_bits) {
  using L = sg_k_stage_layout<DT>;
  const uint32_t q = threadIdx.x & 7u;
  for (uint32_t row = threadIdx.x >> 3; row < job.rows; row += SG_K_THREADS / 8) {
    sg_k_master16<DT> m;
#pragma unroll
    for (uint32_t i = 0; i < L::kPieces; i++) {
      m.set_vector(static_cast<int>(i), stage[L::piece(row, q, i)]);
    }
    const uint4 codes = sg_k_cast16<FMT, DT>(m, s, amax_bits);
    const uint32_t r = job.row0 + row;
    if (!REALIGN || r < job.tile_rows) {
      sg_k_store_bytes16(job.w + r * job.ld_w + 16u * q, codes);
    }
    code.chunk[sg_k_slot(r, q)] = codes;
  }
}

/* Elements of the job's row `row` in the strip at column c (0..16). */
__device__ __forceinline__ uint32_t sg_k_ct_strip(const sg_k_ct_job &job, uint32_t row,
                                                  uint32_t c) {
  const uint32_t cols = row + 1u == job.tile_rows ? job.last_cols : job.tile_cols;
  return row < job.tile_rows && c < cols ? min(cols - c, 16u) : 0u;
}

/* Converts an edge or unaligned tile, or a span, straight from global
 * memory, each thread a 16-column strip of every 32nd row (refresh_io.cuh:
 * a vector where the master's rows are aligned and the strip whole, the
 * aligned vectors around it where they are not, else element by element,
 * past the edge zeros, which no amax notices): the 16 codes at once, to W
 * at the widest alignment it has (sg_k_store16_any), or, in a tile whose W
 * rows are not 8-byte aligned, as the row's aligned vectors
 * (sg_k_store_row: on the H100, 8 x [1024, 4099] cast-transposed 4-5
 * points of the copy faster, while [3000, 1000]'s 8-byte aligned rows ran
 * 2-4 points slower so); and into the code tile (SPAN: to Wt's same
 * bytes). A tile's warp advances through its rows together, for the
 * shuffle of sg_k_store_row: a lane past the tile's last row converts
 * zeros and stores nothing. In a span a thread loads kBatch strips
 * before it converts the first, so that their loads are in flight together
 * (on the H200 the mixed set's cast-transpose from BF16 ran at 49% of the
 * copy with 2 strips at a time, 57% with 4; 4 FP32 strips spilled in the
 * narrow instance). Tiles take one strip at a time: batched like a span,
 * 8 x [1024, 4099] took 105 us from BF16 where they took 89. */
template <uint32_t FMT, uint32_t DT, bool SPAN, uint32_t ROWS>
__device__ __forceinline__ void sg_k_ct_convert_elements(const sg_k_ct_job &job, float s,
                                                         sg_k_tile_rows<ROWS> &code,
                                                         uint32_t &amax_bits) {
  constexpr uint64_t kElem = sg_k_master16<DT>::kElemBytes;
  constexpr uint32_t kStep = SG_K_THREADS / 8;
  constexpr uint32_t kBatch = !SPAN ? 1u : DT == SG_K_MASTER_FP32 ? 2u : 4u;
  const uint32_t q = threadIdx.x & 7u;
  const uint32_t c = 16u * q;
  const uint32_t lane_row = (threadIdx.x >> 3) & 3u; /* of the warp's 4 rows */
  const bool vec = (job.flags & SG_K_CT_VEC_MASTER) != 0;
  const bool shifted = (job.flags & SG_K_CT_SHIFTED) != 0;
  const bool w_rows_odd = !SPAN && ((reinterpret_cast<uintptr_t>(job.w) | job.ld_w) & 7u) != 0;
  /* a span's lanes leave one by one, as in the loop that was measured */
  const uint32_t leave = SPAN ? lane_row : 0u;
#pragma unroll 1
  for (uint32_t warp_row = 4u * (threadIdx.x >> 5); warp_row + leave < job.tile_rows;
       warp_row += kBatch * kStep) {
    sg_k_master16<DT> m[kBatch];
    uint32_t n[kBatch];
#pragma unroll
    for (uint32_t b = 0; b < kBatch; b++) {
      const uint32_t row = warp_row + lane_row + kStep * b;
      n[b] = sg_k_ct_strip(job, row, c);
      m[b] = sg_k_load_strip<DT>(job.m + (row * job.ld_m + c) * kElem, n[b], vec && n[b] == 16u,
                                 shifted && n[b] == 16u);
    }
#pragma unroll
    for (uint32_t b = 0; b < kBatch; b++) {
      const uint32_t row = warp_row + lane_row + kStep * b;
      if (w_rows_odd) {
        const uint4 codes = sg_k_cast16<FMT, DT>(m[b], s, amax_bits);
        sg_k_store_row(job.w + row * job.ld_w, job.tile_cols, codes, row < job.tile_rows);
        if (n[b] > 0) {
          code.chunk[sg_k_slot(row, q)] = codes;
        }
      } else if (n[b] > 0) {
        const uint4 codes = sg_k_cast16<FMT, DT>(m[b], s, amax_bits);
        sg_k_store16_any(job.w + row * job.ld_w + c, codes, n[b]);
        if constexpr (SPAN) {
          sg_k_store16_any(job.wt + row * job.ld_wt + c, codes, n[b]);
        } else {
          code.chunk[sg_k_slot(row, q)] = codes;
        }
      }
    }
  }
}

template <bool WHOLE, bool REALIGN, uint32_t FMT, uint32_t DT, uint32_t ROWS>
__device__ __forceinline__ void sg_k_ct_convert_as(const uint4 *stage, const sg_k_ct_job &job,
                                                   float s, sg_k_tile_rows<ROWS> &code,
                                                   uint32_t &amax_bits) {
  if (WHOLE || (job.flags & SG_K_CT_STAGED) != 0) {
    sg_k_ct_convert_staged<FMT, DT, REALIGN>(stage, job, s, code, amax_bits);
  } else if constexpr (!WHOLE) {
    if ((job.flags & SG_K_CT_LINEAR) != 0) {
      sg_k_ct_convert_elements<FMT, DT, true>(job, s, code, amax_bits);
    } else {
      sg_k_ct_convert_elements<FMT, DT, false>(job, s, code, amax_bits);
    }
  }
}

template <bool WHOLE, bool REALIGN, uint32_t ROWS>
__device__ __forceinline__ void sg_k_ct_convert(const uint4 *stage, const sg_k_ct_job &job,
                                                float s, sg_k_tile_rows<ROWS> &code,
                                                uint32_t &amax_bits) {
  constexpr uint32_t E4 = SG_K_FP8_E4M3, E5 = SG_K_FP8_E5M2;
  constexpr uint32_t F32 = SG_K_MASTER_FP32, B16 = SG_K_MASTER_BF16;
  const bool bf16 = (job.flags & SG_K_CT_BF16) != 0;
  if ((job.flags & SG_K_CT_E5M2) == 0) {
    bf16 ? sg_k_ct_convert_as<WHOLE, REALIGN, E4, B16>(stage, job, s, code, amax_bits)
         : sg_k_ct_convert_as<WHOLE, REALIGN, E4, F32>(stage, job, s, code, amax_bits);
  } else {
    bf16 ? sg_k_ct_convert_as<WHOLE, REALIGN, E5, B16>(stage, job, s, code, amax_bits)
         : sg_k_ct_convert_as<WHOLE, REALIGN, E5, F32>(stage, job, s, code, amax_bits);
  }
}

template <bool WHOLE, bool REALIGN, uint32_t ROWS>
__device__ __forceinline__ void sg_k_ct_drain(sg_k_tile_rows<ROWS> &code, const sg_k_ct_tile &t) {
  if (!WHOLE && (t.flags & SG_K_CT_LINEAR) != 0) {
    return; /* a span's Wt is written */
  }
  if constexpr (REALIGN) {
    if ((t.flags & SG_K_CT_REALIGN) != 0) {
      sg_k_tile_drain_realigned(code, t.wt, t.ld_wt, t.cols, t.rows + t.below,
                                (t.flags & SG_K_CT_ROW_START) != 0);
      return;
    }
  }
  if (WHOLE || (t.flags & SG_K_CT_VEC_WT) != 0) {
    sg_k_tile_drain<true>(code, t.wt, t.ld_wt, t.rows, t.cols);
  } else if constexpr (!WHOLE) {
    sg_k_tile_drain<false>(code, t.wt, t.ld_wt, t.rows, t.cols);
  }
}

/* A run: this block's consecutive tiles (or spans) of one parameter, whose
 * amax it merges once; its parameter's fields are in ring.run[half]
 * (thread 0's). p == SG_K_CT_END: none. */
struct sg_k_ct_run {
  uint32_t p, half;
  uint64_t tiles;
};

/* Thread 0, after the barrier that follows the run's stash: the block's
 * share of the parameter's amax, written now when the block did all of its
 * tiles, else kept for sg_k_ct_flush (or merged now past its capacity). */
template <class Ring>
__device__ __forceinline__ void sg_k_ct_publish(Ring &ring, const sg_k_ct_run &run,
                                                sg_k_scratch *scratch, uint32_t pb) {
  const uint32_t bits = sg_k_amax_merged(ring.slots, run.half);
  const sg_k_ct_param &f = ring.run[run.half];
  const uint32_t e = run.p - pb;
  if (run.tiles == f.items || e >= SG_K_CT_DEFERRED) {
    sg_k_amax_publish(sg_k_amax_outputs(f.amax, f.scale_inv, f.s, f.items, scratch + run.p),
                      bits, run.tiles);
  } else {
    ring.deferred_bits[e] = bits;
    ring.deferred_items[e] = static_cast<uint32_t>(run.tiles);
  }
}

/* All threads, once the block is done: merges the kept shares. */
template <class Ring>
__device__ __forceinline__ void sg_k_ct_flush(const Ring &ring, const sg_k_desc *descs,
                                              sg_k_scratch *scratch, uint32_t pb, uint32_t pe) {
  const uint32_t n = min(pe - pb, SG_K_CT_DEFERRED);
  for (uint32_t e = threadIdx.x; e < n; e += SG_K_THREADS) {
    if (ring.deferred_items[e] != 0) {
      const sg_k_desc &d = descs[pb + e];
      sg_k_scratch *mine = scratch + pb + e;
      const sg_k_amax_target t = sg_k_amax_outputs(
          d.amax, d.scale_inv, *sg_k_scale_ptr(d.scale, mine), d.items[SG_K_MODE_CAST_TRANSPOSE],
          mine);
      sg_k_amax_publish(t, ring.deferred_bits[e], ring.deferred_items[e]);
    }
  }
}

/* At a tile's first unit (or the end): drains the previous tile, ends the
 * run when the parameter changes, starts the new tile's drain record and
 * run. Returns false at the end. */
template <bool WHOLE, bool REALIGN, class Ring>
__device__ __forceinline__ bool sg_k_ct_next_tile(Ring &ring, uint32_t now,
                                                  bool &have_tile, uint32_t &parity,
                                                  sg_k_ct_run &run, sg_k_ct_run &pending,
                                                  uint32_t &amax_bits) {
  const sg_k_ct_job &job = ring.job[now];
  const uint32_t p = job.p;
  if (have_tile) {
    sg_k_ct_drain<WHOLE, REALIGN>(ring.code[parity], ring.drain[parity]);
    parity ^= 1u;
  }
  if (run.p != SG_K_CT_END && p != run.p) {
    sg_k_amax_stash(amax_bits, ring.slots, run.half);
    amax_bits = 0;
    pending = run;
    run.p = SG_K_CT_END;
    run.half ^= 1u;
  }
  have_tile = p != SG_K_CT_END;
  if (!have_tile) {
    return false;
  }
  if (threadIdx.x == 0) {
    ring.drain[parity] =
        sg_k_ct_tile{job.wt, job.ld_wt, job.tile_rows, job.tile_cols, job.flags, job.below};
  }
  if (run.p == SG_K_CT_END) {
    if (threadIdx.x == 0) {
      ring.run[run.half] = ring.param[now];
    }
    run.p = p;
    run.tiles = 0;
  }
  run.tiles++;
  return true;
}

/* Cast-transposes the cursor's tiles. Unit k sits in stage k % S; the
 * barrier of iteration k makes it (and its job and parameter fields)
 * visible and also ends every use of stage (k-1) % S, which unit k+S-1 then
 * takes. A tile's code buffer drains at its successor's first unit, after
 * the barrier that follows the tile's last conversion; tiles alternate
 * between two buffers, and the barriers in between order each buffer's
 * drain before its refill. A run's amax is stashed when the run ends and
 * merged by thread 0 after the next barrier. The general instance whose
 * ring holds rows below its code tiles has the realigned drain. */
template <bool WHOLE, class Ring>
__device__ __forceinline__ void sg_k_cast_transpose(Ring &ring, sg_k_ct_cursor cur,
                                                    const sg_k_desc *descs,
                                                    sg_k_scratch *scratch) {
  constexpr uint32_t S = Ring::kStages;
  constexpr bool R = !WHOLE && Ring::kBelow > 0;
  static_assert(S >= 3, "a unit must convert while the next loads");
  const uint32_t pb = cur.lo;
  const uint32_t pe = cur.pe;
  for (uint32_t e = threadIdx.x; e < SG_K_CT_DEFERRED; e += SG_K_THREADS) {
    ring.deferred_items[e] = 0;
  }
  sg_k_ct_issuer is{descs, scratch, cur, {}, nullptr, 0, 0};
#pragma unroll 1
  for (uint32_t k = 0; k + 1 < S; k++) {
    sg_k_ct_issue<WHOLE, R>(ring, k, is);
    sg_k_cp_async_commit();
  }
  bool have_tile = false;
  uint32_t parity = 0;
  sg_k_ct_run run{SG_K_CT_END, 0, 0};
  sg_k_ct_run pending{SG_K_CT_END, 0, 0};
  uint32_t amax_bits = 0;
#pragma unroll 1
  for (uint32_t k = 0;; k++) {
    sg_k_cp_async_wait<S - 2>();
    __syncthreads();
    if (pending.p != SG_K_CT_END) {
      if (threadIdx.x == 0) {
        sg_k_ct_publish(ring, pending, scratch, pb);
      }
      pending.p = SG_K_CT_END;
    }
    const uint32_t now = k % S;
    const sg_k_ct_job &job = ring.job[now];
    if ((job.p == SG_K_CT_END || (job.flags & SG_K_CT_FIRST) != 0) &&
        !sg_k_ct_next_tile<WHOLE, R>(ring, now, have_tile, parity, run, pending, amax_bits)) {
      break;
    }
    sg_k_ct_issue<WHOLE, R>(ring, (k + S - 1) % S, is);
    sg_k_cp_async_commit();
    sg_k_ct_convert<WHOLE, R>(ring.stage[now], job, ring.param[now].s, ring.code[parity],
                              amax_bits);
  }
  __syncthreads();
  if (pending.p != SG_K_CT_END && threadIdx.x == 0) {
    sg_k_ct_publish(ring, pending, scratch, pb);
  }
  __syncthreads();
  sg_k_ct_flush(ring, descs, scratch, pb, pe);
}

#endif /* SG_KERNELS_REFRESH_CAST_TRANSPOSE_CUH */

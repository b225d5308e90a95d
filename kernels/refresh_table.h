/* Layout of the refresh table, shared by the host builder (refresh_table.c)
 * and the kernel (refresh_kernel.cu). Not part of the launcher's contract.
 *
 *   [header][desc 0 .. desc capacity-1][scratch 0 .. scratch capacity-1]
 *
 * Descriptors are sorted by group, so a group is one contiguous run that the
 * kernel finds by binary search, and inside a group those whose transpose
 * tiles are all whole (SG_K_VEC_WHOLE_T) first, each part in the caller's
 * order (the cast lists do not care about the order inside a group). Each
 * descriptor carries, per work list (SG_K_LIST_*: one per mode, the amax
 * pass of current scaling, the block-scaled tiles), the index of its first
 * work item in the table-wide list and how many it has; a launch deals its
 * group's part of a list to its blocks (refresh_schedule.cuh). */
#ifndef SG_KERNELS_REFRESH_TABLE_H
#define SG_KERNELS_REFRESH_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "refresh.h"

/* A transpose, cast-transpose or block work item is a tile of SG_K_TILE x
 * SG_K_TILE elements of W (for block scaling also its scaling block); a cast
 * or amax work item is SG_K_CAST_ITEM consecutive elements of the owned
 * flat range. A dense vector's items are SG_K_LINEAR_ITEM consecutive
 * elements instead: its transpose's where it is linear (SG_K_VEC_LINEAR),
 * its cast-transpose's and block scaling's where its master is contiguous
 * too (SG_K_VEC_SPANS). */
#define SG_K_TILE 128u
#define SG_K_CAST_ITEM 8192u
#define SG_K_LINEAR_ITEM (SG_K_TILE * SG_K_TILE)

/* Bits of sg_k_desc.vec: whose rows all start 16-byte aligned, so that
 * tile rows can move as 16-byte vectors; and two recipe facts the tile
 * kernels read with the rest of a descriptor's view. */
enum {
  SG_K_VEC_W = 1u,
  SG_K_VEC_WT = 2u,
  SG_K_VEC_MASTER = 4u,
  SG_K_VEC_GRID = 8u,  /* block scaling: the transpose also moves the grid */
  SG_K_VEC_POW2 = 16u, /* computed scales are rounded down to powers of two */
  /* A dense vector (1 x N with Wt's rows 1 byte apart, N x 1 with W's),
   * W and Wt 16-byte aligned: W and Wt are the same bytes, so its
   * transpose is a copy, in linear items (block scaling's also copies the
   * span's grid entries); as tiles, each item moved one 128-byte row or
   * column. */
  SG_K_VEC_LINEAR = 32u,
  /* Every transpose tile of the parameter is whole (sg_k_whole_lists): the
   * table puts these first in their group, so a launch can move them in
   * the whole instance and the rest in the general one (sg_k_plan.split). */
  SG_K_VEC_WHOLE_T = 64u,
  /* A dense vector (as SG_K_VEC_LINEAR says, any recipe) whose master is
   * contiguous too: its cast-transpose is a cast written to W and Wt's
   * same bytes, and block scaling's blocks are 128 consecutive elements,
   * so both go in spans of SG_K_LINEAR_ITEM elements; as tiles, each item
   * converted one 128-element row or column (on the H200, 8 x [50000, 1]
   * cast-transposed in 66-71 us as tiles, 13-14 us as spans; under block
   * scaling 66 and 11 us). */
  SG_K_VEC_SPANS = 128u,
  /* Wt's rows are odd (an odd address or pitch) and at least 4096 bytes
   * long, and the transpose takes tiles: it realigns them in shared memory
   * and stores each row's share of a tile as aligned vectors, reaching into
   * the rows below the tile (refresh_tile.cuh), in a kernel instance of its
   * own (sg_k_plan.realign). Only long rows: realigning the 513-byte rows of
   * [513, 257] (a few vectors each) cost them 6-10 points of the copy and
   * the mixed set 5 on the H200; rows 2-, 4- or 8-byte aligned store
   * whole words already (realigned, [3000, 1000] lost 20 points). */
  SG_K_VEC_REALIGN = 256u,
  /* SG_K_VEC_REALIGN, and the cast-transpose stages every tile (a master,
   * no block scaling, columns a multiple of 128, master and W rows 16-byte
   * aligned), so that each tile converts the rows below it too and drains
   * realigned like the transpose's, in the cast-transpose's instance with
   * the realigned drain (sg_k_plan.realign's cast-transpose bit). A
   * parameter's tiles realign all or none: each stores the head of the
   * next one's share of a row. */
  SG_K_VEC_REALIGN_CT = 512u
};

/* Which of a selection's parameters a transpose launch moves: all, those
 * with SG_K_VEC_WHOLE_T (the first of its group's run) or the others
 * (sg_k_plan.split). */
enum { SG_K_PART_ALL = 0, SG_K_PART_WHOLE = 1, SG_K_PART_REST = 2 };

typedef struct sg_k_desc {
  uint8_t *w;
  uint8_t *wt;
  const void *master;
  const float *scale;            /* NULL for current scaling: see the scratch */
  float *scale_inv;
  float *amax;
  float *grid, *grid_t;          /* block scaling; else NULL */
  uint64_t rows, cols, ld_w, ld_wt, ld_master, ld_grid, ld_grid_t;
  uint64_t tiles_per_row;        /* ceil(cols / SG_K_TILE) */
  /* The cast mode's view: one long row when W and the master are dense, so
   * that the owned range is one contiguous run whatever rows it splits. */
  uint64_t flat_cols, flat_ld_w, flat_ld_master;
  uint64_t range_begin, range_end; /* resolved: end 0 became rows*cols */
  uint64_t item_first[SG_K_LIST_COUNT];
  uint64_t items[SG_K_LIST_COUNT];
  uint32_t format, master_dtype, group;
  uint32_t vec;                  /* SG_K_VEC_* */
  uint32_t index;                /* position in the caller's array */
  uint32_t recipe;               /* SG_K_RECIPE_* */
} sg_k_desc;

/* Per-parameter state of the launch in flight: the largest |M| bit pattern
 * seen so far and how many work items are done. The block (the cast mode's
 * and the amax pass's: the warp) finishing the last item publishes amax and
 * clears both, so every launch starts from zeros.
 * `scale` is the current-scaling scale the amax pass leaves for the cast
 * that follows it. */
typedef struct sg_k_scratch {
  uint32_t amax_bits;
  float scale;
  uint64_t items_done;
} sg_k_scratch;

typedef struct sg_k_table {
  uint32_t count, capacity;
  uint64_t total_items[SG_K_LIST_COUNT];
  uint64_t pad_[2];
} sg_k_table;

#ifdef __cplusplus
#define SG_K_STATIC_ASSERT static_assert
#else
#define SG_K_STATIC_ASSERT _Static_assert
#endif
SG_K_STATIC_ASSERT(sizeof(sg_k_table) == 64, "table header is 64 bytes");
SG_K_STATIC_ASSERT(SG_K_TILE == SG_K_BLOCK, "a block-scaling block is one tile");
SG_K_STATIC_ASSERT(sizeof(sg_k_desc) % 16 == 0, "descriptors stay aligned");

#ifdef __CUDACC__
#define SG_K_HOST_DEVICE __host__ __device__
#else
#define SG_K_HOST_DEVICE
#endif

/* Host arithmetic shared by the table builder and the layout choice
 * (refresh_layout.c), so both judge a parameter alike. */
static inline uint64_t sg_k_ceil_div(uint64_t a, uint64_t b) { return a / b + (a % b != 0); }

/* Whether every row of a matrix at `base`, `ld` elements of `elem_bytes`
 * apart, starts 16-byte aligned (rows then move as 16-byte vectors). */
static inline bool sg_k_rows_aligned16(const void *base, uint64_t ld, uint64_t elem_bytes) {
  return (uintptr_t)base % 16u == 0 && ld * elem_bytes % 16u == 0;
}

/* Tiles of a parameter, whether its transpose is linear (SG_K_VEC_LINEAR) and
 * whether its cast lists go in spans (SG_K_VEC_SPANS), and a checked
 * parameter's work items in each list (refresh_table.c). */
uint64_t sg_k_tiles_of(const sg_k_param *p);
bool sg_k_linear(const sg_k_param *p);
bool sg_k_spans(const sg_k_param *p);
/* Whether the transpose realigns its Wt rows (SG_K_VEC_REALIGN), and
 * whether the cast-transpose does (SG_K_VEC_REALIGN_CT). */
bool sg_k_realigned(const sg_k_param *p);
bool sg_k_ct_realigned(const sg_k_param *p);
void sg_k_param_items(const sg_k_param *p, uint64_t items[SG_K_LIST_COUNT]);

/* Whether a parameter's tiles suit the wide layout, and the layout for a
 * selection of `tiles` tiles, `wide` of them suiting it (refresh_layout.c,
 * which says why), for the plans; the tile lists in which all of a
 * checked parameter's tiles are whole (sg_k_plan.whole's bits and the
 * table's SG_K_VEC_WHOLE_T: refresh_table.c), and those in which its tiles
 * carry grid entries (sg_k_plan.grids': refresh_layout.c). */
bool sg_k_suits_wide(const sg_k_param *p);
uint32_t sg_k_layout_for(uint64_t tiles, uint64_t wide);
uint32_t sg_k_whole_lists(const sg_k_param *p);
uint32_t sg_k_grid_lists(const sg_k_param *p);

/* Elements (W's and Wt's bytes) of span `local` of a linear parameter of
 * rows x cols (one of them 1): SG_K_LINEAR_ITEM, the last one what is
 * left. For the refresh and the stale-transpose check alike. */
SG_K_HOST_DEVICE static inline uint32_t sg_k_linear_bytes(uint64_t rows, uint64_t cols,
                                                          uint64_t local) {
  const uint64_t left = (rows > cols ? rows : cols) - local * SG_K_LINEAR_ITEM;
  return left < SG_K_LINEAR_ITEM ? (uint32_t)left : SG_K_LINEAR_ITEM;
}

/* Byte offsets of the descriptor and scratch arrays from the table's start. */
SG_K_HOST_DEVICE static inline size_t sg_k_descs_offset(void) { return sizeof(sg_k_table); }

SG_K_HOST_DEVICE static inline size_t sg_k_scratch_offset(uint32_t capacity) {
  return sizeof(sg_k_table) + (size_t)capacity * sizeof(sg_k_desc);
}

#endif /* SG_KERNELS_REFRESH_TABLE_H */

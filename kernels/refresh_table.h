/* Layout of the refresh table, shared by the host builder (refresh_table.c)
 * and the kernel (refresh_kernel.cu). Not part of the launcher's contract.
 *
 *   [header][desc 0 .. desc capacity-1][scratch 0 .. scratch capacity-1]
 *
 * Descriptors are sorted by group (stable), so a group is one contiguous run
 * that the kernel finds by binary search. Each descriptor carries, per mode,
 * the index of its first work item in the table-wide work list and how many
 * it has; a launch deals its group's part of that list to its blocks
 * (refresh_schedule.cuh). */
#ifndef SG_KERNELS_REFRESH_TABLE_H
#define SG_KERNELS_REFRESH_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "refresh.h"

/* A transpose or cast-transpose work item is a tile of SG_K_TILE x SG_K_TILE
 * elements of W; a cast work item is SG_K_CAST_ITEM consecutive elements of
 * the owned flat range. */
#define SG_K_TILE 128u
#define SG_K_CAST_ITEM 8192u

/* Bits of sg_k_desc.vec: whose rows all start 16-byte aligned, so that
 * tile rows can move as 16-byte vectors. */
enum { SG_K_VEC_W = 1u, SG_K_VEC_WT = 2u, SG_K_VEC_MASTER = 4u };

typedef struct sg_k_desc {
  uint8_t *w;
  uint8_t *wt;
  const void *master;
  const float *scale;
  float *scale_inv;
  float *amax;
  uint64_t rows, cols, ld_w, ld_wt, ld_master;
  uint64_t tiles_per_row;        /* ceil(cols / SG_K_TILE) */
  /* The cast mode's view: one long row when W and the master are dense, so
   * that the owned range is one contiguous run whatever rows it splits. */
  uint64_t flat_cols, flat_ld_w, flat_ld_master;
  uint64_t range_begin, range_end; /* resolved: end 0 became rows*cols */
  uint64_t item_first[SG_K_MODE_COUNT];
  uint64_t items[SG_K_MODE_COUNT];
  uint32_t format, master_dtype, group;
  uint32_t vec;                  /* SG_K_VEC_* */
  uint32_t index;                /* position in the caller's array */
  uint32_t pad_;
} sg_k_desc;

/* Per-parameter state of the launch in flight: the largest |M| bit pattern
 * seen so far and how many work items are done. The block finishing the last
 * item publishes amax and clears both, so every launch starts from zeros. */
typedef struct sg_k_scratch {
  uint32_t amax_bits;
  uint32_t pad_;
  uint64_t items_done;
} sg_k_scratch;

typedef struct sg_k_table {
  uint32_t count, capacity;
  uint64_t total_items[SG_K_MODE_COUNT];
  uint64_t pad_[4];
} sg_k_table;

#ifdef __cplusplus
#define SG_K_STATIC_ASSERT static_assert
#else
#define SG_K_STATIC_ASSERT _Static_assert
#endif
SG_K_STATIC_ASSERT(sizeof(sg_k_table) == 64, "table header is 64 bytes");
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

/* Byte offsets of the descriptor and scratch arrays from the table's start. */
SG_K_HOST_DEVICE static inline size_t sg_k_descs_offset(void) { return sizeof(sg_k_table); }

SG_K_HOST_DEVICE static inline size_t sg_k_scratch_offset(uint32_t capacity) {
  return sizeof(sg_k_table) + (size_t)capacity * sizeof(sg_k_desc);
}

#endif /* SG_KERNELS_REFRESH_TABLE_H */

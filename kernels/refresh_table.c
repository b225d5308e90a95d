/* Host side of the refresh table: checks each parameter, resolves what the
 * kernel would otherwise recompute per work item (ranges, the cast view,
 * alignment, recipe, work-item counts), sorts by group and lays out the
 * work lists. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "refresh_table.h"

size_t sg_k_refresh_table_bytes(uint32_t capacity) {
  return sg_k_scratch_offset(capacity) + (size_t)capacity * sizeof(sg_k_scratch);
}

uint32_t sg_k_master_elem_bytes(uint32_t master_dtype) {
  return master_dtype == SG_K_MASTER_FP32   ? 4u
         : master_dtype == SG_K_MASTER_BF16 ? 2u
                                            : 0u;
}

/* Delayed scaling's master needs the host's scale; current scaling's
 * computes it, so only its outputs are needed. */
static bool master_valid(const sg_k_param *p) {
  if (p->master_dtype == SG_K_MASTER_NONE) {
    return p->recipe != SG_K_RECIPE_CURRENT;
  }
  if (p->master_dtype != SG_K_MASTER_FP32 && p->master_dtype != SG_K_MASTER_BF16) {
    return false;
  }
  const bool outputs = p->recipe == SG_K_RECIPE_BLOCK ||
                       (p->scale_inv != NULL && p->amax != NULL &&
                        (p->recipe == SG_K_RECIPE_CURRENT || p->scale != NULL));
  return p->master != NULL && p->ld_master >= p->cols && outputs;
}

/* Block scaling's two grids, one float per 128 x 128 block. */
static bool grids_valid(const sg_k_param *p) {
  if (p->recipe != SG_K_RECIPE_BLOCK) {
    return true;
  }
  return p->grid != NULL && p->grid_t != NULL &&
         p->ld_grid >= sg_k_ceil_div(p->cols, SG_K_TILE) &&
         p->ld_grid_t >= sg_k_ceil_div(p->rows, SG_K_TILE);
}

/* Computed scales come from whole tensors or whole blocks: no owned range
 * other than all of the parameter. */
static bool recipe_valid(const sg_k_param *p) {
  if (p->recipe > SG_K_RECIPE_BLOCK || (p->recipe_flags & ~(uint32_t)SG_K_POW2_SCALES) != 0) {
    return false;
  }
  const bool whole = p->range_end == 0 || (p->range_begin == 0 && p->range_end == p->rows * p->cols);
  return p->recipe == SG_K_RECIPE_DELAYED || whole;
}

static bool param_valid(const sg_k_param *p) {
  if (p->format != SG_K_FP8_E4M3 && p->format != SG_K_FP8_E5M2) {
    return false;
  }
  if (p->rows == 0 || p->cols == 0 || p->rows > UINT64_MAX / p->cols) {
    return false;
  }
  if (p->w == NULL || p->wt == NULL || p->ld_w < p->cols || p->ld_wt < p->rows) {
    return false;
  }
  const uint64_t n = p->rows * p->cols;
  const bool range_ok = p->range_end == 0
                            ? p->range_begin == 0
                            : p->range_begin <= p->range_end && p->range_end <= n;
  return range_ok && recipe_valid(p) && master_valid(p) && grids_valid(p);
}

uint64_t sg_k_tiles_of(const sg_k_param *p) {
  return sg_k_ceil_div(p->rows, SG_K_TILE) * sg_k_ceil_div(p->cols, SG_K_TILE);
}

/* A dense vector: W and Wt one run of the same bytes, 16-byte aligned. */
bool sg_k_linear(const sg_k_param *p) {
  return (uintptr_t)p->w % 16u == 0 && (uintptr_t)p->wt % 16u == 0 &&
         ((p->rows == 1 && p->ld_wt == 1) || (p->cols == 1 && p->ld_w == 1));
}

bool sg_k_spans(const sg_k_param *p) {
  return p->master_dtype != SG_K_MASTER_NONE && sg_k_linear(p) &&
         (p->rows == 1 || p->ld_master == 1);
}

/* The mode lists (cast, cast-transpose) take the parameter: a master,
 * and not block scaling (which casts in its own list). */
static bool in_mode_lists(const sg_k_param *p) {
  return p->master_dtype != SG_K_MASTER_NONE && p->recipe != SG_K_RECIPE_BLOCK;
}

/* A master whose every row starts 16-byte aligned (SG_K_VEC_MASTER). */
static bool master_rows_aligned(const sg_k_param *p) {
  return p->master_dtype != SG_K_MASTER_NONE &&
         sg_k_rows_aligned16(p->master, p->ld_master, sg_k_master_elem_bytes(p->master_dtype));
}

bool sg_k_realigned(const sg_k_param *p) {
  return !sg_k_linear(p) && (((uintptr_t)p->wt | p->ld_wt) & 1u) != 0 && p->rows >= 4096;
}

bool sg_k_ct_realigned(const sg_k_param *p) {
  return sg_k_realigned(p) && in_mode_lists(p) && p->cols % SG_K_TILE == 0 &&
         sg_k_rows_aligned16(p->w, p->ld_w, 1) && master_rows_aligned(p);
}

/* A parameter without items in a list (no master, or block scaling, for
 * the cast-transpose) is whole there: it adds no tile. */
uint32_t sg_k_whole_lists(const sg_k_param *p) {
  const bool tiles = p->rows % SG_K_TILE == 0 && p->cols % SG_K_TILE == 0 &&
                     sg_k_rows_aligned16(p->w, p->ld_w, 1) &&
                     sg_k_rows_aligned16(p->wt, p->ld_wt, 1);
  const bool ct = !in_mode_lists(p) || (tiles && master_rows_aligned(p));
  return (tiles ? 1u << SG_K_LIST_TRANSPOSE : 0u) | (ct ? 1u << SG_K_LIST_CAST_TRANSPOSE : 0u);
}

static void set_views(sg_k_desc *d, const sg_k_param *p) {
  const uint64_t n = p->rows * p->cols;
  const bool has_master = p->master_dtype != SG_K_MASTER_NONE;
  const bool dense = p->ld_w == p->cols && (!has_master || p->ld_master == p->cols);
  d->flat_cols = dense ? n : p->cols;
  d->flat_ld_w = dense ? n : p->ld_w;
  d->flat_ld_master = dense ? n : p->ld_master;
  d->range_begin = p->range_end == 0 ? 0 : p->range_begin;
  d->range_end = p->range_end == 0 ? n : p->range_end;
  d->vec = (sg_k_rows_aligned16(p->w, p->ld_w, 1) ? SG_K_VEC_W : 0u) |
           (sg_k_rows_aligned16(p->wt, p->ld_wt, 1) ? SG_K_VEC_WT : 0u) |
           (master_rows_aligned(p) ? SG_K_VEC_MASTER : 0u) |
           (p->recipe == SG_K_RECIPE_BLOCK ? SG_K_VEC_GRID : 0u) |
           ((p->recipe_flags & SG_K_POW2_SCALES) != 0 ? SG_K_VEC_POW2 : 0u) |
           (sg_k_linear(p) ? SG_K_VEC_LINEAR : 0u) |
           (sg_k_spans(p) ? SG_K_VEC_SPANS : 0u) |
           (sg_k_realigned(p) ? SG_K_VEC_REALIGN : 0u) |
           (sg_k_ct_realigned(p) ? SG_K_VEC_REALIGN_CT : 0u) |
           ((sg_k_whole_lists(p) & (1u << SG_K_LIST_TRANSPOSE)) != 0 ? SG_K_VEC_WHOLE_T : 0u);
}

/* Work items per list. Every parameter is transposed and cast-transposed
 * tile by tile, in spans of SG_K_LINEAR_ITEM elements where it is linear
 * (the transpose) or has SG_K_VEC_SPANS (the cast-transpose). With a
 * master, delayed and current scaling cast in the mode lists (a cast of an
 * empty owned range still gets one item, which writes amax (+0) and
 * scale_inv), current scaling first measures its whole parameter in the
 * amax list, and block scaling casts tile by tile in its own list (spans
 * too, with SG_K_VEC_SPANS). Without
 * a master the cast lists have nothing of this parameter. */
void sg_k_param_items(const sg_k_param *p, uint64_t items[SG_K_LIST_COUNT]) {
  const bool has_master = p->master_dtype != SG_K_MASTER_NONE;
  const bool blocks = p->recipe == SG_K_RECIPE_BLOCK;
  const uint64_t n = p->rows * p->cols;
  const uint64_t owned = p->range_end == 0 ? n : p->range_end - p->range_begin;
  const uint64_t cast_items = sg_k_ceil_div(owned, SG_K_CAST_ITEM);
  const uint64_t tiles = sg_k_tiles_of(p);
  const uint64_t spans = sg_k_ceil_div(n, SG_K_LINEAR_ITEM);
  const uint64_t cast_tiles = sg_k_spans(p) ? spans : tiles;
  items[SG_K_LIST_TRANSPOSE] = sg_k_linear(p) ? spans : tiles;
  items[SG_K_LIST_CAST_TRANSPOSE] = in_mode_lists(p) ? cast_tiles : 0;
  items[SG_K_LIST_CAST] = in_mode_lists(p) ? (cast_items > 0 ? cast_items : 1) : 0;
  items[SG_K_LIST_AMAX] =
      has_master && p->recipe == SG_K_RECIPE_CURRENT ? sg_k_ceil_div(n, SG_K_CAST_ITEM) : 0;
  items[SG_K_LIST_BLOCK] = has_master && blocks ? cast_tiles : 0;
}

/* Current scaling's scale lives in the launch's scratch (sg_k_scratch), so
 * the descriptor has none; the pointers a recipe does not use are cleared. */
static void fill_desc(sg_k_desc *d, const sg_k_param *p, uint32_t index) {
  const bool blocks = p->recipe == SG_K_RECIPE_BLOCK;
  d->w = p->w;
  d->wt = p->wt;
  d->master = p->master;
  d->scale = p->recipe == SG_K_RECIPE_DELAYED ? p->scale : NULL;
  d->scale_inv = blocks ? NULL : p->scale_inv;
  d->amax = blocks ? NULL : p->amax;
  d->grid = blocks ? p->grid : NULL;
  d->grid_t = blocks ? p->grid_t : NULL;
  d->rows = p->rows;
  d->cols = p->cols;
  d->ld_w = p->ld_w;
  d->ld_wt = p->ld_wt;
  d->ld_master = p->ld_master;
  d->ld_grid = blocks ? p->ld_grid : 0;
  d->ld_grid_t = blocks ? p->ld_grid_t : 0;
  d->tiles_per_row = sg_k_ceil_div(p->cols, SG_K_TILE);
  d->format = p->format;
  d->master_dtype = p->master_dtype;
  d->group = p->group;
  d->index = index;
  d->recipe = p->recipe;
  set_views(d, p);
  sg_k_param_items(p, d->items);
}

/* Orders by group, then whole transposes first, then by position in the
 * caller's array (qsort is not stable by itself). */
static int by_group(const void *a, const void *b) {
  const sg_k_desc *x = a;
  const sg_k_desc *y = b;
  if (x->group != y->group) {
    return x->group < y->group ? -1 : 1;
  }
  const bool xw = (x->vec & SG_K_VEC_WHOLE_T) != 0;
  const bool yw = (y->vec & SG_K_VEC_WHOLE_T) != 0;
  if (xw != yw) {
    return xw ? -1 : 1;
  }
  return x->index < y->index ? -1 : (x->index > y->index);
}

/* merged: every descriptor's group 0 before the sort (the one-run table of
 * sg_k_refresh_build_merged). */
static cudaError_t build(void *image, uint32_t capacity, const sg_k_param *params,
                         uint32_t count, bool merged) {
  if (image == NULL || count > capacity || (params == NULL && count > 0)) {
    return cudaErrorInvalidValue;
  }
  for (uint32_t i = 0; i < count; i++) {
    if (!param_valid(&params[i])) {
      return cudaErrorInvalidValue;
    }
  }
  memset(image, 0, sg_k_refresh_table_bytes(capacity));
  sg_k_table *table = image;
  sg_k_desc *descs = (sg_k_desc *)((char *)image + sg_k_descs_offset());
  table->count = count;
  table->capacity = capacity;
  for (uint32_t i = 0; i < count; i++) {
    fill_desc(&descs[i], &params[i], i);
    descs[i].group = merged ? 0u : descs[i].group;
  }
  if (count > 1) {
    qsort(descs, count, sizeof *descs, by_group);
  }
  for (uint32_t i = 0; i < count; i++) {
    for (int l = 0; l < SG_K_LIST_COUNT; l++) {
      descs[i].item_first[l] = table->total_items[l];
      table->total_items[l] += descs[i].items[l];
    }
  }
  return cudaSuccess;
}

cudaError_t sg_k_refresh_build(void *image, uint32_t capacity,
                               const sg_k_param *params, uint32_t count) {
  return build(image, capacity, params, count, false);
}

cudaError_t sg_k_refresh_build_merged(void *image, uint32_t capacity,
                                      const sg_k_param *params, uint32_t count) {
  return build(image, capacity, params, count, true);
}

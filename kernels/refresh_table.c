/* Host side of the refresh table: checks each parameter, resolves what the
 * kernel would otherwise recompute per work item (ranges, the cast view,
 * alignment, work-item counts), sorts by group and lays out the work list. */
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

static bool master_valid(const sg_k_param *p) {
  if (p->master_dtype == SG_K_MASTER_NONE) {
    return true;
  }
  if (p->master_dtype != SG_K_MASTER_FP32 && p->master_dtype != SG_K_MASTER_BF16) {
    return false;
  }
  return p->master != NULL && p->ld_master >= p->cols && p->scale != NULL &&
         p->scale_inv != NULL && p->amax != NULL;
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
  return range_ok && master_valid(p);
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
           (has_master && sg_k_rows_aligned16(p->master, p->ld_master,
                                         sg_k_master_elem_bytes(p->master_dtype))
                ? SG_K_VEC_MASTER
                : 0u);
}

/* Work items per mode. A cast of an empty owned range still gets one item,
 * which writes amax (+0) and scale_inv. Without a master the cast modes have
 * nothing to do for this parameter. */
static void set_items(sg_k_desc *d) {
  const bool has_master = d->master_dtype != SG_K_MASTER_NONE;
  const uint64_t tiles = sg_k_ceil_div(d->rows, SG_K_TILE) * d->tiles_per_row;
  const uint64_t cast_items = sg_k_ceil_div(d->range_end - d->range_begin, SG_K_CAST_ITEM);
  d->items[SG_K_MODE_TRANSPOSE] = tiles;
  d->items[SG_K_MODE_CAST_TRANSPOSE] = has_master ? tiles : 0;
  d->items[SG_K_MODE_CAST] = has_master ? (cast_items > 0 ? cast_items : 1) : 0;
}

static void fill_desc(sg_k_desc *d, const sg_k_param *p, uint32_t index) {
  d->w = p->w;
  d->wt = p->wt;
  d->master = p->master;
  d->scale = p->scale;
  d->scale_inv = p->scale_inv;
  d->amax = p->amax;
  d->rows = p->rows;
  d->cols = p->cols;
  d->ld_w = p->ld_w;
  d->ld_wt = p->ld_wt;
  d->ld_master = p->ld_master;
  d->tiles_per_row = sg_k_ceil_div(p->cols, SG_K_TILE);
  d->format = p->format;
  d->master_dtype = p->master_dtype;
  d->group = p->group;
  d->index = index;
  set_views(d, p);
  set_items(d);
}

/* Orders by group, then by position in the caller's array (qsort is not
 * stable by itself). */
static int by_group(const void *a, const void *b) {
  const sg_k_desc *x = a;
  const sg_k_desc *y = b;
  if (x->group != y->group) {
    return x->group < y->group ? -1 : 1;
  }
  return x->index < y->index ? -1 : (x->index > y->index);
}

cudaError_t sg_k_refresh_build(void *image, uint32_t capacity,
                               const sg_k_param *params, uint32_t count) {
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
  }
  if (count > 1) {
    qsort(descs, count, sizeof *descs, by_group);
  }
  for (uint32_t i = 0; i < count; i++) {
    for (int m = 0; m < SG_K_MODE_COUNT; m++) {
      descs[i].item_first[m] = table->total_items[m];
      table->total_items[m] += descs[i].items[m];
    }
  }
  return cudaSuccess;
}

/* Validation of FP8 parameter descriptors: each message names the element
 * and the field ("params[3].rows is 0"). */
#include "fp8_validate.h"

#include <stdio.h>
#include <stdlib.h>

#include "regions.h"

/* Memory regions of one parameter: W, Wt, master, scale, scale_inv, amax
 * and the two block-scaling grids. */
#define SG_PARAM_REGIONS 8

/* The ABI's constants are passed to the kernels unchanged: the numbers must
 * agree (compared as integers: they are different enums). */
#define SAME(abi, kernel) ((long long)(abi) == (long long)(kernel))
_Static_assert(SAME(SG_FP8_E4M3, SG_K_FP8_E4M3) &&
                   SAME(SG_FP8_E5M2, SG_K_FP8_E5M2),
               "FP8 formats: ABI and kernels disagree");
_Static_assert(SAME(SG_DTYPE_NONE, SG_K_MASTER_NONE) &&
                   SAME(SG_DTYPE_FP32, SG_K_MASTER_FP32) &&
                   SAME(SG_DTYPE_BF16, SG_K_MASTER_BF16),
               "master dtypes: ABI and kernels disagree");
_Static_assert(SAME(SG_REFRESH_TRANSPOSE, SG_K_MODE_TRANSPOSE) &&
                   SAME(SG_REFRESH_CAST, SG_K_MODE_CAST) &&
                   SAME(SG_REFRESH_CAST_TRANSPOSE, SG_K_MODE_CAST_TRANSPOSE),
               "refresh modes: ABI and kernels disagree");
_Static_assert(SAME(SG_ALL_GROUPS, SG_K_ALL_GROUPS),
               "all-groups value: ABI and kernels disagree");
_Static_assert(SAME(SG_RECIPE_DELAYED, SG_K_RECIPE_DELAYED) &&
                   SAME(SG_RECIPE_CURRENT, SG_K_RECIPE_CURRENT) &&
                   SAME(SG_RECIPE_BLOCK, SG_K_RECIPE_BLOCK) &&
                   SAME(SG_RECIPE_POW2_SCALES, SG_K_POW2_SCALES),
               "FP8 recipes: ABI and kernels disagree");
_Static_assert(SG_FP8_BLOCK == SG_K_BLOCK,
               "the block of block scaling is the kernels' tile");
#undef SAME

/* Bytes from a strided matrix's first element to past its last, or 0 when
 * that overflows. */
static uint64_t span_bytes(uint64_t rows, uint64_t cols, uint64_t ld,
                           uint64_t elem) {
  uint64_t elems, bytes;
  if (__builtin_mul_overflow(rows - 1, ld, &elems) ||
      __builtin_add_overflow(elems, cols, &elems) ||
      __builtin_mul_overflow(elems, elem, &bytes)) {
    return 0;
  }
  return bytes;
}

static sg_status check_matrix(sg_diag *diag, uint32_t i, const char *field,
                              const void *ptr, uint64_t rows, uint64_t cols,
                              uint64_t ld, const char *ld_name, uint64_t elem) {
  if (ptr == NULL) {
    return sg_fail(diag, SG_ERR_INVALID_ARGUMENT, "params[%u].%s is NULL", i,
                   field);
  }
  if (ld < cols) {
    return sg_fail(diag, SG_ERR_INVALID_ARGUMENT,
                   "params[%u].%s is %llu, less than the width %llu", i,
                   ld_name, (unsigned long long)ld, (unsigned long long)cols);
  }
  uint64_t bytes = span_bytes(rows, cols, ld, elem);
  uintptr_t end;
  if (bytes == 0 || __builtin_add_overflow((uintptr_t)ptr, bytes, &end)) {
    return sg_fail(diag, SG_ERR_INVALID_ARGUMENT,
                   "params[%u].%s: its size (%s %llu) overflows", i, field,
                   ld_name, (unsigned long long)ld);
  }
  if ((uintptr_t)ptr % elem != 0) {
    return sg_fail(diag, SG_ERR_INVALID_ARGUMENT,
                   "params[%u].%s is not aligned to its %llu-byte elements", i,
                   field, (unsigned long long)elem);
  }
  return SG_OK;
}

static sg_status check_scalar(sg_diag *diag, uint32_t i, const char *field,
                              const void *ptr) {
  if (ptr == NULL) {
    return sg_fail(diag, SG_ERR_INVALID_ARGUMENT,
                   "params[%u].%s is NULL but master_dtype is set", i, field);
  }
  if ((uintptr_t)ptr % sizeof(float) != 0) {
    return sg_fail(diag, SG_ERR_INVALID_ARGUMENT,
                   "params[%u].%s is not 4-byte aligned", i, field);
  }
  uintptr_t end;
  if (__builtin_add_overflow((uintptr_t)ptr, sizeof(float), &end)) {
    return sg_fail(diag, SG_ERR_INVALID_ARGUMENT,
                   "params[%u].%s runs past the address space", i, field);
  }
  return SG_OK;
}

static const char *recipe_name(uint32_t recipe) {
  return recipe == SG_RECIPE_CURRENT ? "SG_RECIPE_CURRENT"
         : recipe == SG_RECIPE_BLOCK ? "SG_RECIPE_BLOCK"
                                     : "SG_RECIPE_DELAYED";
}

/* Computed scales (current and block scaling) come from the whole tensor
 * or whole 128 x 128 blocks: an owned range of the sharded cast would need
 * the rest of them from the other ranks. */
static sg_status check_whole(sg_diag *diag, const sg_fp8_param_desc *d,
                             uint32_t i) {
  if (d->recipe == SG_RECIPE_DELAYED ||
      (d->range_begin == 0 && d->range_end == d->rows * d->cols)) {
    return SG_OK;
  }
  return sg_fail(diag, SG_ERR_NOT_SUPPORTED,
                 "params[%u]: an owned range [%llu, %llu) needs "
                 "SG_RECIPE_DELAYED; recipe %s computes its scales from %s, "
                 "which a sharded cast would need from every rank (cast the "
                 "parameter whole, or quantize it yourself and refresh Wt "
                 "in transpose mode)",
                 i, (unsigned long long)d->range_begin,
                 (unsigned long long)d->range_end, recipe_name(d->recipe),
                 d->recipe == SG_RECIPE_BLOCK ? "whole 128 x 128 blocks"
                                              : "the whole tensor");
}

static sg_status check_range(sg_diag *diag, const sg_fp8_param_desc *d,
                             uint32_t i) {
  uint64_t n = d->rows * d->cols; /* checked not to overflow */
  if (d->range_end == 0) {
    return d->range_begin == 0
               ? SG_OK
               : sg_fail(diag, SG_ERR_INVALID_ARGUMENT,
                         "params[%u].range_begin is %llu but range_end is 0 "
                         "(0 means the whole parameter)",
                         i, (unsigned long long)d->range_begin);
  }
  if (d->range_begin >= d->range_end || d->range_end > n) {
    return sg_fail(diag, SG_ERR_INVALID_ARGUMENT,
                   "params[%u]: range [%llu, %llu) is empty or outside the "
                   "parameter's %llu elements",
                   i, (unsigned long long)d->range_begin,
                   (unsigned long long)d->range_end, (unsigned long long)n);
  }
  return check_whole(diag, d, i);
}

/* A pointer the recipe does not use must be NULL. */
static sg_status check_unused(sg_diag *diag, uint32_t i, const char *field,
                              const void *ptr, const char *why) {
  if (ptr == NULL) {
    return SG_OK;
  }
  return sg_fail(diag, SG_ERR_INVALID_ARGUMENT,
                 "params[%u].%s is set but %s; pass NULL", i, field, why);
}

/* The scalars of a parameter with a master, per recipe: delayed needs all
 * three; current computes the scale; block keeps its scales in the grids. */
static sg_status check_scalars(sg_diag *diag, const sg_fp8_param_desc *d,
                               uint32_t i) {
  if (d->recipe == SG_RECIPE_BLOCK) {
    const char *why = "recipe SG_RECIPE_BLOCK keeps its scales in the grids";
    sg_status st = check_unused(diag, i, "scale", d->scale, why);
    if (st == SG_OK) st = check_unused(diag, i, "scale_inv", d->scale_inv, why);
    if (st == SG_OK) st = check_unused(diag, i, "amax", d->amax, why);
    return st;
  }
  sg_status st = d->recipe == SG_RECIPE_CURRENT
                     ? check_unused(diag, i, "scale", d->scale,
                                    "recipe SG_RECIPE_CURRENT computes the "
                                    "scale from the master")
                     : check_scalar(diag, i, "scale", d->scale);
  if (st == SG_OK) st = check_scalar(diag, i, "scale_inv", d->scale_inv);
  if (st == SG_OK) st = check_scalar(diag, i, "amax", d->amax);
  return st;
}

/* The master and its scalars: all present with a dtype (as the recipe
 * needs them), all absent without one, which current scaling refuses. */
static sg_status check_master(sg_diag *diag, const sg_fp8_param_desc *d,
                              uint32_t i) {
  if (d->master_dtype == SG_DTYPE_NONE) {
    if (d->recipe == SG_RECIPE_CURRENT) {
      return sg_fail(diag, SG_ERR_INVALID_ARGUMENT,
                     "params[%u].recipe is SG_RECIPE_CURRENT but "
                     "master_dtype is SG_DTYPE_NONE (current scaling casts "
                     "from a master)",
                     i);
    }
    /* A cast range or cast pointer without a master means nothing. */
    const char *set = d->master        ? "master"
                      : d->scale       ? "scale"
                      : d->scale_inv   ? "scale_inv"
                      : d->amax        ? "amax"
                      : d->range_begin ? "range_begin"
                      : d->range_end   ? "range_end"
                                       : NULL;
    return set == NULL ? SG_OK
                       : sg_fail(diag, SG_ERR_INVALID_ARGUMENT,
                                 "params[%u].%s is set, but master_dtype is "
                                 "SG_DTYPE_NONE (cast fields need a master)",
                                 i, set);
  }
  sg_status st = check_matrix(diag, i, "master", d->master, d->rows, d->cols,
                              d->ld_master, "ld_master",
                              sg_k_master_elem_bytes(d->master_dtype));
  if (st == SG_OK) st = check_scalars(diag, d, i);
  if (st == SG_OK) st = check_range(diag, d, i);
  return st;
}

static uint64_t blocks_of(uint64_t n) {
  return n / SG_FP8_BLOCK + (n % SG_FP8_BLOCK != 0);
}

/* A grid's ld as the kernels see it: 0 means dense. */
static uint64_t grid_ld(uint64_t ld, uint64_t width) {
  return ld == 0 ? width : ld;
}

/* Block scaling's two grids: present, wide enough, aligned; absent (and
 * their lds 0) with the other recipes. */
static sg_status check_grids(sg_diag *diag, const sg_fp8_param_desc *d,
                             uint32_t i) {
  const uint64_t br = blocks_of(d->rows), bc = blocks_of(d->cols);
  if (d->recipe != SG_RECIPE_BLOCK) {
    if (d->block_scale_inv || d->block_scale_inv_t ||
        d->ld_block_scale_inv || d->ld_block_scale_inv_t) {
      return sg_fail(diag, SG_ERR_INVALID_ARGUMENT,
                     "params[%u]: block_scale_inv, block_scale_inv_t or "
                     "their ld set, but recipe is %s (only SG_RECIPE_BLOCK "
                     "has grids)",
                     i, recipe_name(d->recipe));
    }
    return SG_OK;
  }
  sg_status st = check_matrix(diag, i, "block_scale_inv", d->block_scale_inv,
                              br, bc, grid_ld(d->ld_block_scale_inv, bc),
                              "ld_block_scale_inv", sizeof(float));
  if (st == SG_OK) {
    st = check_matrix(diag, i, "block_scale_inv_t", d->block_scale_inv_t, bc,
                      br, grid_ld(d->ld_block_scale_inv_t, br),
                      "ld_block_scale_inv_t", sizeof(float));
  }
  return st;
}

/* ABI 1.1's recipe fields, apart from the pointers they govern. */
static sg_status check_recipe(sg_diag *diag, const sg_fp8_param_desc *d,
                              uint32_t i) {
  if (d->recipe > SG_RECIPE_BLOCK) {
    return sg_fail(diag, SG_ERR_INVALID_ARGUMENT,
                   "params[%u].recipe is %u (known: SG_RECIPE_DELAYED, "
                   "SG_RECIPE_CURRENT, SG_RECIPE_BLOCK)",
                   i, (unsigned)d->recipe);
  }
  if ((d->recipe_flags & ~(uint32_t)SG_RECIPE_POW2_SCALES) != 0) {
    return sg_fail(diag, SG_ERR_INVALID_ARGUMENT,
                   "params[%u].recipe_flags is 0x%x (known: "
                   "SG_RECIPE_POW2_SCALES)",
                   i, (unsigned)d->recipe_flags);
  }
  if (d->recipe == SG_RECIPE_DELAYED && d->recipe_flags != 0) {
    return sg_fail(diag, SG_ERR_INVALID_ARGUMENT,
                   "params[%u].recipe_flags is 0x%x but recipe is "
                   "SG_RECIPE_DELAYED, whose scale is the host's",
                   i, (unsigned)d->recipe_flags);
  }
  return SG_OK;
}

static sg_status check_enums(sg_diag *diag, const sg_fp8_param_desc *d,
                             uint32_t i) {
  if (d->format > SG_FP8_E5M2) {
    return sg_fail(diag, SG_ERR_INVALID_ARGUMENT,
                   "params[%u].format is %u (known: SG_FP8_E4M3, SG_FP8_E5M2)",
                   i, (unsigned)d->format);
  }
  if (d->master_dtype > SG_DTYPE_BF16) {
    return sg_fail(diag, SG_ERR_INVALID_ARGUMENT,
                   "params[%u].master_dtype is %u (known: NONE, FP32, BF16)",
                   i, (unsigned)d->master_dtype);
  }
  if (d->group == SG_ALL_GROUPS) {
    return sg_fail(diag, SG_ERR_INVALID_ARGUMENT,
                   "params[%u].group is SG_ALL_GROUPS, which names no group",
                   i);
  }
  if (d->reserved0 != 0) {
    return sg_fail(diag, SG_ERR_INVALID_ARGUMENT,
                   "params[%u].reserved0 is %u, must be 0", i,
                   (unsigned)d->reserved0);
  }
  return check_recipe(diag, d, i);
}

sg_status sg_fp8_desc_check(sg_diag *diag, const sg_fp8_param_desc *d,
                            uint32_t i) {
  sg_status st = check_enums(diag, d, i);
  if (st != SG_OK) {
    return st;
  }
  uint64_t n;
  if (d->rows == 0 || d->cols == 0) {
    return sg_fail(diag, SG_ERR_INVALID_ARGUMENT, "params[%u].%s is 0", i,
                   d->rows == 0 ? "rows" : "cols");
  }
  if (__builtin_mul_overflow(d->rows, d->cols, &n)) {
    return sg_fail(diag, SG_ERR_INVALID_ARGUMENT,
                   "params[%u]: rows * cols overflows 64 bits", i);
  }
  st = check_matrix(diag, i, "data", d->data, d->rows, d->cols, d->ld_data,
                    "ld_data", 1);
  if (st == SG_OK) {
    st = check_matrix(diag, i, "transpose", d->transpose, d->cols, d->rows,
                      d->ld_transpose, "ld_transpose", 1);
  }
  if (st == SG_OK) {
    st = check_master(diag, d, i);
  }
  if (st == SG_OK) {
    st = check_grids(diag, d, i);
  }
  return st;
}

sg_k_param sg_fp8_desc_to_param(const sg_fp8_param_desc *d) {
  sg_k_param p = {
      .w = d->data,
      .ld_w = d->ld_data,
      .wt = d->transpose,
      .ld_wt = d->ld_transpose,
      .master = d->master,
      .ld_master = d->ld_master,
      .scale = d->scale,
      .scale_inv = d->scale_inv,
      .amax = d->amax,
      .rows = d->rows,
      .cols = d->cols,
      .range_begin = d->range_begin,
      .range_end = d->range_end,
      .format = d->format,
      .master_dtype = d->master_dtype,
      .group = d->group,
      .recipe = d->recipe,
      .recipe_flags = d->recipe_flags,
      .grid = d->block_scale_inv,
      .ld_grid = grid_ld(d->ld_block_scale_inv, blocks_of(d->cols)),
      .grid_t = d->block_scale_inv_t,
      .ld_grid_t = grid_ld(d->ld_block_scale_inv_t, blocks_of(d->rows)),
  };
  return p;
}

static uint32_t param_regions(const sg_k_param *p, uint32_t index,
                              sg_region *out) {
  const uint64_t me = sg_k_master_elem_bytes(p->master_dtype);
  const struct { const void *ptr; uint64_t bytes; const char *field; } r[] = {
      {p->w, span_bytes(p->rows, p->cols, p->ld_w, 1), "data"},
      {p->wt, span_bytes(p->cols, p->rows, p->ld_wt, 1), "transpose"},
      {p->master, me ? span_bytes(p->rows, p->cols, p->ld_master, me) : 0,
       "master"},
      {p->scale, sizeof(float), "scale"},
      {p->scale_inv, sizeof(float), "scale_inv"},
      {p->amax, sizeof(float), "amax"},
      {p->grid,
       span_bytes(blocks_of(p->rows), blocks_of(p->cols), p->ld_grid,
                  sizeof(float)),
       "block_scale_inv"},
      {p->grid_t,
       span_bytes(blocks_of(p->cols), blocks_of(p->rows), p->ld_grid_t,
                  sizeof(float)),
       "block_scale_inv_t"},
  };
  uint32_t n = 0;
  for (size_t k = 0; k < sizeof r / sizeof r[0]; k++) {
    if (r[k].ptr != NULL) {
      uintptr_t b = (uintptr_t)r[k].ptr;
      out[n++] = (sg_region){b, sg_region_end(b, r[k].bytes), index,
                             r[k].field};
    }
  }
  return n;
}

static void name_param(char *buf, size_t cap, const sg_region *r,
                       uint32_t first_new) {
  if (r->owner < first_new) {
    snprintf(buf, cap, "registered param %u's %s", r->owner, r->field);
  } else {
    snprintf(buf, cap, "params[%u].%s", r->owner - first_new, r->field);
  }
}

sg_status sg_fp8_overlap_check(sg_diag *diag, const sg_k_param *params,
                               uint32_t total, uint32_t first_new) {
  sg_region *regions = malloc((size_t)total * SG_PARAM_REGIONS * sizeof *regions);
  if (regions == NULL) {
    return sg_fail(diag, SG_ERR_OUT_OF_MEMORY, "no memory for the overlap check");
  }
  size_t n = 0;
  for (uint32_t i = 0; i < total; i++) {
    n += param_regions(&params[i], i, regions + n);
  }
  sg_region a, b;
  sg_status st = SG_OK;
  if (sg_regions_overlap(regions, n, first_new, &a, &b)) {
    char na[96], nb[96];
    name_param(na, sizeof na, &a, first_new);
    name_param(nb, sizeof nb, &b, first_new);
    st = sg_fail(diag, SG_ERR_INVALID_ARGUMENT, "%s overlaps %s", na, nb);
  }
  free(regions);
  return st;
}

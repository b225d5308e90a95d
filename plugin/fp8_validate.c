/* Validation of FP8 parameter descriptors: each message names the element
 * and the field ("params[3].rows is 0"). */
#include "fp8_validate.h"

#include <stdio.h>
#include <stdlib.h>

#include "regions.h"

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
  return SG_OK;
}

/* The master and its scalars: all present with a dtype, all absent
 * without one. */
static sg_status check_master(sg_diag *diag, const sg_fp8_param_desc *d,
                              uint32_t i) {
  if (d->master_dtype == SG_DTYPE_NONE) {
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
  if (st == SG_OK) st = check_scalar(diag, i, "scale", d->scale);
  if (st == SG_OK) st = check_scalar(diag, i, "scale_inv", d->scale_inv);
  if (st == SG_OK) st = check_scalar(diag, i, "amax", d->amax);
  if (st == SG_OK) st = check_range(diag, d, i);
  return st;
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
  return SG_OK;
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
  sg_region *regions = malloc((size_t)total * 6 * sizeof *regions);
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

/* sg_k_refresh_build without a GPU: what it rejects, and the table it lays
 * out (group order, work items per list, the cast view, alignment flags,
 * what each recipe keeps of a parameter). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "refresh.h"
#include "refresh_table.h"
#include "sg_run_suite.h"

enum { CAPACITY = 8 };

/* Device pointers are only stored, never touched: fake aligned addresses. */
static sg_k_param valid_param(uint32_t group) {
  sg_k_param p;
  memset(&p, 0, sizeof p);
  p.w = (uint8_t *)(uintptr_t)0x100000;
  p.ld_w = 304;
  p.wt = (uint8_t *)(uintptr_t)0x200000;
  p.ld_wt = 304;
  p.master = (const void *)(uintptr_t)0x300000;
  p.ld_master = 300;
  p.scale = (const float *)(uintptr_t)0x400000;
  p.scale_inv = (float *)(uintptr_t)0x400010;
  p.amax = (float *)(uintptr_t)0x400020;
  p.rows = 300;
  p.cols = 300;
  p.format = SG_K_FP8_E5M2;
  p.master_dtype = SG_K_MASTER_FP32;
  p.group = group;
  return p;
}

static void *new_image(void) {
  void *image = malloc(sg_k_refresh_table_bytes(CAPACITY));
  ck_assert_ptr_nonnull(image);
  return image;
}

static const sg_k_desc *descs_of(void *image) {
  return (const sg_k_desc *)((char *)image + sg_k_descs_offset());
}

static cudaError_t build_one(const sg_k_param *p) {
  void *image = new_image();
  const cudaError_t err = sg_k_refresh_build(image, CAPACITY, p, 1);
  free(image);
  return err;
}

/* Each entry breaks one rule the header lists. */
static void break_rule(sg_k_param *p, int rule) {
  switch (rule) {
  case 0: p->format = 2; break;
  case 1: p->master_dtype = 3; break;
  case 2: p->rows = 0; break;
  case 3: p->cols = 0; break;
  case 4: p->rows = UINT64_MAX / 2; p->cols = 3; break;
  case 5: p->ld_w = p->cols - 1; break;
  case 6: p->ld_wt = p->rows - 1; break;
  case 7: p->w = NULL; break;
  case 8: p->wt = NULL; break;
  case 9: p->master = NULL; break;
  case 10: p->scale = NULL; break;
  case 11: p->scale_inv = NULL; break;
  case 12: p->amax = NULL; break;
  case 13: p->ld_master = p->cols - 1; break;
  case 14: p->range_begin = 10; p->range_end = 5; break;
  case 15: p->range_begin = 0; p->range_end = p->rows * p->cols + 1; break;
  default: p->range_begin = 3; p->range_end = 0; break;
  }
}

/* A valid current-scaling (0) or block-scaling (1) parameter. */
static sg_k_param recipe_param(int block) {
  sg_k_param p = valid_param(0);
  p.recipe = block ? SG_K_RECIPE_BLOCK : SG_K_RECIPE_CURRENT;
  p.recipe_flags = SG_K_POW2_SCALES;
  p.scale = NULL;
  if (block) {
    p.scale_inv = NULL;
    p.amax = NULL;
    p.grid = (float *)(uintptr_t)0x500000;
    p.ld_grid = 3; /* 300 columns: 3 blocks */
    p.grid_t = (float *)(uintptr_t)0x500100;
    p.ld_grid_t = 4;
  }
  return p;
}

/* Each entry breaks one recipe rule the header lists: even rules on a
 * current-scaling parameter, odd ones on a block-scaling one. */
static void break_recipe_rule(sg_k_param *p, int rule) {
  switch (rule) {
  case 0: p->recipe = 3; break;
  case 1: p->recipe_flags = 2; break;
  case 2: p->master_dtype = SG_K_MASTER_NONE; p->master = NULL; break;
  case 3: p->grid = NULL; break;
  case 4: p->scale_inv = NULL; break;
  case 5: p->grid_t = NULL; break;
  case 6: p->amax = NULL; break;
  case 7: p->ld_grid = 2; break;
  case 8: p->range_begin = 0; p->range_end = 100; break;
  case 9: p->ld_grid_t = 2; break;
  case 10: p->master = NULL; break;
  default: p->range_begin = 1; p->range_end = p->rows * p->cols; break;
  }
}

START_TEST(rejects_each_invalid_recipe_field) {
  sg_k_param p = recipe_param(_i % 2);
  ck_assert_int_eq(build_one(&p), cudaSuccess);
  break_recipe_rule(&p, _i);
  ck_assert_msg(build_one(&p) == cudaErrorInvalidValue, "recipe rule %d accepted", _i);
}
END_TEST

/* What a recipe does not use is not needed: a current parameter's scale, a
 * block parameter's scalars and, without a master, everything but the
 * grids; a whole range [0, rows*cols) is no owned range. */
START_TEST(accepts_what_recipes_allow) {
  sg_k_param p = recipe_param(1);
  p.master_dtype = SG_K_MASTER_NONE;
  p.master = NULL;
  ck_assert_int_eq(build_one(&p), cudaSuccess);
  p = recipe_param(0);
  p.range_begin = 0;
  p.range_end = p.rows * p.cols;
  ck_assert_int_eq(build_one(&p), cudaSuccess);
}
END_TEST

START_TEST(rejects_each_invalid_field) {
  sg_k_param p = valid_param(0);
  ck_assert_int_eq(build_one(&p), cudaSuccess);
  break_rule(&p, _i);
  ck_assert_msg(build_one(&p) == cudaErrorInvalidValue, "rule %d accepted", _i);
}
END_TEST

START_TEST(rejects_bad_arguments) {
  sg_k_param p[CAPACITY + 1];
  for (int i = 0; i <= CAPACITY; i++) {
    p[i] = valid_param(0);
  }
  void *image = new_image();
  ck_assert_int_eq(sg_k_refresh_build(NULL, CAPACITY, p, 1), cudaErrorInvalidValue);
  ck_assert_int_eq(sg_k_refresh_build(image, CAPACITY, NULL, 1), cudaErrorInvalidValue);
  ck_assert_int_eq(sg_k_refresh_build(image, CAPACITY, p, CAPACITY + 1), cudaErrorInvalidValue);
  ck_assert_int_eq(sg_k_refresh_build(image, CAPACITY, p, CAPACITY), cudaSuccess);
  ck_assert_int_eq(sg_k_refresh_build(image, CAPACITY, NULL, 0), cudaSuccess);
  ck_assert_uint_eq(((const sg_k_table *)image)->count, 0);
  free(image);
}
END_TEST

/* Groups 2, 0, 2, 0 come out as 0, 0, 2, 2 in their original order, and
 * each mode's work items form one list in that order. */
START_TEST(sorts_by_group_and_lays_out_items) {
  sg_k_param p[4] = {valid_param(2), valid_param(0), valid_param(2), valid_param(0)};
  p[1].rows = 1;
  p[1].cols = 129;
  p[1].ld_w = p[1].ld_master = 129;
  p[1].ld_wt = 1;
  p[2].master_dtype = SG_K_MASTER_NONE;
  p[3].range_begin = 7;
  p[3].range_end = 7 + 2 * SG_K_CAST_ITEM + 1;
  void *image = new_image();
  ck_assert_int_eq(sg_k_refresh_build(image, CAPACITY, p, 4), cudaSuccess);
  const sg_k_desc *d = descs_of(image);
  const uint32_t order[4] = {1, 3, 0, 2};
  for (int i = 0; i < 4; i++) {
    ck_assert_uint_eq(d[i].index, order[i]);
  }
  ck_assert_uint_eq(d[0].items[SG_K_MODE_TRANSPOSE], 1);      /* 1 x 129, dense Wt: a span */
  ck_assert_uint_eq(d[0].items[SG_K_MODE_CAST_TRANSPOSE], 1); /* a span too */
  ck_assert_uint_eq(d[2].items[SG_K_MODE_TRANSPOSE], 9);     /* 300 x 300: 3 x 3 */
  ck_assert_uint_eq(d[2].items[SG_K_MODE_CAST_TRANSPOSE], 9);
  ck_assert_uint_eq(d[1].items[SG_K_MODE_CAST], 3);          /* 2 items + 1 element */
  ck_assert_uint_eq(d[3].items[SG_K_MODE_CAST], 0);          /* no master */
  ck_assert_uint_eq(d[3].items[SG_K_MODE_CAST_TRANSPOSE], 0);
  const sg_k_table *t = image;
  for (int m = 0; m < SG_K_LIST_COUNT; m++) {
    uint64_t next = 0;
    for (int i = 0; i < 4; i++) {
      ck_assert_uint_eq(d[i].item_first[m], next);
      next += d[i].items[m];
    }
    ck_assert_uint_eq(t->total_items[m], next);
  }
  free(image);
}
END_TEST

/* The table's order: descriptor i is parameter order[i], whole as said,
 * of group `group` (UINT32_MAX: its own), items one list in that order. */
static void expect_order(void *image, const sg_k_param *p, const uint32_t order[5],
                         const bool whole[5], uint32_t group) {
  const sg_k_desc *d = descs_of(image);
  uint64_t next = 0;
  for (int i = 0; i < 5; i++) {
    ck_assert_uint_eq(d[i].index, order[i]);
    ck_assert_uint_eq((d[i].vec & SG_K_VEC_WHOLE_T) != 0, whole[i]);
    ck_assert_uint_eq(d[i].group, group == UINT32_MAX ? p[order[i]].group : group);
    ck_assert_uint_eq(d[i].item_first[SG_K_LIST_TRANSPOSE], next);
    next += d[i].items[SG_K_LIST_TRANSPOSE];
  }
}

/* Inside a group, parameters whose transpose tiles are all whole (a
 * multiple of 128 both ways, W and Wt rows 16-byte aligned) come first,
 * marked SG_K_VEC_WHOLE_T, each part in the caller's order; items stay
 * one list in the table's order. The merged table holds every parameter
 * as group 0, the whole ones first. */
START_TEST(whole_transposes_first_in_their_group) {
  sg_k_param p[5] = {valid_param(1), valid_param(0), valid_param(1), valid_param(1),
                     valid_param(0)};
  for (int i = 2; i < 5; i++) { /* 2, 3 (group 1) and 4 (group 0): 256 x 384, whole */
    p[i].rows = 256;
    p[i].cols = 384;
    p[i].ld_w = p[i].ld_master = 384;
    p[i].ld_wt = 256;
  }
  void *image = new_image();
  ck_assert_int_eq(sg_k_refresh_build(image, CAPACITY, p, 5), cudaSuccess);
  const uint32_t order[5] = {4, 1, 2, 3, 0};
  const bool whole[5] = {true, false, true, true, false};
  expect_order(image, p, order, whole, UINT32_MAX);
  ck_assert_uint_eq(descs_of(image)[0].items[SG_K_LIST_TRANSPOSE], 6); /* 2 x 3 tiles */
  /* merged: one run of group 0, every whole parameter first */
  ck_assert_int_eq(sg_k_refresh_build_merged(image, CAPACITY, p, 5), cudaSuccess);
  const uint32_t merged_order[5] = {2, 3, 4, 0, 1};
  const bool merged_whole[5] = {true, true, true, false, false};
  expect_order(image, p, merged_order, merged_whole, 0);
  free(image);
}
END_TEST

/* The cast view is one long row only when W and the master are dense; an
 * empty owned range still has one item (it writes amax and scale_inv). */
START_TEST(cast_view_and_alignment) {
  sg_k_param p[3] = {valid_param(0), valid_param(0), valid_param(0)};
  p[1].ld_w = 300;
  p[1].master_dtype = SG_K_MASTER_BF16;
  p[1].range_begin = p[1].range_end = 500;
  p[2].w = (uint8_t *)(uintptr_t)0x100001;
  p[2].ld_wt = 301;
  void *image = new_image();
  ck_assert_int_eq(sg_k_refresh_build(image, CAPACITY, p, 3), cudaSuccess);
  const sg_k_desc *d = descs_of(image);
  ck_assert_uint_eq(d[0].flat_cols, 300);
  ck_assert_uint_eq(d[1].flat_cols, 300 * 300);
  ck_assert_uint_eq(d[1].items[SG_K_MODE_CAST], 1);
  ck_assert_uint_eq(d[0].range_end, 300 * 300);
  /* Rows start 16-byte aligned when the base is and ld * element size is a
   * multiple of 16: FP32 ld 300 is (1200 B), BF16 ld 300 (600 B) and FP8
   * ld 300 are not. */
  ck_assert_uint_eq(d[0].vec, SG_K_VEC_W | SG_K_VEC_WT | SG_K_VEC_MASTER);
  ck_assert_uint_eq(d[1].vec, SG_K_VEC_WT);
  ck_assert_uint_eq(d[2].vec, SG_K_VEC_MASTER);
  free(image);
}
END_TEST

/* SG_K_VEC_REALIGN: Wt rows odd (address or pitch) and at least 4096 bytes
 * long, tiles in the transpose; not even or shorter rows, nor a dense
 * vector's (a copy, block-scaled or not). */
START_TEST(odd_long_wt_rows_realign) {
  sg_k_param p[6] = {valid_param(0), valid_param(0), valid_param(0), valid_param(0),
                     valid_param(0)};
  for (uint32_t i = 0; i < 5; i++) {
    p[i].rows = i == 1 ? 4095 : 4097;
    p[i].ld_wt = p[i].rows;
    p[i].master = NULL;
    p[i].master_dtype = SG_K_MASTER_NONE;
  }
  p[2].ld_wt = 4098;                           /* even pitch, aligned base */
  p[3].wt = (uint8_t *)(uintptr_t)0x200001;    /* odd base, even pitch */
  p[3].ld_wt = 4098;
  p[4].cols = p[4].ld_w = 1;                   /* N x 1: W and Wt one run */
  p[5] = p[4];                                 /* the same, block-scaled: linear too */
  p[5].recipe = SG_K_RECIPE_BLOCK;
  p[5].grid = (float *)(uintptr_t)0x500000;
  p[5].grid_t = (float *)(uintptr_t)0x600000;
  p[5].ld_grid = 1;
  p[5].ld_grid_t = (p[5].rows + SG_K_TILE - 1) / SG_K_TILE;
  void *image = new_image();
  ck_assert_int_eq(sg_k_refresh_build(image, CAPACITY, p, 6), cudaSuccess);
  const sg_k_desc *d = descs_of(image);
  static const int kWant[6] = {1, 0, 0, 1, 0, 0};
  for (uint32_t i = 0; i < 6; i++) {
    ck_assert_msg(((d[i].vec & SG_K_VEC_REALIGN) != 0) == kWant[i], "param %u: vec 0x%x", i,
                  d[i].vec);
  }
  free(image);
}
END_TEST

/* SG_K_VEC_REALIGN_CT: a realigned parameter whose cast-transpose stages
 * every tile (a master, not block-scaled, columns a multiple of 128, W and
 * master rows 16-byte aligned); none of the others. */
START_TEST(cast_transpose_realigns_staged_tiles) {
  sg_k_param p[6];
  for (uint32_t i = 0; i < 6; i++) {
    p[i] = valid_param(0);
    p[i].rows = p[i].ld_wt = 4097;
    p[i].cols = p[i].ld_w = p[i].ld_master = 256;
  }
  p[1].cols = p[1].ld_master = 200;          /* an edge column of tiles */
  p[2].ld_w = 264;                           /* W rows 8-byte aligned */
  p[3].master = (const void *)(uintptr_t)0x300004; /* master rows 4-byte aligned */
  p[4].recipe = SG_K_RECIPE_BLOCK;           /* block scaling's own kernel */
  p[4].grid = (float *)(uintptr_t)0x500000;
  p[4].grid_t = (float *)(uintptr_t)0x600000;
  p[4].ld_grid = 2;
  p[4].ld_grid_t = (p[4].rows + SG_K_TILE - 1) / SG_K_TILE;
  p[5].ld_wt = 4098;                         /* Wt rows even: nothing to realign */
  void *image = new_image();
  ck_assert_int_eq(sg_k_refresh_build(image, CAPACITY, p, 6), cudaSuccess);
  const sg_k_desc *d = descs_of(image);
  static const int kRealign[6] = {1, 1, 1, 1, 1, 0};
  static const int kCt[6] = {1, 0, 0, 0, 0, 0};
  for (uint32_t i = 0; i < 6; i++) {
    ck_assert_msg(((d[i].vec & SG_K_VEC_REALIGN) != 0) == kRealign[i] &&
                      ((d[i].vec & SG_K_VEC_REALIGN_CT) != 0) == kCt[i],
                  "param %u: vec 0x%x", i, d[i].vec);
  }
  free(image);
}
END_TEST

/* A dense vector's transpose is a copy of SG_K_LINEAR_ITEM-byte spans
 * (W and Wt the same bytes): 1 x N with Wt's rows 1 apart, N x 1 with W's,
 * both 16-byte aligned, in every recipe (block scaling's span also copies
 * its grid entries). Its cast-transpose, and block scaling's blocks, go in
 * spans of as many elements where the master is contiguous too
 * (SG_K_VEC_SPANS). Anything else is tiles. */
START_TEST(dense_vectors_transpose_in_linear_spans) {
  sg_k_param p[7];
  for (int i = 0; i < 7; i++) {
    p[i] = valid_param(0);
    p[i].rows = 1;
    p[i].cols = 40000;
    p[i].ld_w = p[i].ld_master = 40000;
    p[i].ld_wt = 1;
  }
  p[1].rows = 40000; /* N x 1, dense W */
  p[1].cols = 1;
  p[1].ld_w = p[1].ld_master = 1;
  p[1].ld_wt = 40000;
  p[2] = p[1];
  p[2].ld_w = 2; /* W's rows 2 apart */
  p[3].ld_wt = 2; /* Wt's rows 2 apart */
  p[4].w = (uint8_t *)(uintptr_t)0x100008;
  p[5].wt = (uint8_t *)(uintptr_t)0x200004;
  p[6] = p[1];
  p[6].ld_master = 2; /* the master's rows 2 apart */
  void *image = new_image();
  ck_assert_int_eq(sg_k_refresh_build(image, CAPACITY, p, 7), cudaSuccess);
  const sg_k_desc *d = descs_of(image);
  const uint64_t spans = (40000 + SG_K_LINEAR_ITEM - 1) / SG_K_LINEAR_ITEM; /* 3 */
  const uint64_t tiles = (40000 + SG_K_TILE - 1) / SG_K_TILE;
  for (int i = 0; i < 7; i++) {
    const bool linear = i < 2 || i == 6; /* the transpose never reads the master */
    const bool in_spans = i < 2;
    ck_assert_msg(sg_k_linear(&p[i]) == linear, "param %d", i);
    ck_assert_msg(sg_k_spans(&p[i]) == in_spans, "param %d", i);
    ck_assert_uint_eq(d[i].vec & (SG_K_VEC_LINEAR | SG_K_VEC_SPANS),
                      (linear ? SG_K_VEC_LINEAR : 0u) | (in_spans ? SG_K_VEC_SPANS : 0u));
    ck_assert_uint_eq(d[i].items[SG_K_MODE_TRANSPOSE], linear ? spans : tiles);
    ck_assert_uint_eq(d[i].items[SG_K_MODE_CAST_TRANSPOSE], in_spans ? spans : tiles);
  }
  ck_assert_uint_eq(d[1].item_first[SG_K_MODE_TRANSPOSE], spans);
  ck_assert_uint_eq(sg_k_linear_bytes(1, 40000, 0), SG_K_LINEAR_ITEM);
  ck_assert_uint_eq(sg_k_linear_bytes(40000, 1, 2), 40000 - 2 * SG_K_LINEAR_ITEM); /* ragged */
  ck_assert_uint_eq(sg_k_linear_bytes(1, 1, 0), 1);
  p[0].recipe = SG_K_RECIPE_CURRENT;
  ck_assert(sg_k_linear(&p[0]));
  /* Block scaling: blocks cast in spans (not for a strided master), the
   * transpose linear too. */
  sg_k_param b[2] = {p[0], p[6]};
  for (int i = 0; i < 2; i++) {
    b[i].recipe = SG_K_RECIPE_BLOCK;
    b[i].grid = (float *)(uintptr_t)0x500000;
    b[i].grid_t = (float *)(uintptr_t)0x600000;
    b[i].ld_grid = (b[i].cols + SG_K_TILE - 1) / SG_K_TILE;
    b[i].ld_grid_t = (b[i].rows + SG_K_TILE - 1) / SG_K_TILE;
  }
  ck_assert(sg_k_linear(&b[0]));
  ck_assert(sg_k_linear(&b[1]));
  ck_assert(sg_k_spans(&b[0]));
  ck_assert(!sg_k_spans(&b[1]));
  p[0].master_dtype = SG_K_MASTER_NONE; /* nothing to cast */
  ck_assert(sg_k_linear(&p[0]));
  ck_assert(!sg_k_spans(&p[0]));
  ck_assert_int_eq(sg_k_refresh_build(image, CAPACITY, b, 2), cudaSuccess);
  ck_assert_uint_eq(d[0].vec & (SG_K_VEC_LINEAR | SG_K_VEC_SPANS),
                    SG_K_VEC_LINEAR | SG_K_VEC_SPANS);
  ck_assert_uint_eq(d[0].items[SG_K_LIST_BLOCK], spans);
  ck_assert_uint_eq(d[0].items[SG_K_MODE_TRANSPOSE], spans);
  ck_assert_uint_eq(d[1].vec & (SG_K_VEC_LINEAR | SG_K_VEC_SPANS), SG_K_VEC_LINEAR);
  ck_assert_uint_eq(d[1].items[SG_K_MODE_TRANSPOSE], spans);
  ck_assert_uint_eq(d[1].items[SG_K_LIST_BLOCK], tiles);
  free(image);
}
END_TEST

/* Each recipe's work items and what its descriptor keeps: current scaling
 * has no scale of its own (the launch's scratch holds it) and an amax pass
 * over all of it; block scaling casts tile by tile in its own list, keeps
 * its grids and none of the scalars; the recipe's facts ride in vec. */
START_TEST(recipes_items_and_descriptors) {
  sg_k_param p[4] = {valid_param(0), recipe_param(0), recipe_param(1), recipe_param(1)};
  p[3].master_dtype = SG_K_MASTER_NONE;
  p[3].master = NULL;
  p[3].recipe_flags = 0;
  void *image = new_image();
  ck_assert_int_eq(sg_k_refresh_build(image, CAPACITY, p, 4), cudaSuccess);
  const sg_k_desc *d = descs_of(image);
  const uint64_t cast_items = (300 * 300 + SG_K_CAST_ITEM - 1) / SG_K_CAST_ITEM;
  const uint64_t want[4][SG_K_LIST_COUNT] = {{9, cast_items, 9, 0, 0},
                                             {9, cast_items, 9, cast_items, 0},
                                             {9, 0, 0, 0, 9},
                                             {9, 0, 0, 0, 0}};
  for (int i = 0; i < 4; i++) {
    for (int l = 0; l < SG_K_LIST_COUNT; l++) {
      ck_assert_msg(d[i].items[l] == want[i][l], "param %d list %d: %llu items", i, l,
                    (unsigned long long)d[i].items[l]);
    }
  }
  ck_assert_ptr_nonnull(d[0].scale);
  ck_assert_ptr_null(d[1].scale);
  ck_assert_ptr_nonnull(d[1].scale_inv);
  ck_assert_ptr_null(d[0].grid);
  ck_assert_ptr_null(d[1].grid_t);
  ck_assert_ptr_eq(d[2].grid, p[2].grid);
  ck_assert_ptr_eq(d[2].grid_t, p[2].grid_t);
  ck_assert_uint_eq(d[2].ld_grid_t, 4);
  ck_assert_ptr_null(d[2].scale_inv);
  ck_assert_ptr_null(d[2].amax);
  ck_assert_uint_eq(d[0].vec & (SG_K_VEC_GRID | SG_K_VEC_POW2), 0);
  ck_assert_uint_eq(d[1].vec & (SG_K_VEC_GRID | SG_K_VEC_POW2), SG_K_VEC_POW2);
  ck_assert_uint_eq(d[2].vec & (SG_K_VEC_GRID | SG_K_VEC_POW2), SG_K_VEC_GRID | SG_K_VEC_POW2);
  ck_assert_uint_eq(d[3].vec & (SG_K_VEC_GRID | SG_K_VEC_POW2), SG_K_VEC_GRID);
  ck_assert_uint_eq(d[1].recipe, SG_K_RECIPE_CURRENT);
  const sg_k_table *t = image;
  ck_assert_uint_eq(t->total_items[SG_K_LIST_AMAX], cast_items);
  ck_assert_uint_eq(t->total_items[SG_K_LIST_BLOCK], 9);
  ck_assert_uint_eq(d[3].item_first[SG_K_LIST_BLOCK], 9);
  free(image);
}
END_TEST

int main(void) {
  Suite *s = suite_create("refresh_table");
  TCase *tc = tcase_create("build");
  tcase_add_loop_test(tc, rejects_each_invalid_field, 0, 17);
  tcase_add_loop_test(tc, rejects_each_invalid_recipe_field, 0, 12);
  tcase_add_test(tc, accepts_what_recipes_allow);
  tcase_add_test(tc, recipes_items_and_descriptors);
  tcase_add_test(tc, rejects_bad_arguments);
  tcase_add_test(tc, sorts_by_group_and_lays_out_items);
  tcase_add_test(tc, whole_transposes_first_in_their_group);
  tcase_add_test(tc, cast_view_and_alignment);
  tcase_add_test(tc, dense_vectors_transpose_in_linear_spans);
  tcase_add_test(tc, odd_long_wt_rows_realign);
  tcase_add_test(tc, cast_transpose_realigns_staged_tiles);
  suite_add_tcase(s, tc);
  return sg_run_suite(s, CK_FORK);
}

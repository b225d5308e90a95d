/* The launch plans without a GPU (refresh.h: sg_k_refresh_plan and the
 * group plans a caller keeps): which work lists a selection has, its first
 * parameter without a master, in which tile lists every tile is whole
 * and in which some carry block grids, when a transpose splits into its
 * whole parameters and the rest, every group's plan equal to the plan of
 * that group alone, the search, the kernels each mode runs in order, and
 * where a transpose realigns Wt rows. */
#include <check.h>
#include <string.h>

#include "refresh.h"
#include "sg_run_suite.h"

enum { MAX_PARAMS = 64 };

#define LIST(l) (1u << (l))

/* Device pointers are only stored, never touched. */
static sg_k_param param(uint32_t recipe, int with_master, uint32_t group) {
  sg_k_param p;
  memset(&p, 0, sizeof p);
  p.w = (uint8_t *)(uintptr_t)0x100000;
  p.wt = (uint8_t *)(uintptr_t)0x200000;
  p.rows = p.cols = p.ld_w = p.ld_wt = 300;
  p.format = SG_K_FP8_E4M3;
  p.recipe = recipe;
  p.group = group;
  if (with_master) {
    p.master_dtype = SG_K_MASTER_BF16;
    p.master = (const void *)(uintptr_t)0x300000;
    p.ld_master = 300;
  }
  return p;
}

START_TEST(lists_follow_the_recipes) {
  const sg_k_param delayed = param(SG_K_RECIPE_DELAYED, 1, 0);
  const sg_k_param current = param(SG_K_RECIPE_CURRENT, 1, 0);
  const sg_k_param block = param(SG_K_RECIPE_BLOCK, 1, 0);
  const sg_k_param bare = param(SG_K_RECIPE_BLOCK, 0, 0);
  const uint32_t modes = LIST(SG_K_LIST_TRANSPOSE) | LIST(SG_K_LIST_CAST) |
                         LIST(SG_K_LIST_CAST_TRANSPOSE);
  ck_assert_uint_eq(sg_k_refresh_plan(&delayed, 1, SG_K_ALL_GROUPS).lists, modes);
  ck_assert_uint_eq(sg_k_refresh_plan(&current, 1, SG_K_ALL_GROUPS).lists,
                    modes | LIST(SG_K_LIST_AMAX));
  ck_assert_uint_eq(sg_k_refresh_plan(&block, 1, SG_K_ALL_GROUPS).lists,
                    LIST(SG_K_LIST_TRANSPOSE) | LIST(SG_K_LIST_BLOCK));
  ck_assert_uint_eq(sg_k_refresh_plan(&bare, 1, SG_K_ALL_GROUPS).lists,
                    LIST(SG_K_LIST_TRANSPOSE));
  const sg_k_plan none = sg_k_refresh_plan(NULL, 0, SG_K_ALL_GROUPS);
  ck_assert_uint_eq(none.lists, 0);
  ck_assert_uint_eq(none.params, 0);
  ck_assert_uint_eq(none.first_without_master, UINT32_MAX);
  ck_assert_uint_eq(none.layout, SG_K_LAYOUT_NARROW);
}
END_TEST

START_TEST(first_without_master_and_group_selection) {
  const sg_k_param p[5] = {param(0, 1, 7), param(2, 0, 3), param(1, 1, 3), param(0, 0, 7),
                           param(0, 0, 3)};
  const sg_k_plan all = sg_k_refresh_plan(p, 5, SG_K_ALL_GROUPS);
  ck_assert_uint_eq(all.params, 5);
  ck_assert_uint_eq(all.first_without_master, 1);
  const sg_k_plan g7 = sg_k_refresh_plan(p, 5, 7);
  ck_assert_uint_eq(g7.params, 2);
  ck_assert_uint_eq(g7.first_without_master, 3);
  ck_assert_uint_eq(g7.lists & LIST(SG_K_LIST_AMAX), 0);
  const sg_k_plan g3 = sg_k_refresh_plan(p, 5, 3);
  ck_assert_uint_eq(g3.lists & LIST(SG_K_LIST_AMAX), LIST(SG_K_LIST_AMAX));
  ck_assert_uint_eq(sg_k_refresh_plan(p, 5, 4).params, 0);
}
END_TEST

#define WHOLE_T LIST(SG_K_LIST_TRANSPOSE)
#define WHOLE_CT LIST(SG_K_LIST_CAST_TRANSPOSE)

static uint32_t whole_of(const sg_k_param *p, uint32_t n) {
  return sg_k_refresh_plan(p, n, SG_K_ALL_GROUPS).whole;
}

static uint32_t grids_of(const sg_k_param *p, uint32_t n, uint32_t group) {
  return sg_k_refresh_plan(p, n, group).grids;
}

/* A parameter of rows x cols (W, Wt and a BF16 master dense, aligned). */
static sg_k_param shaped(uint32_t recipe, uint64_t rows, uint64_t cols) {
  sg_k_param p = param(recipe, 1, 0);
  p.rows = rows;
  p.cols = p.ld_w = p.ld_master = cols;
  p.ld_wt = rows;
  return p;
}

/* Whole: multiples of 128 both ways, every row of W, Wt (and, for the
 * cast-transpose, the master) 16-byte aligned, block grids or not; a list a
 * parameter has no tiles in stays whole; one partial parameter makes the
 * selection partial; nothing selected is whole. */
START_TEST(whole_tiles) {
  const sg_k_param gpt = shaped(SG_K_RECIPE_DELAYED, 2048, 8192);
  ck_assert_uint_eq(whole_of(&gpt, 1), WHOLE_T | WHOLE_CT);
  ck_assert_uint_eq(whole_of(NULL, 0), WHOLE_T | WHOLE_CT);
  const sg_k_param current = shaped(SG_K_RECIPE_CURRENT, 256, 384);
  ck_assert_uint_eq(whole_of(&current, 1), WHOLE_T | WHOLE_CT);
  const sg_k_param block = shaped(SG_K_RECIPE_BLOCK, 256, 384);
  ck_assert_uint_eq(whole_of(&block, 1), WHOLE_T | WHOLE_CT); /* no cast-transpose tiles */
  sg_k_param bare = shaped(SG_K_RECIPE_DELAYED, 128, 128);
  bare.master_dtype = SG_K_MASTER_NONE;
  bare.master = NULL;
  bare.ld_master = 0;
  ck_assert_uint_eq(whole_of(&bare, 1), WHOLE_T | WHOLE_CT);
  const sg_k_param edge_rows = shaped(SG_K_RECIPE_DELAYED, 4097, 4096);
  const sg_k_param edge_cols = shaped(SG_K_RECIPE_DELAYED, 4096, 4099);
  ck_assert_uint_eq(whole_of(&edge_rows, 1), 0);
  ck_assert_uint_eq(whole_of(&edge_cols, 1), 0);
  sg_k_param w_off = gpt;
  w_off.w += 8;
  ck_assert_uint_eq(whole_of(&w_off, 1), 0);
  sg_k_param wt_ld = gpt;
  wt_ld.ld_wt = gpt.rows + 8;
  ck_assert_uint_eq(whole_of(&wt_ld, 1), 0);
  sg_k_param m_ld = gpt;
  m_ld.ld_master = gpt.cols + 4; /* 8 bytes past a 16-byte row */
  ck_assert_uint_eq(whole_of(&m_ld, 1), WHOLE_T);
  const sg_k_param mixed[3] = {gpt, current, edge_cols};
  ck_assert_uint_eq(whole_of(mixed, 2), WHOLE_T | WHOLE_CT);
  ck_assert_uint_eq(whole_of(mixed, 3), 0);
  const sg_k_param with_block[3] = {gpt, block, edge_cols};
  ck_assert_uint_eq(whole_of(with_block, 2), WHOLE_T | WHOLE_CT);
}
END_TEST

/* Split: one group whose whole-tile parameters hold at least 3/4 of its
 * tiles, but not all, runs its transpose in two parts, each in the layout
 * its own tiles suit (Llama-3's embedding wide, GPT-2's odd one narrow),
 * and its cast-transpose too where both parts cast tiles and the whole
 * part's are whole (not with the embedding's master rows unaligned, nor
 * with either part block-scaled: no cast-transpose tiles); below 3/4, all
 * whole, none whole or a selection of two groups: one launch, no split. */
START_TEST(split_whole_from_the_rest) {
  const uint32_t t = WHOLE_T, tc = WHOLE_T | WHOLE_CT;
  sg_k_param model[3] = {shaped(SG_K_RECIPE_DELAYED, 128256, 4096),
                         shaped(SG_K_RECIPE_DELAYED, 50257, 768),
                         shaped(SG_K_RECIPE_DELAYED, 4096, 4096)};
  const sg_k_plan both = sg_k_refresh_plan(model, 2, SG_K_ALL_GROUPS);
  ck_assert_uint_eq(both.whole & t, 0);
  ck_assert_uint_eq(both.split, tc);
  ck_assert_uint_eq(both.layout, SG_K_LAYOUT_WIDE);
  ck_assert_uint_eq(both.rest_layout, SG_K_LAYOUT_NARROW);
  ck_assert_uint_eq(sg_k_refresh_plan(model, 2, 0).split, tc); /* the same, as group 0 */
  sg_k_param variant[2] = {model[0], model[1]};
  variant[0].ld_master = 4096 + 4; /* 8 bytes past a 16-byte row */
  ck_assert_uint_eq(sg_k_refresh_plan(variant, 2, SG_K_ALL_GROUPS).split, t);
  variant[0] = model[0];
  variant[0].recipe = SG_K_RECIPE_BLOCK;
  ck_assert_uint_eq(sg_k_refresh_plan(variant, 2, SG_K_ALL_GROUPS).split, t);
  variant[0] = model[0];
  variant[1].recipe = SG_K_RECIPE_BLOCK;
  ck_assert_uint_eq(sg_k_refresh_plan(variant, 2, SG_K_ALL_GROUPS).split, t);
  ck_assert_uint_eq(sg_k_refresh_plan(model, 1, SG_K_ALL_GROUPS).split, 0); /* all whole */
  ck_assert_uint_eq(sg_k_refresh_plan(&model[1], 1, SG_K_ALL_GROUPS).split, 0); /* none */
  /* [4096, 4096] (1024 tiles) against [50257, 768] (2358): under 3/4 */
  const sg_k_param small_whole[2] = {model[2], model[1]};
  ck_assert_uint_eq(sg_k_refresh_plan(small_whole, 2, SG_K_ALL_GROUPS).split, 0);
  /* two groups: the table's runs of each hold whole parameters first, so
   * one group's selection splits and a selection of both does not */
  model[1].group = 1;
  model[2].group = 1;
  model[2].rows = 50176; /* 392 x 32 tiles, against 393 x 6 */
  model[2].ld_wt = 50176;
  ck_assert_uint_eq(sg_k_refresh_plan(model, 3, 1).split, tc);
  ck_assert_uint_eq(sg_k_refresh_plan(model, 3, SG_K_ALL_GROUPS).split, 0);
  ck_assert_uint_eq(sg_k_refresh_plan(model, 3, 0).split, 0); /* group 0: all whole */
  /* the merged table holds them as one run, whole ones first: it splits */
  const sg_k_plan merged = sg_k_refresh_plan_merged(model, 3);
  ck_assert_uint_eq(merged.split, tc);
  ck_assert_uint_eq(merged.params, 3);
  ck_assert_uint_eq(merged.lists, sg_k_refresh_plan(model, 3, SG_K_ALL_GROUPS).lists);
  ck_assert_uint_eq(sg_k_refresh_plan_merged(model, 1).split, 0); /* all whole */
}
END_TEST

/* Grids: the transpose list of a selection with a block-scaled parameter,
 * whole or not, and of no other; the cast-transpose list never (block
 * scaling casts in the block list). */
START_TEST(grid_lists) {
  sg_k_param p[4] = {shaped(SG_K_RECIPE_DELAYED, 2048, 8192), shaped(SG_K_RECIPE_CURRENT, 256, 384),
                     shaped(SG_K_RECIPE_BLOCK, 256, 384), shaped(SG_K_RECIPE_BLOCK, 129, 300)};
  p[1].group = 1;
  p[2].group = 2;
  p[3].group = 3;
  ck_assert_uint_eq(grids_of(p, 2, SG_K_ALL_GROUPS), 0);
  ck_assert_uint_eq(grids_of(p, 3, SG_K_ALL_GROUPS), WHOLE_T);
  ck_assert_uint_eq(grids_of(p, 4, 0), 0);
  ck_assert_uint_eq(grids_of(p, 4, 2), WHOLE_T);
  ck_assert_uint_eq(grids_of(p, 4, 3), WHOLE_T);
  ck_assert_uint_eq(grids_of(p, 4, 9), 0);
  ck_assert_uint_eq(grids_of(NULL, 0, SG_K_ALL_GROUPS), 0);
  ck_assert_uint_eq(whole_of(&p[3], 1), WHOLE_CT);
  sg_k_group_plan plans[4];
  ck_assert_uint_eq(sg_k_refresh_group_plans(p, 4, plans), 4);
  for (uint32_t g = 0; g < 4; g++) {
    ck_assert_uint_eq(plans[g].plan.grids, g >= 2 ? WHOLE_T : 0);
  }
}
END_TEST

/* Pseudo-random shapes, recipes, masters and groups: every group's kept
 * plan is the plan of that group alone, groups come sorted, and a group
 * nobody has is not found. */
START_TEST(group_plans_equal_single_plans) {
  sg_k_param p[MAX_PARAMS];
  sg_k_group_plan plans[MAX_PARAMS];
  uint32_t x = 12345u + (uint32_t)_i;
  const uint32_t n = 1 + (uint32_t)_i * 7 % MAX_PARAMS;
  for (uint32_t i = 0; i < n; i++) {
    x = x * 1664525u + 1013904223u;
    p[i] = param((x >> 8) % 3, (x >> 12) % 4 != 0, (x >> 16) % 9 * 1000u);
    if (p[i].recipe == SG_K_RECIPE_CURRENT && p[i].master == NULL) {
      p[i].recipe = SG_K_RECIPE_DELAYED;
    }
    p[i].rows = (x >> 20) % 3 == 0 ? 256 : 1 + (x >> 20) % 700; /* 256 x 384: whole */
    p[i].cols = p[i].ld_w = p[i].ld_master = (x >> 24) % 2 == 0 ? 384 : 300;
    p[i].ld_wt = p[i].rows;
  }
  const uint32_t groups = sg_k_refresh_group_plans(p, n, plans);
  ck_assert_uint_ge(groups, 1);
  for (uint32_t g = 0; g < groups; g++) {
    if (g > 0) {
      ck_assert_uint_lt(plans[g - 1].group, plans[g].group);
    }
    const sg_k_plan want = sg_k_refresh_plan(p, n, plans[g].group);
    const sg_k_plan *got = sg_k_refresh_find_plan(plans, groups, plans[g].group);
    ck_assert_ptr_nonnull(got);
    ck_assert_msg(memcmp(got, &want, sizeof want) == 0, "group %u differs", plans[g].group);
  }
  ck_assert_ptr_null(sg_k_refresh_find_plan(plans, groups, 500));
  ck_assert_ptr_null(sg_k_refresh_find_plan(plans, groups, UINT32_MAX - 1));
}
END_TEST

/* realign: the transpose's bit set by a parameter whose Wt rows are odd
 * (an odd address or pitch) and at least 4096 bytes long, in any recipe;
 * not by even or short rows, nor by a dense vector (its transpose is a
 * copy). The cast-transpose's bit only where such a parameter's
 * cast-transpose stages every tile: a master, no block scaling, columns a
 * multiple of 128, W and master rows 16-byte aligned (GPT-2's
 * [50257, 768]). */
START_TEST(realign_where_wt_rows_are_odd_and_long) {
  const uint32_t t = LIST(SG_K_LIST_TRANSPOSE), ct = LIST(SG_K_LIST_CAST_TRANSPOSE);
  const sg_k_param odd = shaped(SG_K_RECIPE_DELAYED, 4097, 200);
  sg_k_param shifted = shaped(SG_K_RECIPE_BLOCK, 4096, 256);
  shifted.wt = (uint8_t *)(uintptr_t)0x200001;
  const sg_k_param even = shaped(SG_K_RECIPE_DELAYED, 4098, 200);
  const sg_k_param shorter = shaped(SG_K_RECIPE_DELAYED, 4095, 200);
  sg_k_param vector = shaped(SG_K_RECIPE_DELAYED, 5001, 1);
  vector.ld_w = vector.ld_master = 1;
  const sg_k_param gpt2 = shaped(SG_K_RECIPE_CURRENT, 50257, 768);
  sg_k_param bare = shaped(SG_K_RECIPE_DELAYED, 50257, 768);
  bare.master_dtype = SG_K_MASTER_NONE;
  bare.master = NULL;
  sg_k_param padded_w = gpt2;
  padded_w.ld_w = 776;
  sg_k_param odd_master = gpt2;
  odd_master.master = (const void *)(uintptr_t)0x300002;
  ck_assert_uint_eq(sg_k_refresh_plan(&odd, 1, SG_K_ALL_GROUPS).realign, t);
  ck_assert_uint_eq(sg_k_refresh_plan(&shifted, 1, SG_K_ALL_GROUPS).realign, t);
  ck_assert_uint_eq(sg_k_refresh_plan(&even, 1, SG_K_ALL_GROUPS).realign, 0);
  ck_assert_uint_eq(sg_k_refresh_plan(&shorter, 1, SG_K_ALL_GROUPS).realign, 0);
  ck_assert_uint_eq(sg_k_refresh_plan(&vector, 1, SG_K_ALL_GROUPS).realign, 0);
  ck_assert_uint_eq(sg_k_refresh_plan(&gpt2, 1, SG_K_ALL_GROUPS).realign, t | ct);
  ck_assert_uint_eq(sg_k_refresh_plan(&bare, 1, SG_K_ALL_GROUPS).realign, t);
  ck_assert_uint_eq(sg_k_refresh_plan(&padded_w, 1, SG_K_ALL_GROUPS).realign, t);
  ck_assert_uint_eq(sg_k_refresh_plan(&odd_master, 1, SG_K_ALL_GROUPS).realign, t);
  const sg_k_param mixed[4] = {even, odd, shorter, gpt2};
  ck_assert_uint_eq(sg_k_refresh_plan(mixed, 3, SG_K_ALL_GROUPS).realign, t);
  ck_assert_uint_eq(sg_k_refresh_plan(mixed, 4, SG_K_ALL_GROUPS).realign, t | ct);
  ck_assert_uint_eq(sg_k_refresh_plan(mixed, 1, SG_K_ALL_GROUPS).realign, 0);
}
END_TEST

/* pairs: set where block scaling's tiles of 64 rows or fewer (a
 * parameter's last row of tiles) are at least 3/4 of its tiles; not by
 * other recipes' short tiles, 65-row ones, or a dense vector (spans). */
START_TEST(pairs_where_short_block_tiles_are_many) {
  const sg_k_param small = shaped(SG_K_RECIPE_BLOCK, 64, 4096); /* 32 short tiles */
  const sg_k_param taller = shaped(SG_K_RECIPE_BLOCK, 65, 4096);
  const sg_k_param delayed = shaped(SG_K_RECIPE_DELAYED, 64, 4096);
  sg_k_param vector = shaped(SG_K_RECIPE_BLOCK, 1, 4096);
  vector.ld_wt = 1;
  ck_assert_uint_ne(sg_k_refresh_plan(&small, 1, SG_K_ALL_GROUPS).pairs, 0);
  ck_assert_uint_eq(sg_k_refresh_plan(&taller, 1, SG_K_ALL_GROUPS).pairs, 0);
  ck_assert_uint_eq(sg_k_refresh_plan(&delayed, 1, SG_K_ALL_GROUPS).pairs, 0);
  ck_assert_uint_eq(sg_k_refresh_plan(&vector, 1, SG_K_ALL_GROUPS).pairs, 0);
  /* Beside them, tiles of 1024 columns (8 a row): 8 tall (32 of 40
   * short), 16 tall (32 of 48), 8 tall and 8 short bottom ones (40 of
   * 48), 8 tall and 8 bottom ones of 65 rows (32 of 48). */
  const sg_k_param some[2] = {small, shaped(SG_K_RECIPE_BLOCK, 128, 1024)};
  const sg_k_param more[2] = {small, shaped(SG_K_RECIPE_BLOCK, 256, 1024)};
  const sg_k_param bottom[2] = {small, shaped(SG_K_RECIPE_BLOCK, 192, 1024)};
  const sg_k_param taller_bottom[2] = {small, shaped(SG_K_RECIPE_BLOCK, 193, 1024)};
  ck_assert_uint_ne(sg_k_refresh_plan(some, 2, SG_K_ALL_GROUPS).pairs, 0);
  ck_assert_uint_eq(sg_k_refresh_plan(more, 2, SG_K_ALL_GROUPS).pairs, 0);
  ck_assert_uint_ne(sg_k_refresh_plan(bottom, 2, SG_K_ALL_GROUPS).pairs, 0);
  ck_assert_uint_eq(sg_k_refresh_plan(taller_bottom, 2, SG_K_ALL_GROUPS).pairs, 0);
}
END_TEST

/* The amax pass comes before the cast that reads its scales; the block
 * kernels match the mode; a transpose is one kernel, followed by the grid
 * transpose where some selected tile carries a grid entry and the whole
 * instance (which has no grid code) moves tiles: whole or split. */
START_TEST(kernels_in_order) {
  sg_k_plan plan = {SG_K_LAYOUT_NARROW, 0, 1, UINT32_MAX, 0, 0, 0, SG_K_LAYOUT_NARROW, 0, 0};
  uint32_t k[3];
  plan.lists = LIST(SG_K_LIST_TRANSPOSE) | LIST(SG_K_LIST_CAST) |
               LIST(SG_K_LIST_CAST_TRANSPOSE) | LIST(SG_K_LIST_AMAX) | LIST(SG_K_LIST_BLOCK);
  ck_assert_uint_eq(sg_k_refresh_kernels(SG_K_MODE_TRANSPOSE, &plan, k), 1);
  ck_assert_uint_eq(k[0], SG_K_KERNEL_TRANSPOSE);
  ck_assert_uint_eq(sg_k_refresh_kernels(SG_K_MODE_CAST_TRANSPOSE, &plan, k), 3);
  ck_assert_uint_eq(k[0], SG_K_KERNEL_AMAX);
  ck_assert_uint_eq(k[1], SG_K_KERNEL_CAST_TRANSPOSE);
  ck_assert_uint_eq(k[2], SG_K_KERNEL_BLOCK_CAST_TRANSPOSE);
  ck_assert_uint_eq(sg_k_refresh_kernels(SG_K_MODE_CAST, &plan, k), 3);
  ck_assert_uint_eq(k[1], SG_K_KERNEL_CAST);
  ck_assert_uint_eq(k[2], SG_K_KERNEL_BLOCK_CAST);
  plan.lists = LIST(SG_K_LIST_TRANSPOSE) | LIST(SG_K_LIST_BLOCK);
  ck_assert_uint_eq(sg_k_refresh_kernels(SG_K_MODE_CAST, &plan, k), 1);
  ck_assert_uint_eq(k[0], SG_K_KERNEL_BLOCK_CAST);
  plan.lists = LIST(SG_K_LIST_TRANSPOSE);
  ck_assert_uint_eq(sg_k_refresh_kernels(SG_K_MODE_CAST_TRANSPOSE, &plan, k), 0);
  ck_assert_uint_eq(sg_k_refresh_kernels(3, &plan, k), 0);
  plan.grids = LIST(SG_K_LIST_TRANSPOSE); /* block scaling: the general instance moves the grids */
  ck_assert_uint_eq(sg_k_refresh_kernels(SG_K_MODE_TRANSPOSE, &plan, k), 1);
  ck_assert_uint_eq(k[0], SG_K_KERNEL_TRANSPOSE);
  plan.whole = LIST(SG_K_LIST_CAST_TRANSPOSE); /* another list's whole bit: still none */
  ck_assert_uint_eq(sg_k_refresh_kernels(SG_K_MODE_TRANSPOSE, &plan, k), 1);
  const uint32_t whole_or_split[2][2] = {{LIST(SG_K_LIST_TRANSPOSE), 0}, {0, LIST(SG_K_LIST_TRANSPOSE)}};
  for (int i = 0; i < 2; i++) { /* the whole instance has no grid code: the grid kernel after it */
    plan.whole = whole_or_split[i][0];
    plan.split = whole_or_split[i][1];
    ck_assert_uint_eq(sg_k_refresh_kernels(SG_K_MODE_TRANSPOSE, &plan, k), 2);
    ck_assert_uint_eq(k[0], SG_K_KERNEL_TRANSPOSE);
    ck_assert_uint_eq(k[1], SG_K_KERNEL_GRID);
  }
  ck_assert_uint_eq(sg_k_refresh_kernels(SG_K_MODE_CAST_TRANSPOSE, &plan, k), 0);
  plan.lists = 0; /* nothing selected: no grid either */
  ck_assert_uint_eq(sg_k_refresh_kernels(SG_K_MODE_TRANSPOSE, &plan, k), 0);
}
END_TEST

int main(void) {
  Suite *s = suite_create("refresh_plan");
  TCase *tc = tcase_create("plan");
  tcase_add_test(tc, lists_follow_the_recipes);
  tcase_add_test(tc, first_without_master_and_group_selection);
  tcase_add_test(tc, whole_tiles);
  tcase_add_test(tc, grid_lists);
  tcase_add_test(tc, split_whole_from_the_rest);
  tcase_add_loop_test(tc, group_plans_equal_single_plans, 0, 20);
  tcase_add_test(tc, kernels_in_order);
  tcase_add_test(tc, realign_where_wt_rows_are_odd_and_long);
  tcase_add_test(tc, pairs_where_short_block_tiles_are_many);
  suite_add_tcase(s, tc);
  return sg_run_suite(s, CK_FORK);
}

/* ABI 1.1's FP8 recipes (sg_fp8_param_desc.recipe and the fields after
 * it), through validation-only sessions: valid current- and block-scaling
 * descriptors are registered; each bad value is refused naming the field
 * (owned ranges with SG_ERR_NOT_SUPPORTED), nothing is registered then; a
 * 1.0-sized descriptor is delayed scaling whatever follows it in memory;
 * and post_optimizer_step's selection checks know the recipes. */
#include <stdint.h>

#include "conformance.h"

/* 200 x 300: 2 x 3 blocks, the last ones partial. */
#define ROWS 200
#define COLS 300

/* fp8_desc's slot k holds W, Wt and master below 0xF00000 and the scalars
 * at 0xF00000..0xF0002F; the grids go after them. */
static float *grid_at(uint32_t k, uintptr_t offset) {
  return FAKE_DEVICE(((uintptr_t)k << 24) + 0xF00100 + offset);
}

static sg_fp8_param_desc current_desc(uint32_t k) {
  sg_fp8_param_desc d = fp8_desc(k, ROWS, COLS);
  d.recipe = SG_RECIPE_CURRENT;
  d.scale = NULL;
  return d;
}

static sg_fp8_param_desc block_desc(uint32_t k) {
  sg_fp8_param_desc d = fp8_desc(k, ROWS, COLS);
  d.recipe = SG_RECIPE_BLOCK;
  d.recipe_flags = SG_RECIPE_POW2_SCALES;
  d.scale = NULL;
  d.scale_inv = NULL;
  d.amax = NULL;
  d.block_scale_inv = grid_at(k, 0);
  d.block_scale_inv_t = grid_at(k, 0x100);
  return d;
}

static uint64_t registered(sg_session *s) {
  sg_stats st = {.struct_size = sizeof st};
  ck_assert_int_eq(api->get_stats(s, &st), SG_OK);
  return st.fp8_params;
}

typedef struct recipe_case {
  const char *what;
  int block; /* the descriptor edited: current (0) or block (1) scaling */
  void (*edit)(sg_fp8_param_desc *d);
  sg_status want;
  const char *needle;
} recipe_case;

static void unknown_recipe(sg_fp8_param_desc *d) { d->recipe = 3; }
static void unknown_flag(sg_fp8_param_desc *d) { d->recipe_flags = 2; }
static void delayed_with_flag(sg_fp8_param_desc *d) {
  *d = fp8_desc(1, ROWS, COLS);
  d->recipe_flags = SG_RECIPE_POW2_SCALES;
}
static void no_master(sg_fp8_param_desc *d) {
  d->master_dtype = SG_DTYPE_NONE;
  d->master = NULL;
}
static void with_scale(sg_fp8_param_desc *d) { d->scale = grid_at(1, 0x400); }
static void with_scale_inv(sg_fp8_param_desc *d) { d->scale_inv = grid_at(1, 0x400); }
static void with_amax(sg_fp8_param_desc *d) { d->amax = grid_at(1, 0x400); }
static void no_scale_inv(sg_fp8_param_desc *d) { d->scale_inv = NULL; }
static void no_amax(sg_fp8_param_desc *d) { d->amax = NULL; }
static void owned_range(sg_fp8_param_desc *d) {
  d->range_begin = 0;
  d->range_end = 100;
}
static void late_range(sg_fp8_param_desc *d) {
  d->range_begin = 128 * COLS;
  d->range_end = ROWS * COLS;
}
static void no_grid(sg_fp8_param_desc *d) { d->block_scale_inv = NULL; }
static void no_grid_t(sg_fp8_param_desc *d) { d->block_scale_inv_t = NULL; }
static void short_grid_ld(sg_fp8_param_desc *d) { d->ld_block_scale_inv = 2; }
static void short_grid_t_ld(sg_fp8_param_desc *d) { d->ld_block_scale_inv_t = 1; }
static void odd_grid(sg_fp8_param_desc *d) {
  d->block_scale_inv = (float *)((char *)d->block_scale_inv + 2);
}
static void huge_grid_ld(sg_fp8_param_desc *d) { d->ld_block_scale_inv_t = UINT64_MAX / 2; }
static void delayed_with_grid(sg_fp8_param_desc *d) {
  *d = fp8_desc(1, ROWS, COLS);
  d->block_scale_inv_t = grid_at(1, 0);
}
static void with_grid_ld(sg_fp8_param_desc *d) { d->ld_block_scale_inv = 4; }
static void grid_in_w(sg_fp8_param_desc *d) {
  d->block_scale_inv = (float *)d->data + 8;
}
static void grids_overlap(sg_fp8_param_desc *d) {
  d->block_scale_inv_t = d->block_scale_inv + 4; /* W's grid is 2 x 3 floats */
}
static void grid_in_other(sg_fp8_param_desc *d) {
  d->block_scale_inv = (float *)grid_at(0, 0) + 2; /* params[0]'s (block) grid */
}

static const recipe_case cases[] = {
    {"recipe", 0, unknown_recipe, SG_ERR_INVALID_ARGUMENT, "params[1].recipe is 3"},
    {"recipe_flags", 1, unknown_flag, SG_ERR_INVALID_ARGUMENT, "params[1].recipe_flags is 0x2"},
    {"delayed with a flag", 0, delayed_with_flag, SG_ERR_INVALID_ARGUMENT,
     "params[1].recipe_flags is 0x1 but recipe is SG_RECIPE_DELAYED"},
    {"current without master", 0, no_master, SG_ERR_INVALID_ARGUMENT,
     "params[1].recipe is SG_RECIPE_CURRENT but master_dtype is SG_DTYPE_NONE"},
    {"current with scale", 0, with_scale, SG_ERR_INVALID_ARGUMENT,
     "params[1].scale is set but recipe SG_RECIPE_CURRENT computes the scale"},
    {"current without scale_inv", 0, no_scale_inv, SG_ERR_INVALID_ARGUMENT,
     "params[1].scale_inv is NULL"},
    {"current without amax", 0, no_amax, SG_ERR_INVALID_ARGUMENT, "params[1].amax is NULL"},
    {"current with an owned range", 0, owned_range, SG_ERR_NOT_SUPPORTED,
     "params[1]: an owned range [0, 100) needs SG_RECIPE_DELAYED; recipe SG_RECIPE_CURRENT"},
    {"current with a grid ld", 0, with_grid_ld, SG_ERR_INVALID_ARGUMENT,
     "their ld set, but recipe is SG_RECIPE_CURRENT (only SG_RECIPE_BLOCK has grids)"},
    {"block with scale", 1, with_scale, SG_ERR_INVALID_ARGUMENT,
     "params[1].scale is set but recipe SG_RECIPE_BLOCK keeps its scales in the grids"},
    {"block with scale_inv", 1, with_scale_inv, SG_ERR_INVALID_ARGUMENT,
     "params[1].scale_inv is set"},
    {"block with amax", 1, with_amax, SG_ERR_INVALID_ARGUMENT, "params[1].amax is set"},
    {"block with an owned range", 1, late_range, SG_ERR_NOT_SUPPORTED,
     "recipe SG_RECIPE_BLOCK computes its scales from whole 128 x 128 blocks"},
    {"block_scale_inv", 1, no_grid, SG_ERR_INVALID_ARGUMENT, "params[1].block_scale_inv is NULL"},
    {"block_scale_inv_t", 1, no_grid_t, SG_ERR_INVALID_ARGUMENT,
     "params[1].block_scale_inv_t is NULL"},
    {"ld_block_scale_inv", 1, short_grid_ld, SG_ERR_INVALID_ARGUMENT,
     "params[1].ld_block_scale_inv is 2, less than the width 3"},
    {"ld_block_scale_inv_t", 1, short_grid_t_ld, SG_ERR_INVALID_ARGUMENT,
     "params[1].ld_block_scale_inv_t is 1, less than the width 2"},
    {"grid alignment", 1, odd_grid, SG_ERR_INVALID_ARGUMENT,
     "params[1].block_scale_inv is not aligned to its 4-byte elements"},
    {"grid size", 1, huge_grid_ld, SG_ERR_INVALID_ARGUMENT,
     "params[1].block_scale_inv_t: its size (ld_block_scale_inv_t"},
    {"delayed with a grid", 0, delayed_with_grid, SG_ERR_INVALID_ARGUMENT,
     "params[1]: block_scale_inv, block_scale_inv_t or their ld set, but recipe is "
     "SG_RECIPE_DELAYED"},
    {"grid inside W", 1, grid_in_w, SG_ERR_INVALID_ARGUMENT,
     "params[1].block_scale_inv overlaps params[1].data"},
    {"grids overlap", 1, grids_overlap, SG_ERR_INVALID_ARGUMENT,
     "params[1].block_scale_inv_t overlaps params[1].block_scale_inv"},
    {"grid in another's", 1, grid_in_other, SG_ERR_INVALID_ARGUMENT,
     "params[1].block_scale_inv overlaps params[0].block_scale_inv"},
};
#define CASES (int)(sizeof cases / sizeof *cases)

/* The bad descriptor is the second of three (a block-scaling one first),
 * so all-or-none shows. */
START_TEST(bad_recipe_field_is_named_and_nothing_is_registered) {
  const recipe_case *c = &cases[_i];
  sg_session *s = open_validation();
  sg_fp8_param_desc d[3] = {block_desc(0), c->block ? block_desc(1) : current_desc(1),
                            current_desc(2)};
  c->edit(&d[1]);
  EXPECT(s, api->register_fp8_params(s, d, 3, NULL), c->want, c->needle);
  ck_assert_uint_eq(registered(s), 0);
  api->session_destroy(s);
}
END_TEST

/* What each recipe allows: block scaling without a master (a W the host
 * quantized: transpose mode), an explicit whole range, padded grid rows as
 * Transformer Engine lays them out, current scaling with power-of-two
 * scales. */
START_TEST(valid_recipes_are_registered) {
  sg_session *s = open_validation();
  sg_fp8_param_desc d[5] = {current_desc(0), block_desc(1), block_desc(2), current_desc(3),
                            block_desc(4)};
  d[0].recipe_flags = SG_RECIPE_POW2_SCALES;
  d[1].ld_block_scale_inv = 4;
  d[1].ld_block_scale_inv_t = 4;
  d[2].master_dtype = SG_DTYPE_NONE;
  d[2].master = NULL;
  d[3].range_begin = 0;
  d[3].range_end = ROWS * COLS;
  d[4].master_dtype = SG_DTYPE_BF16;
  d[4].recipe_flags = 0;
  EXPECT(s, api->register_fp8_params(s, d, 5, NULL), SG_OK, NULL);
  ck_assert_uint_eq(registered(s), 5);
  api->session_destroy(s);
}
END_TEST

/* A 1.0 host's descriptors end at reserved0, and so does the array's
 * stride: what follows each in memory (the next element, then garbage that
 * would be refused as a recipe) is not read, and the parameters are delayed
 * scaling with their scales. */
START_TEST(v1_0_descriptors_are_delayed_scaling) {
  enum { V10 = SG_V1_0_SIZE_sg_fp8_param_desc };
  _Alignas(16) unsigned char v10[2 * V10 + 64];
  memset(v10, 0xcd, sizeof v10);
  for (uint32_t i = 0; i < 2; i++) {
    sg_fp8_param_desc d = fp8_desc(i, ROWS, COLS);
    d.struct_size = V10;
    memcpy(v10 + i * V10, &d, V10);
  }
  sg_session *s = open_validation();
  EXPECT(s, api->register_fp8_params(s, (const sg_fp8_param_desc *)(void *)v10, 2, NULL), SG_OK,
         NULL);
  ck_assert_uint_eq(registered(s), 2);
  sg_refresh_args r = {sizeof r, SG_REFRESH_CAST_TRANSPOSE, SG_ALL_GROUPS, NULL, 0, 0};
  EXPECT(s, api->post_optimizer_step(s, FAKE_STREAM, &r), SG_ERR_NO_DEVICE, "needs a GPU");
  api->session_destroy(s);
}
END_TEST

/* The selection checks of post_optimizer_step know the recipes: a block
 * parameter without a master refreshes in transpose mode only; every
 * recipe passes the checks (and a validation-only session then needs the
 * GPU). */
START_TEST(refresh_selection_with_recipes) {
  sg_session *s = open_validation();
  sg_fp8_param_desc d[3] = {current_desc(0), block_desc(1), block_desc(2)};
  d[1].group = 1;
  d[2].group = 2;
  d[2].master_dtype = SG_DTYPE_NONE;
  d[2].master = NULL;
  EXPECT(s, api->register_fp8_params(s, d, 3, NULL), SG_OK, NULL);
  const uint32_t modes[3] = {SG_REFRESH_TRANSPOSE, SG_REFRESH_CAST, SG_REFRESH_CAST_TRANSPOSE};
  for (uint32_t m = 0; m < 3; m++) {
    for (uint32_t group = 0; group < 2; group++) {
      sg_refresh_args r = {sizeof r, modes[m], group, NULL, 0, 0};
      EXPECT(s, api->post_optimizer_step(s, FAKE_STREAM, &r), SG_ERR_NO_DEVICE, "needs a GPU");
    }
    sg_refresh_args r = {sizeof r, modes[m], 2, NULL, 0, 0};
    EXPECT(s, api->post_optimizer_step(s, FAKE_STREAM, &r),
           m == 0 ? SG_ERR_NO_DEVICE : SG_ERR_INVALID_STATE,
           m == 0 ? "needs a GPU" : "registered param 2 has no master");
    r.group = SG_ALL_GROUPS;
    EXPECT(s, api->post_optimizer_step(s, FAKE_STREAM, &r),
           m == 0 ? SG_ERR_NO_DEVICE : SG_ERR_INVALID_STATE,
           m == 0 ? "needs a GPU" : "registered param 2 has no master");
    r.group = 9;
    EXPECT(s, api->post_optimizer_step(s, FAKE_STREAM, &r), SG_ERR_INVALID_ARGUMENT,
           "args->group 9 has no registered parameter");
  }
  api->session_destroy(s);
}
END_TEST

Suite *recipes_suite(void) {
  Suite *s = suite_create("recipes");
  TCase *t = tcase_create("fp8 recipes");
  tcase_add_loop_test(t, bad_recipe_field_is_named_and_nothing_is_registered, 0, CASES);
  tcase_add_test(t, valid_recipes_are_registered);
  tcase_add_test(t, v1_0_descriptors_are_delayed_scaling);
  tcase_add_test(t, refresh_selection_with_recipes);
  suite_add_tcase(s, t);
  return s;
}

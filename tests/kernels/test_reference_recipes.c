/* The CPU reference's recipes against values worked out by hand: the
 * computed scale's rules, current scaling's scale from the whole master,
 * and block scaling's per-block scales with partial edge blocks, whose
 * grids the transpose carries over. (The GPU kernels are held to this
 * reference by test_refresh_kernels.) */
#include <check.h>
#include <math.h>
#include <string.h>

#include "fp8_reference.h"
#include "sg_run_suite.h"

START_TEST(scale_rules) {
  const uint32_t e4 = SG_K_FP8_E4M3, e5 = SG_K_FP8_E5M2;
  ck_assert_float_eq(sg_ref_scale_of(0, e4, 0), 1.0f);
  ck_assert_float_eq(sg_ref_scale_of(0x7F800000u, e4, 0), 1.0f); /* +inf */
  ck_assert_float_eq(sg_ref_scale_of(0x7FC00000u, e5, 0), 1.0f); /* NaN */
  ck_assert_float_eq(sg_ref_scale_of(sg_ref_float_bits(2.0f), e4, 0), 224.0f);
  ck_assert_float_eq(sg_ref_scale_of(sg_ref_float_bits(2.0f), e4, 1), 128.0f);
  ck_assert_float_eq(sg_ref_scale_of(sg_ref_float_bits(2.0f), e5, 0), 28672.0f);
  ck_assert_float_eq(sg_ref_scale_of(sg_ref_float_bits(3.0f), e5, 0), 57344.0f / 3.0f);
  /* A subnormal amax: 448 / 1e-40 overflows, the largest float instead;
   * rounded down to a power of two, 2^127. */
  ck_assert_uint_eq(sg_ref_float_bits(sg_ref_scale_of(sg_ref_float_bits(1e-40f), e4, 0)),
                    0x7F7FFFFFu);
  ck_assert_float_eq(sg_ref_scale_of(sg_ref_float_bits(1e-40f), e4, 1), ldexpf(1.0f, 127));
}
END_TEST

enum { ROWS = 130, COLS = 129 };

static float master[ROWS * COLS];
static uint8_t w[ROWS * COLS], wt[ROWS * COLS];
static float grid[2 * 3], grid_t[2 * 3]; /* 2 x 2 blocks; ld 3 leaves a pad */
static float scale_inv, amax;

static sg_k_param view(uint32_t recipe) {
  sg_k_param p;
  memset(&p, 0, sizeof p);
  p.w = w;
  p.ld_w = COLS;
  p.wt = wt;
  p.ld_wt = ROWS;
  p.master = master;
  p.ld_master = COLS;
  p.scale_inv = &scale_inv;
  p.amax = &amax;
  p.rows = ROWS;
  p.cols = COLS;
  p.format = SG_K_FP8_E4M3;
  p.master_dtype = SG_K_MASTER_FP32;
  p.recipe = recipe;
  p.grid = grid;
  p.ld_grid = 3;
  p.grid_t = grid_t;
  p.ld_grid_t = 3;
  return p;
}

/* Block (i, j) holds 2^(2i+j) everywhere but one element of -1/4 of that
 * in the last block, a 2 x 1 corner. */
static float block_value(uint64_t r, uint64_t c) {
  return ldexpf(1.0f, (int)(2 * (r / 128) + c / 128));
}

static void fill(void) {
  for (uint64_t r = 0; r < ROWS; r++) {
    for (uint64_t c = 0; c < COLS; c++) {
      master[r * COLS + c] = block_value(r, c);
    }
  }
  master[129 * COLS + 128] = -0.25f * block_value(129, 128);
  for (int k = 0; k < 6; k++) {
    grid[k] = grid_t[k] = -7.0f; /* the pads must stay */
  }
}

START_TEST(block_scales_per_block) {
  fill();
  const sg_k_param p = view(SG_K_RECIPE_BLOCK);
  sg_ref_refresh(&p, SG_K_MODE_CAST_TRANSPOSE);
  for (int i = 0; i < 2; i++) {
    for (int j = 0; j < 2; j++) {
      /* 1/s with s = 448 / amax, the block's amax 2^(2i+j) */
      ck_assert_float_eq(grid[i * 3 + j], 1.0f / (448.0f / ldexpf(1.0f, 2 * i + j)));
      ck_assert_float_eq(grid_t[j * 3 + i], grid[i * 3 + j]);
    }
  }
  ck_assert_float_eq(grid[2], -7.0f);
  ck_assert_float_eq(grid_t[5], -7.0f);
  /* Every element is its block's amax, so its code is 448 (0x7E); the
   * corner's -1/4 of it is -112 (0xEE: sign, exponent 6 + 7 = 0b1101, mantissa
   * 0.75 = 0b110). */
  for (uint64_t r = 0; r < ROWS; r++) {
    for (uint64_t c = 0; c < COLS; c++) {
      const uint8_t want = r == 129 && c == 128 ? 0xEE : 0x7E;
      ck_assert_msg(w[r * COLS + c] == want, "W[%llu][%llu] = 0x%02x", (unsigned long long)r,
                    (unsigned long long)c, w[r * COLS + c]);
      ck_assert_uint_eq(wt[c * ROWS + r], w[r * COLS + c]);
    }
  }
}
END_TEST

START_TEST(block_transpose_moves_the_grid) {
  fill();
  const float values[4] = {1.5f, 2.5f, 3.5f, 4.5f};
  grid[0] = values[0], grid[1] = values[1], grid[3] = values[2], grid[4] = values[3];
  const sg_k_param p = view(SG_K_RECIPE_BLOCK);
  sg_ref_refresh(&p, SG_K_MODE_TRANSPOSE);
  ck_assert_float_eq(grid_t[0], 1.5f);
  ck_assert_float_eq(grid_t[1], 3.5f);
  ck_assert_float_eq(grid_t[3], 2.5f);
  ck_assert_float_eq(grid_t[4], 4.5f);
  ck_assert_float_eq(grid_t[2], -7.0f);
}
END_TEST

/* Current scaling: the whole master's amax is 8 (block (1, 1)'s value), so
 * s = 56 and every 8 becomes 448; the grids are not touched. */
START_TEST(current_scale_from_the_whole_master) {
  fill();
  const sg_k_param p = view(SG_K_RECIPE_CURRENT);
  sg_ref_refresh(&p, SG_K_MODE_CAST);
  ck_assert_float_eq(amax, 8.0f);
  ck_assert_float_eq(scale_inv, 1.0f / 56.0f);
  ck_assert_uint_eq(w[128 * COLS + 128], 0x7E);
  ck_assert_uint_eq(w[0], sg_ref_fp8_from_float(56.0f, SG_K_FP8_E4M3));
  ck_assert_float_eq(grid[0], -7.0f);
}
END_TEST

int main(void) {
  Suite *s = suite_create("reference_recipes");
  TCase *tc = tcase_create("recipes");
  tcase_add_test(tc, scale_rules);
  tcase_add_test(tc, block_scales_per_block);
  tcase_add_test(tc, block_transpose_moves_the_grid);
  tcase_add_test(tc, current_scale_from_the_whole_master);
  suite_add_tcase(s, tc);
  return sg_run_suite(s, CK_FORK);
}

/* The order in which the tile modes take a parameter's tiles
 * (sg_k_tile_origin, refresh_schedule.cuh; host and device code alike), on
 * the CPU: for single tiles, 2 x 2 chunks and 2 x 2 chunks in super-bands
 * of 2, 32 and 512 chunk rows (the whole transpose instance's), items
 * 0 .. tiles - 1 of any shape map onto its tiles one to one, and every K
 * consecutive items of a whole chunk form one chunk-shaped block of tiles.
 * Shapes include ragged edges and heights of several super-bands (the 512
 * rows' band is 131072 W rows: [140000, 256] has two). No GPU. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "refresh_schedule.cuh"
#include "sg_run_suite.h"

static const uint64_t kShapes[][2] = {{1, 1},     {128, 128},  {129, 300},  {1000, 1},
                                      {640, 1280}, {8193, 384}, {20000, 640}, {140000, 256}};

/* Checks chunk order C on a rows x cols parameter. */
template <class C>
static void check_order(uint64_t rows, uint64_t cols) {
  sg_k_view v;
  memset(&v, 0, sizeof v);
  v.rows = rows;
  v.cols = cols;
  v.tiles_per_row = (cols + SG_K_TILE - 1) / SG_K_TILE;
  const uint64_t tile_rows = (rows + SG_K_TILE - 1) / SG_K_TILE;
  const uint64_t tiles = tile_rows * v.tiles_per_row;
  uint8_t *seen = static_cast<uint8_t *>(calloc(tiles, 1));
  ck_assert_ptr_nonnull(seen);
  uint64_t first_r = 0, first_c = 0;
  for (uint64_t local = 0; local < tiles; local++) {
    uint64_t r0 = 0, c0 = 0;
    sg_k_tile_origin<C>(v, local, r0, c0);
    ck_assert_msg(r0 % SG_K_TILE == 0 && c0 % SG_K_TILE == 0 && r0 < rows && c0 < cols,
                  "%llux%llu item %llu: origin (%llu, %llu)", (unsigned long long)rows,
                  (unsigned long long)cols, (unsigned long long)local, (unsigned long long)r0,
                  (unsigned long long)c0);
    const uint64_t t = r0 / SG_K_TILE * v.tiles_per_row + c0 / SG_K_TILE;
    ck_assert_msg(!seen[t], "%llux%llu: tile (%llu, %llu) twice", (unsigned long long)rows,
                  (unsigned long long)cols, (unsigned long long)r0, (unsigned long long)c0);
    seen[t] = 1;
    /* A whole chunk (C::kRows x C::kCols tiles inside the parameter) is K
     * consecutive items, row-major from its first. */
    const uint64_t k = local % C::K;
    if (k == 0) {
      first_r = r0;
      first_c = c0;
    } else if (first_r / SG_K_TILE + C::kRows <= tile_rows &&
               first_c / SG_K_TILE + C::kCols <= v.tiles_per_row &&
               first_r % (SG_K_TILE * C::kRows) == 0 && first_c % (SG_K_TILE * C::kCols) == 0) {
      ck_assert_uint_eq(r0, first_r + k / C::kCols * SG_K_TILE);
      ck_assert_uint_eq(c0, first_c + k % C::kCols * SG_K_TILE);
    }
  }
  free(seen);
}

template <class C>
static void check_shapes(void) {
  for (const auto &s : kShapes) {
    check_order<C>(s[0], s[1]);
  }
}

START_TEST(single_tiles) { check_shapes<sg_k_chunk<1, 1>>(); }
END_TEST

START_TEST(chunks_of_four) { check_shapes<sg_k_chunk<2, 2>>(); }
END_TEST

START_TEST(super_bands) {
  check_shapes<sg_k_chunk<2, 2, 2>>();
  check_shapes<sg_k_chunk<2, 2, 32>>();
  check_shapes<sg_k_chunk<2, 2, 512>>();
}
END_TEST

int main(void) {
  Suite *s = suite_create("tile_order");
  TCase *tc = tcase_create("order");
  tcase_add_test(tc, single_tiles);
  tcase_add_test(tc, chunks_of_four);
  tcase_add_test(tc, super_bands);
  suite_add_tcase(s, tc);
  return sg_run_suite(s, CK_FORK);
}

/* The order in which the tile modes take a parameter's tiles
 * (sg_k_tile_origin, refresh_schedule.cuh; host and device code alike), on
 * the CPU, against a model built here from the order's definition: tile
 * rows in super-bands of kSuper chunk rows (the last one shorter), inside a
 * band chunk columns of kCols tiles left to right (the last one narrower),
 * down each chunk column row by row. So kRows consecutive rows of a chunk
 * column, K items, are one chunk. For single tiles, 2 x 2 chunks and 2 x 2
 * chunks in super-bands of 2, 32 and 512 chunk rows (the whole transpose
 * instance's: 131072 W rows), on ragged shapes and on heights of several
 * bands, ragged ones included. No GPU. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "refresh_schedule.cuh"
#include "sg_run_suite.h"

static const uint64_t kShapes[][2] = {
    {1, 1},      {128, 128},  {129, 300},     {1000, 1},      {640, 1280},
    {8193, 384}, {20000, 640}, {140000, 256}, {131200, 640}, {140000, 300}};

/* Item `local`'s tile (row, column) as the model orders them. */
struct tile_at {
  uint64_t row, col;
};

template <class C>
static tile_at *model_order(uint64_t tile_rows, uint64_t tile_cols) {
  tile_at *order = static_cast<tile_at *>(malloc(tile_rows * tile_cols * sizeof *order));
  ck_assert_ptr_nonnull(order);
  const uint64_t band = uint64_t{C::kRows} * C::kSuper;
  uint64_t i = 0;
  for (uint64_t b0 = 0; b0 < tile_rows; b0 += band) {
    const uint64_t b1 = b0 + band < tile_rows ? b0 + band : tile_rows;
    for (uint64_t c0 = 0; c0 < tile_cols; c0 += C::kCols) {
      const uint64_t c1 = c0 + C::kCols < tile_cols ? c0 + C::kCols : tile_cols;
      for (uint64_t r = b0; r < b1; r++) {
        for (uint64_t c = c0; c < c1; c++) {
          order[i++] = tile_at{r, c};
        }
      }
    }
  }
  ck_assert_uint_eq(i, tile_rows * tile_cols);
  return order;
}

/* Every item of a rows x cols parameter lands on the model's tile. */
template <class C>
static void check_order(uint64_t rows, uint64_t cols) {
  sg_k_view v;
  memset(&v, 0, sizeof v);
  v.rows = rows;
  v.cols = cols;
  v.tiles_per_row = (cols + SG_K_TILE - 1) / SG_K_TILE;
  const uint64_t tile_rows = (rows + SG_K_TILE - 1) / SG_K_TILE;
  tile_at *expected = model_order<C>(tile_rows, v.tiles_per_row);
  for (uint64_t local = 0; local < tile_rows * v.tiles_per_row; local++) {
    uint64_t r0 = 0, c0 = 0;
    sg_k_tile_origin<C>(v, local, r0, c0);
    const tile_at e = expected[local];
    ck_assert_msg(r0 == e.row * SG_K_TILE && c0 == e.col * SG_K_TILE,
                  "%llux%llu, chunk %ux%u, bands of %u: item %llu at (%llu, %llu), expected "
                  "(%llu, %llu)",
                  (unsigned long long)rows, (unsigned long long)cols, C::kRows, C::kCols,
                  C::kSuper, (unsigned long long)local, (unsigned long long)r0,
                  (unsigned long long)c0, (unsigned long long)(e.row * SG_K_TILE),
                  (unsigned long long)(e.col * SG_K_TILE));
  }
  free(expected);
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

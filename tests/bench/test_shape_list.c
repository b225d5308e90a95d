/* bench_refresh --shapes lists (bench/refresh/shape_list.h): a list gives
 * its runs in order, a count left out is 1, and anything else is refused
 * with nothing allocated: signs, spaces, zeros, empty entries, stray
 * characters, and counts or sizes past the limits or past 64 bits. */
#include <check.h>
#include <stdlib.h>

#include "shape_list.h"
#include "sg_run_suite.h"

START_TEST(a_list_gives_its_runs_in_order) {
  bench_shape_run *runs = NULL;
  uint32_t n = 0;
  ck_assert(bench_parse_shapes("8*4096x4096,3000x1000,512*33x257", &runs, &n));
  ck_assert_uint_eq(n, 3);
  const uint64_t want[3][3] = {{8, 4096, 4096}, {1, 3000, 1000}, {512, 33, 257}};
  for (uint32_t i = 0; i < 3; i++) {
    ck_assert_uint_eq(runs[i].repeat, want[i][0]);
    ck_assert_uint_eq(runs[i].shape.rows, want[i][1]);
    ck_assert_uint_eq(runs[i].shape.cols, want[i][2]);
  }
  free(runs);
}
END_TEST

START_TEST(the_limits_themselves_are_accepted) {
  bench_shape_run *runs = NULL;
  uint32_t n = 0;
  ck_assert(bench_parse_shapes("1048576*1x1", &runs, &n));
  ck_assert_uint_eq(runs[0].repeat, BENCH_MAX_TENSORS);
  free(runs);
  ck_assert(bench_parse_shapes("1x1099511627776", &runs, &n));
  ck_assert_uint_eq(runs[0].shape.cols, BENCH_MAX_ELEMENTS);
  free(runs);
}
END_TEST

static const char *const kRefused[] = {
    "",                          /* nothing */
    ",1x1",    "1x1,",  "1x1,,2x2", /* empty entries */
    "-1x8",    "+1x8",  " 1x1", "1x 1", "1 x1", /* signs, spaces */
    "0x5",     "5x0",   "0*1x1",  /* zeros */
    "3x4x5",   "2*3",   "1x1*2", "x1", "1x", "*1x1", "4096", "1x1y",
    "1048577*1x1",               /* more tensors than the limit */
    "1048576*1x1,1x1",           /* the same, over two entries */
    "1099511627777x1",           /* more elements than the limit */
    "1048576x1048577",           /* a product past it */
    "4294967295*1x1,1x1",        /* a count that wrapped 32 bits */
    "4294967297*8x8",
    "4294967296x4294967296",     /* a product that wrapped 64 bits */
    "99999999999999999999x1",    /* past 64 bits */
};

START_TEST(anything_else_is_refused) {
  const char *spec = kRefused[_i];
  bench_shape_run *runs = (bench_shape_run *)&spec; /* must be cleared */
  uint32_t n = 77;
  ck_assert_msg(!bench_parse_shapes(spec, &runs, &n), "accepted \"%s\"", spec);
  ck_assert_ptr_null(runs);
  ck_assert_uint_eq(n, 0);
}
END_TEST

int main(void) {
  Suite *s = suite_create("shape_list");
  TCase *tc = tcase_create("parse");
  tcase_add_test(tc, a_list_gives_its_runs_in_order);
  tcase_add_test(tc, the_limits_themselves_are_accepted);
  tcase_add_loop_test(tc, anything_else_is_refused, 0, (int)(sizeof kRefused / sizeof kRefused[0]));
  suite_add_tcase(s, tc);
  return sg_run_suite(s, CK_FORK);
}

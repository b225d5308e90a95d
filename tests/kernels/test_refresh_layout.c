/* sg_k_refresh_layout without a GPU: the wide layout exactly when at least
 * 3/4 of the selected tiles belong to parameters of at least 256 x 256 with
 * 16-byte aligned W and Wt rows. */
#include <check.h>
#include <string.h>

#include "refresh.h"
#include "sg_run_suite.h"

enum { MAX_PARAMS = 16 };

/* Device pointers are only looked at, never touched: fake aligned addresses,
 * 1 MB apart. */
static sg_k_param param(uint64_t rows, uint64_t cols, uint32_t group) {
  static uintptr_t next = 0x10000000;
  sg_k_param p;
  memset(&p, 0, sizeof p);
  p.w = (uint8_t *)next;
  p.wt = (uint8_t *)(next + 0x100000);
  next += 0x200000;
  p.ld_w = cols;
  p.ld_wt = rows;
  p.rows = rows;
  p.cols = cols;
  p.group = group;
  return p;
}

static const char *name(uint32_t layout) {
  return layout == SG_K_LAYOUT_WIDE ? "wide" : "narrow";
}

static void expect(const sg_k_param *p, uint32_t n, uint32_t group, uint32_t want,
                   const char *what) {
  const uint32_t got = sg_k_refresh_layout(p, n, group);
  ck_assert_msg(got == want, "%s: got %s, want %s", what, name(got), name(want));
}

START_TEST(gpt_shapes_are_wide) {
  const sg_k_param p[] = {param(6144, 2048, 0), param(2048, 2048, 0), param(8192, 2048, 0),
                          param(2048, 8192, 0)};
  expect(p, 4, SG_K_ALL_GROUPS, SG_K_LAYOUT_WIDE, "GPT layer");
}
END_TEST

START_TEST(small_and_thin_shapes_are_narrow) {
  static const uint64_t shapes[][2] = {{64, 128}, {255, 4096}, {4096, 255}, {1, 50000},
                                       {50000, 1}, {128, 128}};
  for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
    const sg_k_param p = param(shapes[i][0], shapes[i][1], 0);
    expect(&p, 1, SG_K_ALL_GROUPS, SG_K_LAYOUT_NARROW, "small or thin");
  }
  const sg_k_param square = param(256, 256, 0);
  expect(&square, 1, SG_K_ALL_GROUPS, SG_K_LAYOUT_WIDE, "256 x 256");
}
END_TEST

/* Unaligned rows move element by element, which the wide layout's single
 * block per multiprocessor does slowly. */
START_TEST(unaligned_rows_are_narrow) {
  for (int field = 0; field < 4; field++) {
    sg_k_param p = param(1024, 1024, 0);
    switch (field) {
    case 0: p.w += 8; break;
    case 1: p.wt += 4; break;
    case 2: p.ld_w = 1028; break;
    case 3: p.ld_wt = 1032; break;
    }
    expect(&p, 1, SG_K_ALL_GROUPS, SG_K_LAYOUT_NARROW, "unaligned");
  }
  sg_k_param padded = param(1024, 1000, 0);
  padded.ld_w = 1008;
  expect(&padded, 1, SG_K_ALL_GROUPS, SG_K_LAYOUT_WIDE, "aligned padding");
}
END_TEST

/* 256 x 384 has 6 tiles and 64 x 128 one: 6 of 8 tiles is exactly 3/4. */
START_TEST(three_quarters_of_the_tiles_decide) {
  sg_k_param p[MAX_PARAMS];
  p[0] = param(256, 384, 0);
  for (int i = 1; i < 4; i++) {
    p[i] = param(64, 128, 0);
  }
  expect(p, 3, SG_K_ALL_GROUPS, SG_K_LAYOUT_WIDE, "6 of 8 tiles");
  expect(p, 4, SG_K_ALL_GROUPS, SG_K_LAYOUT_NARROW, "6 of 9 tiles");
}
END_TEST

START_TEST(only_the_group_counts) {
  const sg_k_param p[] = {param(4096, 4096, 1), param(64, 128, 2), param(64, 128, 2),
                          param(2048, 2048, 1)};
  expect(p, 4, 1, SG_K_LAYOUT_WIDE, "group 1");
  expect(p, 4, 2, SG_K_LAYOUT_NARROW, "group 2");
  expect(p, 4, SG_K_ALL_GROUPS, SG_K_LAYOUT_WIDE, "all groups");
  expect(p, 4, 9, SG_K_LAYOUT_NARROW, "a group nobody has");
}
END_TEST

START_TEST(nothing_selected_is_narrow) {
  const sg_k_param p = param(4096, 4096, 0);
  expect(&p, 0, SG_K_ALL_GROUPS, SG_K_LAYOUT_NARROW, "count 0");
  expect(NULL, 3, SG_K_ALL_GROUPS, SG_K_LAYOUT_NARROW, "NULL params");
}
END_TEST

int main(void) {
  Suite *s = suite_create("refresh_layout");
  TCase *tc = tcase_create("layout");
  tcase_add_test(tc, gpt_shapes_are_wide);
  tcase_add_test(tc, small_and_thin_shapes_are_narrow);
  tcase_add_test(tc, unaligned_rows_are_narrow);
  tcase_add_test(tc, three_quarters_of_the_tiles_decide);
  tcase_add_test(tc, only_the_group_counts);
  tcase_add_test(tc, nothing_selected_is_narrow);
  suite_add_tcase(s, tc);
  return sg_run_suite(s, CK_FORK);
}

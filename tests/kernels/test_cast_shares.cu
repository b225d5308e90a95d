/* How the cast mode and the amax pass deal their work (refresh_schedule.cuh;
 * host and device code alike), on the CPU: each warp's contiguous share of
 * a launch's items (sg_k_share_of), and the walk over the descriptors that
 * hold a share's items (sg_k_items_next). Every item of every parameter
 * must be cast once, by one warp, and each parameter's amax is published
 * once its warps have reported all of its items: so the shares tile the
 * items, and the walks' runs add up to each parameter's own count. For
 * parameter tables of tiny, empty, single-item and large parameters, dealt
 * to one warp, to fewer warps than items, and to more. No GPU. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>

#include "refresh_schedule.cuh"
#include "sg_run_suite.h"
#include "sg_test_seed.h"

static const uint64_t kWorkers[] = {1, 2, 7, 8, 64, 3168, 100000};

/* Check's ck_assert reports its location to the test's parent at every
 * call, passing or not; the loops below make millions of checks, which
 * took the test past Check's timeout on a loaded machine. EXPECT reports
 * only a failure. */
#define EXPECT(cond, ...)    \
  do {                       \
    if (!(cond)) {           \
      ck_abort_msg(__VA_ARGS__); \
    }                        \
  } while (0)

/* Shares of n over `workers`: back to back from 0 to n, the longer first,
 * none longer than another by more than one. */
static void check_shares(uint64_t n, uint64_t workers) {
  uint64_t at = 0;
  uint64_t prev_len = UINT64_MAX;
  for (uint64_t me = 0; me < workers; me++) {
    const sg_k_share s = sg_k_share_of(n, workers, me);
    EXPECT(s.begin == at, "n %llu, %llu workers: share %llu begins at %llu, not %llu",
                  (unsigned long long)n, (unsigned long long)workers, (unsigned long long)me,
                  (unsigned long long)s.begin, (unsigned long long)at);
    const uint64_t len = s.end - s.begin;
    EXPECT(len == n / workers || len == n / workers + 1, "share %llu of %llu is %llu long",
                  (unsigned long long)me, (unsigned long long)n, (unsigned long long)len);
    EXPECT(len <= prev_len, "share %llu is longer than the one before",
                  (unsigned long long)me);
    prev_len = len;
    at = s.end;
  }
  ck_assert_uint_eq(at, n);
}

START_TEST(shares_tile_the_items) {
  static const uint64_t kCounts[] = {0, 1, 5, 8, 31, 4096, 16384, 100833, 589824};
  for (uint64_t n : kCounts) {
    for (uint64_t workers : kWorkers) {
      check_shares(n, workers);
    }
  }
}
END_TEST

/* A table of `count` parameters with the given item counts in the cast
 * list, first items back to back. */
static sg_k_desc *table_of(const uint64_t *items, uint32_t count) {
  sg_k_desc *descs = static_cast<sg_k_desc *>(calloc(count, sizeof *descs));
  ck_assert_ptr_nonnull(descs);
  uint64_t first = 0;
  for (uint32_t p = 0; p < count; p++) {
    descs[p].item_first[SG_K_LIST_CAST] = first;
    descs[p].items[SG_K_LIST_CAST] = items[p];
    first += items[p];
  }
  return descs;
}

/* The descriptor holding item `item`, as the device's search finds it. */
static uint32_t holder_of(const sg_k_desc *descs, uint32_t count, uint64_t item) {
  for (uint32_t p = 0; p < count; p++) {
    const uint64_t first = descs[p].item_first[SG_K_LIST_CAST];
    if (first <= item && item < first + descs[p].items[SG_K_LIST_CAST]) {
      return p;
    }
  }
  ck_abort_msg("no descriptor holds item %llu", (unsigned long long)item);
  return 0;
}

/* Every warp's walk over its share: runs inside their parameter, in
 * order, each the next item after the one before; `more` until the
 * share's last run; and each parameter's runs, over all warps, add up to
 * its items. */
static void check_walks(const uint64_t *items, uint32_t count, uint64_t workers) {
  sg_k_desc *descs = table_of(items, count);
  uint64_t total = 0;
  for (uint32_t p = 0; p < count; p++) {
    total += items[p];
  }
  uint64_t *reported = static_cast<uint64_t *>(calloc(count, sizeof *reported));
  ck_assert_ptr_nonnull(reported);
  for (uint64_t me = 0; me < workers; me++) {
    const sg_k_share s = sg_k_share_of(total, workers, me);
    sg_k_work w;
    w.begin = s.begin;
    w.end = s.end;
    w.param = s.begin == s.end ? 0u : holder_of(descs, count, s.begin);
    w.pe = count;
    uint64_t next_item = w.begin;
    bool ended = w.begin == w.end;
    sg_k_items_run run = {w.begin, w.param, 0, 0, false};
    while (sg_k_items_next<SG_K_LIST_CAST>(descs, w, run)) {
      EXPECT(!ended, "warp %llu walks on after its last run", (unsigned long long)me);
      const uint32_t p = run.p;
      const uint64_t first = descs[p].item_first[SG_K_LIST_CAST];
      EXPECT(run.lo < run.hi && run.hi <= items[p],
                    "warp %llu: items [%llu, %llu) of parameter %u, which has %llu",
                    (unsigned long long)me, (unsigned long long)run.lo,
                    (unsigned long long)run.hi, p, (unsigned long long)items[p]);
      EXPECT(first + run.lo == next_item, "warp %llu: a run begins at item %llu, not %llu",
             (unsigned long long)me, (unsigned long long)(first + run.lo),
             (unsigned long long)next_item);
      next_item = first + run.hi;
      EXPECT(run.more == (next_item < w.end), "warp %llu: more is %d at item %llu of [%llu, %llu)",
             (unsigned long long)me, (int)run.more, (unsigned long long)next_item,
             (unsigned long long)w.begin, (unsigned long long)w.end);
      ended = !run.more;
      reported[p] += run.hi - run.lo;
    }
    EXPECT(ended && next_item == w.end, "warp %llu stopped at item %llu of [%llu, %llu)",
                  (unsigned long long)me, (unsigned long long)next_item,
                  (unsigned long long)w.begin, (unsigned long long)w.end);
  }
  for (uint32_t p = 0; p < count; p++) {
    EXPECT(reported[p] == items[p], "parameter %u: %llu items reported of %llu (%llu warps)",
                  p, (unsigned long long)reported[p], (unsigned long long)items[p],
                  (unsigned long long)workers);
  }
  free(reported);
  free(descs);
}

START_TEST(walks_report_every_item_once) {
  /* The mixed set's cast items: 4096 x 4096, 3000 x 1000, 1024 x 4099,
   * dense vectors of 50000, 513 x 257, then 96 x 80 and 33 x 257 (one and
   * two items), with empty parameters (no cast items: not selected). */
  static const uint64_t kMixed[] = {2048, 2048, 367, 367, 513, 513, 7, 7, 0, 17,
                                    17,   1,    1,   2,   2,   1,   0, 2, 1, 2};
  static const uint64_t kSmall[] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  static const uint64_t kOne[] = {3};
  static const uint64_t kEmptyEnds[] = {0, 0, 5, 0, 1, 0, 0};
  for (uint64_t workers : kWorkers) {
    check_walks(kMixed, sizeof kMixed / sizeof kMixed[0], workers);
    check_walks(kSmall, sizeof kSmall / sizeof kSmall[0], workers);
    check_walks(kOne, 1, workers);
    check_walks(kEmptyEnds, sizeof kEmptyEnds / sizeof kEmptyEnds[0], workers);
  }
}
END_TEST

START_TEST(walks_of_random_tables) {
  srand(static_cast<unsigned>(sg_test_seed("test_cast_shares")));
  for (int k = 0; k < 40; k++) {
    uint64_t items[64];
    const uint32_t count = 1 + static_cast<uint32_t>(rand() % 64);
    for (uint32_t p = 0; p < count; p++) {
      const int kind = rand() % 4; /* empty, one item, a few, many */
      items[p] = kind == 0 ? 0 : kind == 1 ? 1 : kind == 2 ? 2 + rand() % 3 : 20 + rand() % 400;
    }
    for (uint64_t workers : kWorkers) {
      if (workers <= 3168) {
        check_walks(items, count, workers);
      }
    }
  }
}
END_TEST

int main(void) {
  Suite *s = suite_create("cast_shares");
  TCase *tc = tcase_create("shares");
  tcase_add_test(tc, shares_tile_the_items);
  tcase_add_test(tc, walks_report_every_item_once);
  tcase_add_test(tc, walks_of_random_tables);
  suite_add_tcase(s, tc);
  return sg_run_suite(s, CK_FORK);
}

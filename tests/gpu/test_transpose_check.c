/* The stale-transpose detector on a GPU: parameters of odd and aligned
 * shapes whose Wt starts as transpose(W); single bytes of Wt corrupted one
 * after another must be found at the check that follows, counted per
 * parameter, with the first finding (check, parameter, group) kept; a
 * transpose refresh makes Wt fresh again; the check runs inside a captured
 * graph at every replay and in every step of the step driver; sync and
 * get_stats report what it found; with the detector off nothing is
 * reported. */
#include <stdbool.h>

#include "gpu_common.h"

#define PARAMS 5

static const struct {
  uint64_t rows, cols;
  uint32_t group;
} shapes[PARAMS] = {
    {300, 200, 0}, {128, 128, 3}, {1, 20000, 3}, {257, 1000, 7}, {1024, 2048, 7},
};

typedef struct fixture {
  sg_session *s;
  cudaStream_t st;
  uint8_t *w[PARAMS], *wt[PARAMS];
} fixture;

static uint8_t byte_at(uint32_t p, uint64_t i) {
  return (uint8_t)((i * 2654435761u + p * 97u) >> 13);
}

/* W random bytes, Wt its transpose, both dense. */
static void make_param(fixture *f, uint32_t p, sg_fp8_param_desc *d) {
  const uint64_t r = shapes[p].rows, c = shapes[p].cols, n = r * c;
  uint8_t *w = malloc(n), *wt = malloc(n);
  ck_assert(w != NULL && wt != NULL);
  for (uint64_t i = 0; i < n; i++) {
    w[i] = byte_at(p, i);
  }
  for (uint64_t i = 0; i < r; i++) {
    for (uint64_t j = 0; j < c; j++) {
      wt[j * r + i] = w[i * c + j];
    }
  }
  SG_CHECK_CUDA(cudaMalloc((void **)&f->w[p], n));
  SG_CHECK_CUDA(cudaMalloc((void **)&f->wt[p], n));
  SG_CHECK_CUDA(cudaMemcpy(f->w[p], w, n, cudaMemcpyHostToDevice));
  SG_CHECK_CUDA(cudaMemcpy(f->wt[p], wt, n, cudaMemcpyHostToDevice));
  free(w);
  free(wt);
  memset(d, 0, sizeof *d);
  d->struct_size = sizeof *d;
  d->format = SG_FP8_E4M3;
  d->master_dtype = SG_DTYPE_NONE;
  d->rows = r;
  d->cols = c;
  d->data = f->w[p];
  d->ld_data = c;
  d->transpose = f->wt[p];
  d->ld_transpose = r;
  d->group = shapes[p].group;
}

static fixture open_fixture(bool detect, uint32_t warmup) {
  sg_session_config cfg = gt_config();
  cfg.flags = detect ? SG_SESSION_CHECK_TRANSPOSES : 0;
  cfg.warmup_steps = warmup;
  fixture f;
  f.s = gt_session(&cfg);
  f.st = gt_stream(1);
  sg_fp8_param_desc d[PARAMS];
  for (uint32_t p = 0; p < PARAMS; p++) {
    make_param(&f, p, &d[p]);
  }
  SG_CHECK_CUDA(cudaDeviceSynchronize()); /* the pageable copies landed */
  GT_OK(f.s, gt_api->register_fp8_params(f.s, d, PARAMS, NULL));
  GT_OK(f.s, gt_api->pre_capture(f.s, (sg_stream)f.st));
  return f;
}

static void close_fixture(fixture *f) {
  SG_CHECK_CUDA(cudaStreamSynchronize(f->st));
  gt_api->session_destroy(f->s);
  for (uint32_t p = 0; p < PARAMS; p++) {
    SG_CHECK_CUDA(cudaFree(f->w[p]));
    SG_CHECK_CUDA(cudaFree(f->wt[p]));
  }
  SG_CHECK_CUDA(cudaStreamDestroy(f->st));
}

/* Flips Wt[j][i] of parameter p (ordered after the stream's work). */
static void corrupt(fixture *f, uint32_t p, uint64_t j, uint64_t i) {
  uint8_t *at = f->wt[p] + j * shapes[p].rows + i;
  uint8_t b = 0;
  SG_CHECK_CUDA(cudaStreamSynchronize(f->st));
  SG_CHECK_CUDA(cudaMemcpy(&b, at, 1, cudaMemcpyDeviceToHost));
  b ^= 0x5a;
  SG_CHECK_CUDA(cudaMemcpy(at, &b, 1, cudaMemcpyHostToDevice));
  SG_CHECK_CUDA(cudaDeviceSynchronize()); /* a pageable copy may be late */
}

typedef struct report {
  sg_transpose_report r;
  uint64_t mismatches[PARAMS + 1];
} report;

static report get_report(fixture *f) {
  report out;
  memset(&out, 0xee, sizeof out);
  out.r.struct_size = sizeof out.r;
  out.r.mismatches = out.mismatches;
  out.r.mismatch_capacity = PARAMS + 1;
  out.r.reserved0 = 0;
  GT_OK(f->s, gt_api->transpose_report(f->s, (sg_stream)f->st, &out.r));
  ck_assert_uint_eq(out.mismatches[PARAMS], 0); /* past the registered */
  return out;
}

static void check(fixture *f) {
  GT_OK(f->s, gt_api->check_transposes(f->s, (sg_stream)f->st));
}

static void expect_counts(const report *r, const uint64_t *want) {
  for (uint32_t p = 0; p < PARAMS; p++) {
    ck_assert_msg(r->mismatches[p] == want[p],
                  "param %u: %llu mismatching bytes, expected %llu", p,
                  (unsigned long long)r->mismatches[p],
                  (unsigned long long)want[p]);
  }
}

START_TEST(fresh_transposes_are_not_reported) {
  fixture f = open_fixture(true, 0);
  check(&f);
  check(&f);
  const report r = get_report(&f);
  ck_assert_uint_eq(r.r.enabled, 1);
  ck_assert_uint_eq(r.r.checks, 2);
  ck_assert_uint_eq(r.r.stale_params, 0);
  ck_assert_uint_eq(r.r.first_stale_check, UINT64_MAX);
  ck_assert_uint_eq(r.r.first_stale_param, UINT32_MAX);
  ck_assert_uint_eq(r.r.first_stale_group, UINT32_MAX);
  expect_counts(&r, (const uint64_t[PARAMS]){0, 0, 0, 0, 0});
  close_fixture(&f);
}
END_TEST

START_TEST(corruptions_are_found_counted_and_the_first_kept) {
  fixture f = open_fixture(true, 0);
  check(&f);
  check(&f);
  corrupt(&f, 1, 5, 7);
  check(&f); /* check 2 finds param 1 */
  report r = get_report(&f);
  ck_assert_uint_eq(r.r.checks, 3);
  ck_assert_uint_eq(r.r.stale_params, 1);
  ck_assert_uint_eq(r.r.first_stale_check, 2);
  ck_assert_uint_eq(r.r.first_stale_param, 1);
  ck_assert_uint_eq(r.r.first_stale_group, 3);
  expect_counts(&r, (const uint64_t[PARAMS]){0, 1, 0, 0, 0});
  corrupt(&f, 3, 999, 256); /* the last row of an edge tile */
  corrupt(&f, 3, 0, 0);
  corrupt(&f, 4, 2047, 1023); /* the last byte of an aligned one */
  corrupt(&f, 0, 199, 299);
  corrupt(&f, 2, 19999, 0); /* the last byte of a vector's second (linear) span */
  check(&f);
  r = get_report(&f);
  ck_assert_uint_eq(r.r.stale_params, 5);
  ck_assert_uint_eq(r.r.first_stale_check, 2); /* the first is kept */
  ck_assert_uint_eq(r.r.first_stale_param, 1);
  expect_counts(&r, (const uint64_t[PARAMS]){1, 2, 1, 2, 1});
  close_fixture(&f);
}
END_TEST

/* Within one check, the lowest stale index is the first. */
START_TEST(at_one_check_the_lowest_index_is_first) {
  fixture f = open_fixture(true, 0);
  corrupt(&f, 4, 3, 3);
  corrupt(&f, 2, 0, 0);
  check(&f);
  const report r = get_report(&f);
  ck_assert_uint_eq(r.r.first_stale_check, 0);
  ck_assert_uint_eq(r.r.first_stale_param, 2);
  ck_assert_uint_eq(r.r.first_stale_group, 3);
  close_fixture(&f);
}
END_TEST

START_TEST(a_transpose_refresh_makes_them_fresh_again) {
  fixture f = open_fixture(true, 0);
  corrupt(&f, 0, 1, 1);
  corrupt(&f, 3, 2, 2);
  check(&f);
  sg_refresh_args ra = {sizeof ra, SG_REFRESH_TRANSPOSE, SG_ALL_GROUPS, NULL,
                        0, 0};
  GT_OK(f.s, gt_api->post_optimizer_step(f.s, (sg_stream)f.st, &ra));
  check(&f);
  check(&f);
  const report r = get_report(&f);
  ck_assert_uint_eq(r.r.checks, 3);
  expect_counts(&r, (const uint64_t[PARAMS]){1, 0, 0, 1, 0}); /* check 0 */
  close_fixture(&f);
}
END_TEST

static void add_one(fixture *f, int *dev) {
  SG_CHECK_CUDA(tk_add_int(dev, 1, f->st));
}

/* capture_begin makes the check the graph's first node: every replay
 * checks; sync and get_stats then report it. */
START_TEST(a_captured_step_checks_at_every_replay) {
  fixture f = open_fixture(true, 0);
  int *dev = NULL;
  SG_CHECK_CUDA(cudaMalloc((void **)&dev, sizeof *dev));
  SG_CHECK_CUDA(tk_set_int(dev, 0, f.st));
  sg_capture_args ca = gt_capture_args(4, f.st, SG_CAPTURE_THREAD_LOCAL);
  GT_OK(f.s, gt_api->capture_begin(f.s, &ca));
  add_one(&f, dev);
  GT_OK(f.s, gt_api->capture_end(f.s, &ca));
  ck_assert_uint_eq(get_report(&f).r.checks, 0); /* capture records only */
  sg_replay_args ra = gt_replay_args(4, f.st);
  for (int k = 0; k < 3; k++) {
    GT_OK(f.s, gt_api->replay(f.s, &ra));
  }
  ck_assert_uint_eq(get_report(&f).r.checks, 3);
  corrupt(&f, 2, 10, 0);
  GT_OK(f.s, gt_api->replay(f.s, &ra));
  GT_OK(f.s, gt_api->sync(f.s, (sg_stream)f.st, 10000));
  sg_stats st = gt_stats(f.s);
  ck_assert_uint_eq(st.transpose_checks, 4);
  ck_assert_uint_eq(st.stale_params, 1);
  ck_assert_uint_eq(st.first_stale_check, 3);
  ck_assert_uint_eq(st.first_stale_param, 2);
  ck_assert_uint_eq(st.first_stale_group, 3);
  ck_assert_int_eq(gt_read_int(dev, f.st), 4);
  SG_CHECK_CUDA(cudaFree(dev));
  close_fixture(&f);
}
END_TEST

typedef struct driven {
  fixture *f;
  int *dev;
} driven;

static sg_status driven_fn(void *user, sg_stream stream,
                           const sg_step_context *ctx) {
  (void)stream, (void)ctx;
  driven *d = user;
  add_one(d->f, d->dev);
  return SG_OK;
}

START_TEST(the_driver_checks_every_step_eager_or_replayed) {
  fixture f = open_fixture(true, 2);
  driven d = {&f, NULL};
  SG_CHECK_CUDA(cudaMalloc((void **)&d.dev, sizeof *d.dev));
  SG_CHECK_CUDA(tk_set_int(d.dev, 0, f.st));
  sg_step_args a = {.struct_size = sizeof a, .key = 9, .stream = (sg_stream)f.st,
                    .fn = driven_fn, .user = &d};
  for (int k = 0; k < 5; k++) { /* 2 warm-up, capture + launch, 2 replays */
    GT_OK(f.s, gt_api->step(f.s, &a));
  }
  ck_assert_uint_eq(a.outcome_out, SG_STEP_REPLAYED);
  ck_assert_uint_eq(get_report(&f).r.checks, 5);
  ck_assert_int_eq(gt_read_int(d.dev, f.st), 5);
  SG_CHECK_CUDA(cudaFree(d.dev));
  close_fixture(&f);
}
END_TEST

START_TEST(with_the_detector_off_nothing_is_checked) {
  fixture f = open_fixture(false, 0);
  corrupt(&f, 1, 0, 0);
  check(&f);
  const report r = get_report(&f);
  ck_assert_uint_eq(r.r.enabled, 0);
  ck_assert_uint_eq(r.r.checks, 0);
  ck_assert_uint_eq(r.r.first_stale_param, UINT32_MAX);
  expect_counts(&r, (const uint64_t[PARAMS]){0, 0, 0, 0, 0});
  close_fixture(&f);
}
END_TEST

static Suite *make(void) {
  Suite *s = suite_create("transpose_check");
  TCase *t = tcase_create("detector");
  tcase_set_timeout(t, 120);
  tcase_add_test(t, fresh_transposes_are_not_reported);
  tcase_add_test(t, corruptions_are_found_counted_and_the_first_kept);
  tcase_add_test(t, at_one_check_the_lowest_index_is_first);
  tcase_add_test(t, a_transpose_refresh_makes_them_fresh_again);
  tcase_add_test(t, a_captured_step_checks_at_every_replay);
  tcase_add_test(t, the_driver_checks_every_step_eager_or_replayed);
  tcase_add_test(t, with_the_detector_off_nothing_is_checked);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return gt_main("test_transpose_check", make); }

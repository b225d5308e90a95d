/* Guards and loops used wrongly, on a GPU: each misuse gets its documented
 * status and leaves the stream usable (not capturing, or still recording
 * the plugin's capture, which then ends normally): a closer with nothing
 * to close or the wrong kind open, capture_end with a region open, a
 * region on a capture the host began itself or on another stream, more
 * than 8 nested, an eager region left open before capture_begin or by the
 * step callback, a body CUDA cannot make conditional, and a session
 * destroyed mid-region. */
#include "cond_program.h"
#include "gpu_common.h"

static const cp_values values = {{1, 1, 3, 2}};

typedef struct fixture {
  sg_session *s;
  cudaStream_t st;
  cp_run run;
  sg_capture_args ca;
  int32_t *one; /* device int32 = 1: a flag that runs the body */
  int calls;    /* of the step callback */
} fixture;

static fixture open_fixture(uint32_t warmup) {
  fixture f;
  cp_open_session(&f.run, gt_api, warmup);
  f.s = f.run.s;
  f.st = f.run.st;
  f.ca = gt_capture_args(1, f.st, SG_CAPTURE_THREAD_LOCAL);
  f.calls = 0;
  SG_CHECK_CUDA(cudaMalloc((void **)&f.one, sizeof *f.one));
  SG_CHECK_CUDA(tk_set_int(f.one, 1, f.st));
  return f;
}

static void close_fixture(fixture *f) {
  SG_CHECK_CUDA(cudaFree(f->one));
  cp_close_session(&f->run);
}

static void expect_trace(fixture *f, cp_shape shape, const char *how) {
  cp_trace got, want;
  cp_read(&f->run, &got);
  cp_simulate(shape, &values, &want);
  ck_assert_msg(cp_diff(&got, &want) < 0, "%s: %s: wrong trace", how,
                cp_names[shape]);
}

/* Not capturing, and an eager program on it and the session runs right. */
static void expect_usable(fixture *f) {
  enum cudaStreamCaptureStatus status = cudaStreamCaptureStatusActive;
  SG_CHECK_CUDA(cudaStreamIsCapturing(f->st, &status));
  ck_assert_int_eq(status, cudaStreamCaptureStatusNone);
  cp_enqueue_values(&f->run, &values);
  GT_OK(f->s, cp_enqueue_program(&f->run, CP_SEQUENCE));
  expect_trace(f, CP_SEQUENCE, "eager program after the misuse");
}

/* The key's graph replays the program it captured. */
static void expect_replays(fixture *f, cp_shape shape) {
  sg_replay_args ra = gt_replay_args(f->ca.key, f->st);
  cp_enqueue_values(&f->run, &values);
  GT_OK(f->s, gt_api->replay(f->s, &ra));
  expect_trace(f, shape, "replay");
}

START_TEST(a_closer_with_nothing_open_is_refused_mid_capture) {
  fixture f = open_fixture(0);
  uint32_t again = 5;
  cp_enqueue_values(&f.run, &values);
  GT_OK(f.s, gt_api->capture_begin(f.s, &f.ca));
  GT_EXPECT(f.s, gt_api->guard_end(f.s, (sg_stream)f.st),
            SG_ERR_INVALID_STATE);
  GT_EXPECT(f.s, gt_api->loop_next(f.s, (sg_stream)f.st, &again),
            SG_ERR_INVALID_STATE);
  ck_assert_uint_eq(again, 5);
  GT_OK(f.s, cp_enqueue_program(&f.run, CP_GUARD)); /* still recording */
  GT_OK(f.s, gt_api->capture_end(f.s, &f.ca));
  expect_replays(&f, CP_GUARD);
  close_fixture(&f);
}
END_TEST

START_TEST(closing_the_wrong_kind_is_refused_eager_and_captured) {
  for (int captured = 0; captured < 2; captured++) {
    fixture f = open_fixture(0);
    uint32_t run = 0, again = 9;
    if (captured) {
      GT_OK(f.s, gt_api->capture_begin(f.s, &f.ca));
    }
    GT_OK(f.s, gt_api->guard_begin(f.s, (sg_stream)f.st, f.one, &run));
    ck_assert_uint_eq(run, 1);
    GT_EXPECT(f.s, gt_api->loop_next(f.s, (sg_stream)f.st, &again),
              SG_ERR_INVALID_STATE);
    ck_assert_msg(strstr(sg_test_detail(gt_api, f.s), "is a guard") != NULL,
                  "%s", sg_test_detail(gt_api, f.s));
    GT_OK(f.s, gt_api->guard_end(f.s, (sg_stream)f.st));
    if (captured) {
      GT_OK(f.s, gt_api->capture_end(f.s, &f.ca));
    }
    expect_usable(&f);
    close_fixture(&f);
  }
}
END_TEST

START_TEST(capture_end_with_a_region_open_keeps_the_old_graph) {
  fixture f = open_fixture(0);
  uint32_t run = 0;
  cp_enqueue_values(&f.run, &values);
  GT_OK(f.s, gt_api->capture_begin(f.s, &f.ca));
  GT_OK(f.s, cp_enqueue_program(&f.run, CP_LOOP));
  GT_OK(f.s, gt_api->capture_end(f.s, &f.ca));
  GT_OK(f.s, gt_api->capture_begin(f.s, &f.ca));
  GT_OK(f.s, gt_api->guard_begin(f.s, (sg_stream)f.st, f.one, &run));
  GT_EXPECT(f.s, gt_api->capture_end(f.s, &f.ca), SG_ERR_INVALID_STATE);
  ck_assert_msg(strstr(sg_test_detail(gt_api, f.s), "still open") != NULL,
                "%s", sg_test_detail(gt_api, f.s));
  expect_replays(&f, CP_LOOP); /* the key keeps its previous graph */
  expect_usable(&f);
  ck_assert_uint_eq(gt_stats(f.s).capture_failures, 0);
  close_fixture(&f);
}
END_TEST

START_TEST(a_region_in_a_host_capture_is_refused_and_leaves_it_alone) {
  fixture f = open_fixture(0);
  uint32_t run = 7;
  const uint32_t *index = NULL;
  SG_CHECK_CUDA(cudaStreamBeginCapture(f.st, cudaStreamCaptureModeThreadLocal));
  SG_CHECK_CUDA(tk_add_int(f.one, 0, f.st));
  GT_EXPECT(f.s, gt_api->guard_begin(f.s, (sg_stream)f.st, f.one, &run),
            SG_ERR_INVALID_STATE);
  ck_assert_msg(strstr(sg_test_detail(gt_api, f.s), "not in a capture of "
                                                    "this session") != NULL,
                "%s", sg_test_detail(gt_api, f.s));
  GT_EXPECT(f.s, gt_api->loop_begin(f.s, (sg_stream)f.st, f.one, &index, &run),
            SG_ERR_INVALID_STATE);
  ck_assert_uint_eq(run, 7);
  SG_CHECK_CUDA(tk_add_int(f.one, 0, f.st));
  cudaGraph_t g = NULL;
  SG_CHECK_CUDA(cudaStreamEndCapture(f.st, &g)); /* not invalidated */
  ck_assert_ptr_nonnull(g);
  SG_CHECK_CUDA(cudaGraphDestroy(g));
  expect_usable(&f);
  close_fixture(&f);
}
END_TEST

START_TEST(a_region_on_another_stream_mid_capture_is_refused) {
  fixture f = open_fixture(0);
  cudaStream_t other = gt_stream(1);
  uint32_t run = 0;
  GT_OK(f.s, gt_api->capture_begin(f.s, &f.ca));
  GT_EXPECT(f.s, gt_api->guard_begin(f.s, (sg_stream)other, f.one, &run),
            SG_ERR_INVALID_ARGUMENT);
  ck_assert_msg(strstr(sg_test_detail(gt_api, f.s), "not the capture "
                                                    "stream") != NULL,
                "%s", sg_test_detail(gt_api, f.s));
  GT_OK(f.s, gt_api->capture_end(f.s, &f.ca));
  SG_CHECK_CUDA(cudaStreamDestroy(other));
  expect_usable(&f);
  close_fixture(&f);
}
END_TEST

/* Eagerly and captured: 8 open, the 9th refused; closing the 8 works. */
START_TEST(a_ninth_nested_region_is_refused) {
  for (int captured = 0; captured < 2; captured++) {
    fixture f = open_fixture(0);
    uint32_t run = 0;
    if (captured) {
      GT_OK(f.s, gt_api->capture_begin(f.s, &f.ca));
    }
    for (int k = 0; k < 8; k++) {
      GT_OK(f.s, gt_api->guard_begin(f.s, (sg_stream)f.st, f.one, &run));
    }
    GT_EXPECT(f.s, gt_api->guard_begin(f.s, (sg_stream)f.st, f.one, &run),
              SG_ERR_CAPACITY);
    for (int k = 0; k < 8; k++) {
      GT_OK(f.s, gt_api->guard_end(f.s, (sg_stream)f.st));
    }
    if (captured) { /* 8 nested IFs: CUDA may refuse the nesting */
      const sg_status st = gt_api->capture_end(f.s, &f.ca);
      ck_assert(st == SG_OK || st == SG_ERR_CAPTURE_FAILED);
    }
    expect_usable(&f);
    close_fixture(&f);
  }
}
END_TEST

START_TEST(an_eager_region_left_open_refuses_capture_begin_once) {
  fixture f = open_fixture(0);
  uint32_t run = 0;
  GT_OK(f.s, gt_api->guard_begin(f.s, (sg_stream)f.st, f.one, &run));
  GT_EXPECT(f.s, gt_api->capture_begin(f.s, &f.ca), SG_ERR_INVALID_STATE);
  ck_assert_msg(strstr(sg_test_detail(gt_api, f.s), "left 1 region") != NULL,
                "%s", sg_test_detail(gt_api, f.s));
  GT_EXPECT(f.s, gt_api->guard_end(f.s, (sg_stream)f.st),
            SG_ERR_INVALID_STATE); /* closed by the refusal */
  cp_enqueue_values(&f.run, &values);
  GT_OK(f.s, gt_api->capture_begin(f.s, &f.ca));
  GT_OK(f.s, cp_enqueue_program(&f.run, CP_GUARD));
  GT_OK(f.s, gt_api->capture_end(f.s, &f.ca));
  expect_replays(&f, CP_GUARD);
  close_fixture(&f);
}
END_TEST

static void CUDART_CB host_fn(void *user) { (void)user; }

/* A host function inside a guard: CUDA cannot make that conditional. The
 * capture fails naming why, the stream is usable, the key runs eagerly. */
START_TEST(a_body_cuda_cannot_make_conditional_fails_the_capture) {
  fixture f = open_fixture(0);
  uint32_t run = 0;
  GT_OK(f.s, gt_api->capture_begin(f.s, &f.ca));
  GT_OK(f.s, gt_api->guard_begin(f.s, (sg_stream)f.st, f.one, &run));
  const cudaError_t launched = cudaLaunchHostFunc(f.st, host_fn, NULL);
  (void)cudaGetLastError();
  GT_OK(f.s, gt_api->guard_end(f.s, (sg_stream)f.st));
  GT_EXPECT(f.s, gt_api->capture_end(f.s, &f.ca), SG_ERR_CAPTURE_FAILED);
  printf("a host function in a guard: cudaLaunchHostFunc returned %s; "
         "capture_end: %s\n",
         cudaGetErrorName(launched), sg_test_detail(gt_api, f.s));
  GT_EXPECT(f.s, gt_api->capture_begin(f.s, &f.ca), SG_RUN_EAGERLY);
  expect_usable(&f);
  close_fixture(&f);
}
END_TEST

static sg_status leave_open(void *user, sg_stream stream,
                            const sg_step_context *ctx) {
  fixture *f = user;
  uint32_t run = 0;
  (void)ctx;
  return f->calls++ == 0 ? gt_api->guard_begin(f->s, stream, f->one, &run)
                         : cp_enqueue_program(&f->run, CP_SEQUENCE);
}

START_TEST(a_step_callback_leaving_a_region_open_fails_that_step) {
  fixture f = open_fixture(1);
  sg_step_args a = {.struct_size = sizeof a, .key = 1, .stream = (sg_stream)f.st,
                    .fn = leave_open, .user = &f};
  GT_EXPECT(f.s, gt_api->step(f.s, &a), SG_ERR_INVALID_STATE);
  ck_assert_msg(strstr(sg_test_detail(gt_api, f.s), "the step callback "
                                                    "left") != NULL,
                "%s", sg_test_detail(gt_api, f.s));
  cp_enqueue_values(&f.run, &values);
  GT_OK(f.s, gt_api->step(f.s, &a)); /* the warm-up step again */
  ck_assert_uint_eq(a.outcome_out, SG_STEP_WARMUP);
  expect_trace(&f, CP_SEQUENCE, "the next step");
  close_fixture(&f);
}
END_TEST

START_TEST(destroying_the_session_mid_region_leaves_the_stream_usable) {
  fixture f = open_fixture(0);
  uint32_t run = 0;
  const uint32_t *index = NULL;
  GT_OK(f.s, gt_api->capture_begin(f.s, &f.ca));
  GT_OK(f.s, gt_api->loop_begin(f.s, (sg_stream)f.st, f.one, &index, &run));
  GT_OK(f.s, gt_api->guard_begin(f.s, (sg_stream)f.st, f.one, &run));
  gt_api->session_destroy(f.s);
  enum cudaStreamCaptureStatus status = cudaStreamCaptureStatusActive;
  SG_CHECK_CUDA(cudaStreamIsCapturing(f.st, &status));
  ck_assert_int_eq(status, cudaStreamCaptureStatusNone);
  SG_CHECK_CUDA(tk_add_int(f.one, 1, f.st));
  ck_assert_int_eq(gt_read_int(f.one, f.st), 2);
  cp_close(&f.run);
  SG_CHECK_CUDA(cudaFree(f.one));
  SG_CHECK_CUDA(cudaStreamDestroy(f.st));
}
END_TEST

static Suite *make(void) {
  Suite *s = suite_create("conditional_misuse");
  TCase *t = tcase_create("misuse");
  tcase_set_timeout(t, 120);
  tcase_add_test(t, a_closer_with_nothing_open_is_refused_mid_capture);
  tcase_add_test(t, closing_the_wrong_kind_is_refused_eager_and_captured);
  tcase_add_test(t, capture_end_with_a_region_open_keeps_the_old_graph);
  tcase_add_test(t, a_region_in_a_host_capture_is_refused_and_leaves_it_alone);
  tcase_add_test(t, a_region_on_another_stream_mid_capture_is_refused);
  tcase_add_test(t, a_ninth_nested_region_is_refused);
  tcase_add_test(t, an_eager_region_left_open_refuses_capture_begin_once);
  tcase_add_test(t, a_body_cuda_cannot_make_conditional_fails_the_capture);
  tcase_add_test(t, a_step_callback_leaving_a_region_open_fails_that_step);
  tcase_add_test(t, destroying_the_session_mid_region_leaves_the_stream_usable);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return gt_main("test_conditional_misuse", make); }

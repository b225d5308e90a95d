/* Each way a capture fails — a synchronisation inside it, a cudaMalloc-style
 * allocation, the legacy stream, a host read, an unjoined fork, a capture
 * invalidated by a query or by another thread — is detected by capture_end
 * (SG_ERR_CAPTURE_FAILED with the CUDA error and its cause), and recovered
 * from: the streams leave capture mode and run work, free device memory is
 * back where it was, the RNG's in-step offsets are restored, the key runs
 * eagerly until invalidated, and then captures again. Also the step driver's
 * fallback, a callback that gives up mid-capture, and a joined fork. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>

#include "gpu_common.h"

typedef struct env {
  cudaStream_t stream, side;
  int *dev;
  void *leaked; /* what a cudaMalloc inside the capture returned, if any */
  cudaEvent_t fork;
} env;

static void bad_sync(env *e) { (void)cudaStreamSynchronize(e->stream); }

static void bad_malloc(env *e) { (void)cudaMalloc(&e->leaked, 1 << 20); }

static void bad_legacy(env *e) { (void)tk_add_int(e->dev, 100, 0); }

static void bad_host_read(env *e) {
  int h = 0;
  (void)cudaMemcpy(&h, e->dev, sizeof h, cudaMemcpyDeviceToHost);
}

static void bad_unjoined(env *e) {
  SG_CHECK_CUDA(cudaEventRecord(e->fork, e->stream));
  SG_CHECK_CUDA(cudaStreamWaitEvent(e->side, e->fork, 0));
  SG_CHECK_CUDA(tk_add_int(e->dev, 100, e->side));
}

static void bad_query(env *e) { (void)cudaStreamQuery(e->stream); }

static void *device_sync_thread(void *unused) {
  (void)unused;
  (void)cudaDeviceSynchronize();
  (void)cudaGetLastError();
  return NULL;
}

static void bad_other_thread(env *e) {
  (void)e;
  pthread_t t;
  ck_assert_int_eq(pthread_create(&t, NULL, device_sync_thread, NULL), 0);
  ck_assert_int_eq(pthread_join(t, NULL), 0);
}

typedef struct fail_case {
  const char *name;
  void (*bad)(env *e);
  uint32_t mode;
  int non_blocking;   /* the capture stream's flags */
  const char *error;  /* expected in the detail message */
} fail_case;

static const fail_case cases[] = {
    {"cudaStreamSynchronize", bad_sync, SG_CAPTURE_THREAD_LOCAL, 1,
     "cudaErrorStreamCapture"},
    {"cudaMalloc", bad_malloc, SG_CAPTURE_THREAD_LOCAL, 1,
     "cudaErrorStreamCapture"},
    {"legacy stream", bad_legacy, SG_CAPTURE_THREAD_LOCAL, 0,
     "cudaErrorStreamCapture"},
    {"host read (cudaMemcpy D2H)", bad_host_read, SG_CAPTURE_THREAD_LOCAL, 0,
     "cudaErrorStreamCapture"},
    {"unjoined fork", bad_unjoined, SG_CAPTURE_THREAD_LOCAL, 1,
     "cudaErrorStreamCaptureUnjoined"},
    {"query of the capturing stream", bad_query, SG_CAPTURE_THREAD_LOCAL, 1,
     "cudaErrorStreamCaptureInvalidated"},
    {"another thread's cudaDeviceSynchronize", bad_other_thread,
     SG_CAPTURE_GLOBAL, 1, "cudaErrorStreamCapture"},
};
#define CASE_COUNT (sizeof cases / sizeof cases[0])

static void expect_usable(cudaStream_t st) {
  enum cudaStreamCaptureStatus cs = cudaStreamCaptureStatusActive;
  SG_CHECK_CUDA(cudaStreamIsCapturing(st, &cs));
  ck_assert_int_eq(cs, cudaStreamCaptureStatusNone);
}

START_TEST(each_capture_failure_is_reported_and_recovered_from) {
  const fail_case *fc = &cases[_i];
  const uint64_t key = 100 + (uint64_t)_i;
  sg_session_config cfg = gt_config();
  sg_session *s = gt_session(&cfg);
  env e = {gt_stream(fc->non_blocking), gt_stream(1), NULL, NULL, NULL};
  SG_CHECK_CUDA(cudaEventCreateWithFlags(&e.fork, cudaEventDisableTiming));
  SG_CHECK_CUDA(cudaMalloc((void **)&e.dev, sizeof(int)));
  SG_CHECK_CUDA(tk_set_int(e.dev, 0, e.stream));
  SG_CHECK_CUDA(cudaDeviceSynchronize());
  GT_OK(s, gt_api->pre_capture(s, (sg_stream)e.stream));
  const size_t free_before = gt_free_memory();

  sg_capture_args ca = gt_capture_args(key, e.stream, fc->mode);
  GT_OK(s, gt_api->capture_begin(s, &ca));
  SG_CHECK_CUDA(tk_add_int(e.dev, 5, e.stream));
  uint64_t off = 99;
  GT_OK(s, gt_api->rng_reserve(s, 4, &off));
  ck_assert_uint_eq(off, 0);
  fc->bad(&e);
  sg_status got = gt_api->capture_end(s, &ca);
  const char *detail = sg_test_detail(gt_api, s);
  printf("test_capture_failures: %s -> %s: %s\n", fc->name,
         gt_api->status_string(got), detail);
  ck_assert_msg(got == SG_ERR_CAPTURE_FAILED, "%s: capture_end gave %d: %s",
                fc->name, (int)got, detail);
  ck_assert_ptr_nonnull(strstr(detail, "capture of key"));
  ck_assert_msg(strstr(detail, fc->error) != NULL, "%s: no %s in: %s",
                fc->name, fc->error, detail);
  (void)cudaGetLastError(); /* the host's own call failed too */

  /* Recovered: both streams out of capture and running work. */
  expect_usable(e.stream);
  expect_usable(e.side);
  if (e.leaked != NULL) {
    SG_CHECK_CUDA(cudaFree(e.leaked));
  }
  SG_CHECK_CUDA(tk_add_int(e.dev, 1, e.stream));
  SG_CHECK_CUDA(tk_add_int(e.dev, 10, e.side));
  SG_CHECK_CUDA(cudaStreamSynchronize(e.side));
  ck_assert_int_eq(gt_read_int(e.dev, e.stream), 11);
  SG_CHECK_CUDA(cudaDeviceSynchronize());
  ck_assert_uint_eq(gt_free_memory(), free_before);
  GT_OK(s, gt_api->rng_reserve(s, 4, &off));
  ck_assert_uint_eq(off, 0); /* the failed step's reservation is undone */
  GT_OK(s, gt_api->rng_end_step(s, (sg_stream)e.stream));

  /* The key is eager-only now. */
  sg_stats st = gt_stats(s);
  ck_assert_uint_eq(st.capture_failures, 1);
  ck_assert_uint_eq(st.captures, 0);
  ck_assert_uint_eq(st.graphs, 0);
  sg_graph_info info;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  GT_OK(s, gt_api->graph_info(s, key, &info));
  ck_assert_uint_eq(info.eager_only, 1);
  ck_assert_uint_eq(info.nodes, 0);
  sg_replay_args ra = gt_replay_args(key, e.stream);
  GT_EXPECT(s, gt_api->replay(s, &ra), SG_RUN_EAGERLY);
  ck_assert_ptr_nonnull(strstr(sg_test_detail(gt_api, s), "runs eagerly"));
  GT_EXPECT(s, gt_api->capture_begin(s, &ca), SG_RUN_EAGERLY);
  GT_EXPECT(s, gt_api->dump_graph(s, key, "/tmp/sg_unused.dot"),
            SG_ERR_NOT_FOUND);
  ck_assert_uint_eq(gt_stats(s).eager_runs, 2);

  /* invalidate lets it capture again, from scratch. */
  GT_OK(s, gt_api->invalidate(s, key));
  GT_EXPECT(s, gt_api->replay(s, &ra), SG_ERR_INVALID_STATE);
  ca.capture_mode = SG_CAPTURE_THREAD_LOCAL;
  GT_OK(s, gt_api->capture_begin(s, &ca));
  SG_CHECK_CUDA(tk_add_int(e.dev, 2, e.stream));
  GT_OK(s, gt_api->capture_end(s, &ca));
  GT_OK(s, gt_api->replay(s, &ra));
  ck_assert_int_eq(gt_read_int(e.dev, e.stream), 13);
  st = gt_stats(s);
  ck_assert_uint_eq(st.captures, 1);
  ck_assert_uint_eq(st.invalidations, 1);

  gt_api->session_destroy(s);
  SG_CHECK_CUDA(cudaFree(e.dev));
  SG_CHECK_CUDA(cudaEventDestroy(e.fork));
  SG_CHECK_CUDA(cudaStreamDestroy(e.stream));
  SG_CHECK_CUDA(cudaStreamDestroy(e.side));
}
END_TEST

/* --- The step driver's fallback ------------------------------------------- */

typedef struct driven {
  int *dev;
  int sync_in_capture;   /* make the capture fail with a sync */
  int return_cuda_error; /* report the failed sync as the step's error */
  int give_up;           /* return an error while capturing, nothing else */
  uint32_t phases[3];
} driven;

static sg_status driven_fn(void *user, sg_stream stream,
                           const sg_step_context *ctx) {
  driven *d = user;
  d->phases[ctx->phase]++;
  cudaStream_t st = (cudaStream_t)stream;
  if (tk_add_int(d->dev, 1, st) != cudaSuccess) {
    return SG_ERR_CUDA;
  }
  if (ctx->phase == SG_PHASE_CAPTURE && d->give_up) {
    d->give_up = 0;
    return SG_ERR_INTERNAL;
  }
  if (ctx->phase == SG_PHASE_CAPTURE && d->sync_in_capture) {
    cudaError_t err = cudaStreamSynchronize(st);
    (void)cudaGetLastError();
    if (err != cudaSuccess && d->return_cuda_error) {
      return SG_ERR_CUDA;
    }
  }
  return SG_OK;
}

static uint32_t drive(sg_session *s, driven *d, cudaStream_t st,
                      sg_status want) {
  sg_step_args a;
  memset(&a, 0, sizeof a);
  a.struct_size = sizeof a;
  a.key = 1;
  a.stream = (sg_stream)st;
  a.fn = driven_fn;
  a.user = d;
  a.outcome_out = 99;
  GT_EXPECT(s, gt_api->step(s, &a), want);
  return a.outcome_out;
}

/* A session with `warmup` warm-up steps, a stream, a zeroed counter. */
static sg_session *driven_open(driven *d, cudaStream_t *st, uint32_t warmup) {
  sg_session_config cfg = gt_config();
  cfg.warmup_steps = warmup;
  *st = gt_stream(1);
  SG_CHECK_CUDA(cudaMalloc((void **)&d->dev, sizeof(int)));
  SG_CHECK_CUDA(tk_set_int(d->dev, 0, *st));
  return gt_session(&cfg);
}

static void driven_close(sg_session *s, driven *d, cudaStream_t st) {
  expect_usable(st);
  gt_api->session_destroy(s);
  SG_CHECK_CUDA(cudaFree(d->dev));
  SG_CHECK_CUDA(cudaStreamDestroy(st));
}

START_TEST(driver_falls_back_to_eager_after_a_failed_capture) {
  driven d = {NULL, 1, _i, 0, {0, 0, 0}};
  cudaStream_t st;
  sg_session *s = driven_open(&d, &st, 1);
  ck_assert_uint_eq(drive(s, &d, st, SG_OK), SG_STEP_WARMUP);
  ck_assert_uint_eq(drive(s, &d, st, SG_OK), SG_STEP_EAGER);
  ck_assert_uint_eq(drive(s, &d, st, SG_OK), SG_STEP_EAGER);
  ck_assert_uint_eq(drive(s, &d, st, SG_OK), SG_STEP_EAGER);
  ck_assert_int_eq(gt_read_int(d.dev, st), 4); /* one step per call */
  ck_assert_uint_eq(d.phases[SG_PHASE_WARMUP], 1);
  ck_assert_uint_eq(d.phases[SG_PHASE_CAPTURE], 1);
  ck_assert_uint_eq(d.phases[SG_PHASE_EAGER], 3);
  sg_stats stats = gt_stats(s);
  ck_assert_uint_eq(stats.capture_failures, 1);
  ck_assert_uint_eq(stats.eager_runs, 3);
  ck_assert_uint_eq(stats.replays, 0);
  driven_close(s, &d, st);
}
END_TEST

START_TEST(driver_passes_on_a_callback_error_and_captures_next_time) {
  driven d = {NULL, 0, 0, 1, {0, 0, 0}};
  cudaStream_t st;
  sg_session *s = driven_open(&d, &st, 0);
  drive(s, &d, st, SG_ERR_INTERNAL); /* gave up mid-capture */
  expect_usable(st);
  ck_assert_uint_eq(gt_stats(s).capture_failures, 0);
  ck_assert_uint_eq(drive(s, &d, st, SG_OK), SG_STEP_CAPTURED);
  ck_assert_uint_eq(drive(s, &d, st, SG_OK), SG_STEP_REPLAYED);
  ck_assert_int_eq(gt_read_int(d.dev, st), 2);
  driven_close(s, &d, st);
}
END_TEST

START_TEST(a_joined_fork_is_captured) {
  sg_session_config cfg = gt_config();
  sg_session *s = gt_session(&cfg);
  cudaStream_t st = gt_stream(1), side = gt_stream(1);
  cudaEvent_t fork, join;
  SG_CHECK_CUDA(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
  SG_CHECK_CUDA(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
  int *dev = NULL;
  SG_CHECK_CUDA(cudaMalloc((void **)&dev, 2 * sizeof(int)));
  SG_CHECK_CUDA(tk_set_int(dev, 0, st));
  SG_CHECK_CUDA(tk_set_int(dev + 1, 0, st));
  GT_OK(s, gt_api->pre_capture(s, (sg_stream)st));
  sg_capture_args ca = gt_capture_args(3, st, SG_CAPTURE_THREAD_LOCAL);
  GT_OK(s, gt_api->capture_begin(s, &ca));
  SG_CHECK_CUDA(cudaEventRecord(fork, st));
  SG_CHECK_CUDA(cudaStreamWaitEvent(side, fork, 0));
  SG_CHECK_CUDA(tk_add_int(dev, 1, st));
  SG_CHECK_CUDA(tk_add_int(dev + 1, 2, side));
  SG_CHECK_CUDA(cudaEventRecord(join, side));
  SG_CHECK_CUDA(cudaStreamWaitEvent(st, join, 0));
  GT_OK(s, gt_api->capture_end(s, &ca));
  sg_replay_args ra = gt_replay_args(3, st);
  for (int i = 0; i < 5; i++) {
    GT_OK(s, gt_api->replay(s, &ra));
  }
  int host[2];
  SG_CHECK_CUDA(cudaStreamSynchronize(st));
  SG_CHECK_CUDA(cudaMemcpy(host, dev, sizeof host, cudaMemcpyDeviceToHost));
  ck_assert_int_eq(host[0], 5);
  ck_assert_int_eq(host[1], 10);
  gt_api->session_destroy(s);
  SG_CHECK_CUDA(cudaFree(dev));
  SG_CHECK_CUDA(cudaEventDestroy(fork));
  SG_CHECK_CUDA(cudaEventDestroy(join));
  SG_CHECK_CUDA(cudaStreamDestroy(st));
  SG_CHECK_CUDA(cudaStreamDestroy(side));
}
END_TEST

static Suite *make_suite(void) {
  Suite *suite = suite_create("capture_failures");
  TCase *t = tcase_create("failures");
  tcase_set_timeout(t, 120);
  tcase_add_loop_test(t, each_capture_failure_is_reported_and_recovered_from,
                      0, (int)CASE_COUNT);
  tcase_add_loop_test(t, driver_falls_back_to_eager_after_a_failed_capture, 0,
                      2);
  tcase_add_test(t, driver_passes_on_a_callback_error_and_captures_next_time);
  tcase_add_test(t, a_joined_fork_is_captured);
  suite_add_tcase(suite, t);
  return suite;
}

int main(void) { return gt_main("test_capture_failures", make_suite); }

/* The per-thread default stream (ABI 1.1). This program is built with
 * per-thread default-stream semantics (CUDA_API_PER_THREAD_DEFAULT_STREAM,
 * what --default-stream per-thread defines) and its stray launches
 * (per_thread_kernels.cu, built with --default-stream per-thread) take no
 * stream. First it asks CUDA itself what it allows on cudaStreamPerThread
 * and prints each answer ("test_per_thread_stream: cuda: ..."), so a run
 * shows whether CUDA refuses anything; then the plugin captures, replays
 * and drives steps on cudaStreamPerThread, refuses a capture_end from
 * another thread, and still refuses the legacy stream, printing its
 * messages ("test_per_thread_stream: plugin: ..."). */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>

#include "gpu_common.h"
#include "per_thread_kernels.h"

#define PT ((sg_stream)cudaStreamPerThread)

static void say(const char *what, cudaError_t err) {
  printf("test_per_thread_stream: cuda: %s: %s\n", what,
         cudaGetErrorName(err));
  (void)cudaGetLastError();
}

static int *new_counter(void) {
  int *dev = NULL;
  SG_CHECK_CUDA(cudaMalloc((void **)&dev, sizeof(int)));
  SG_CHECK_CUDA(cudaMemset(dev, 0, sizeof(int)));
  return dev;
}

static int read_counter(const int *dev) {
  return gt_read_int(dev, cudaStreamPerThread);
}

/* CUDA's own answers; asserts only what the plugin relies on. */
START_TEST(cuda_captures_the_per_thread_stream) {
  int *dev = new_counter();
  int device = -1;
  say("cudaStreamGetDevice(cudaStreamPerThread), not capturing",
      cudaStreamGetDevice(cudaStreamPerThread, &device));
  cudaError_t begin =
      cudaStreamBeginCapture(cudaStreamPerThread,
                             cudaStreamCaptureModeThreadLocal);
  say("cudaStreamBeginCapture(cudaStreamPerThread, thread-local)", begin);
  ck_assert_int_eq(begin, cudaSuccess);
  enum cudaStreamCaptureStatus cs = cudaStreamCaptureStatusNone;
  say("cudaStreamIsCapturing(cudaStreamPerThread)",
      cudaStreamIsCapturing(cudaStreamPerThread, &cs));
  ck_assert_int_eq(cs, cudaStreamCaptureStatusActive);
  cudaError_t stray = pt_add_on_default_stream(dev, 1);
  say("kernel launched with no stream (--default-stream per-thread)", stray);
  ck_assert_int_eq(stray, cudaSuccess);
  cudaGraph_t g = NULL;
  cudaError_t end = cudaStreamEndCapture(cudaStreamPerThread, &g);
  say("cudaStreamEndCapture(cudaStreamPerThread)", end);
  ck_assert_int_eq(end, cudaSuccess);
  size_t nodes = 0;
  SG_CHECK_CUDA(cudaGraphGetNodes(g, NULL, &nodes));
  printf("test_per_thread_stream: cuda: captured nodes: %zu\n", nodes);
  ck_assert_uint_eq(nodes, 1); /* the stray launch was recorded */
  cudaGraphExec_t exec = NULL;
  SG_CHECK_CUDA(cudaGraphInstantiateWithFlags(&exec, g, 0));
  say("cudaGraphUpload(exec, cudaStreamPerThread)",
      cudaGraphUpload(exec, cudaStreamPerThread));
  cudaError_t launch = cudaGraphLaunch(exec, cudaStreamPerThread);
  say("cudaGraphLaunch(exec, cudaStreamPerThread)", launch);
  ck_assert_int_eq(launch, cudaSuccess);
  ck_assert_int_eq(read_counter(dev), 1);
  SG_CHECK_CUDA(cudaGraphExecDestroy(exec));
  SG_CHECK_CUDA(cudaGraphDestroy(g));

  /* Why the plugin does not ask the per-thread stream for its device. */
  SG_CHECK_CUDA(cudaStreamBeginCapture(cudaStreamPerThread,
                                      cudaStreamCaptureModeThreadLocal));
  say("cudaStreamGetDevice(cudaStreamPerThread) while it captures",
      cudaStreamGetDevice(cudaStreamPerThread, &device));
  g = NULL;
  say("  ... then cudaStreamEndCapture",
      cudaStreamEndCapture(cudaStreamPerThread, &g));
  if (g != NULL) {
    SG_CHECK_CUDA(cudaGraphDestroy(g));
  }
  cudaError_t legacy = cudaStreamBeginCapture(cudaStreamLegacy,
                                              cudaStreamCaptureModeThreadLocal);
  say("cudaStreamBeginCapture(cudaStreamLegacy) (must fail)", legacy);
  ck_assert_int_ne(legacy, cudaSuccess);
  SG_CHECK_CUDA(cudaFree(dev));
}
END_TEST

/* A session made READY on cudaStreamPerThread, and a zeroed counter. */
static sg_session *open_per_thread(uint32_t warmup, int **dev) {
  sg_session_config cfg = gt_config();
  cfg.warmup_steps = warmup;
  sg_session *s = gt_session(&cfg);
  *dev = new_counter();
  GT_OK(s, gt_api->pre_capture(s, PT));
  return s;
}

static sg_capture_args per_thread_capture(uint64_t key, uint32_t mode) {
  sg_capture_args ca = gt_capture_args(key, NULL, mode);
  ca.stream = PT;
  return ca;
}

/* One step: a stray launch, an explicit one, the RNG end of step. */
static void enqueue_step(sg_session *s, int *dev) {
  SG_CHECK_CUDA(pt_add_on_default_stream(dev, 1));
  SG_CHECK_CUDA(tk_add_int(dev, 10, cudaStreamPerThread));
  GT_OK(s, gt_api->rng_end_step(s, PT));
}

START_TEST(plugin_captures_and_replays_on_the_per_thread_stream) {
  int *dev = NULL;
  sg_session *s = open_per_thread(0, &dev);
  sg_capture_args ca = per_thread_capture(1, SG_CAPTURE_THREAD_LOCAL);
  GT_OK(s, gt_api->capture_begin(s, &ca));
  uint64_t off = 0;
  GT_OK(s, gt_api->rng_reserve(s, 3, &off));
  enqueue_step(s, dev);
  GT_OK(s, gt_api->capture_end(s, &ca));
  ck_assert_int_eq(read_counter(dev), 0); /* recorded, not run */
  sg_graph_info gi = {.struct_size = sizeof gi};
  GT_OK(s, gt_api->graph_info(s, 1, &gi));
  ck_assert_uint_eq(gi.nodes, 3);
  sg_replay_args ra = gt_replay_args(1, NULL);
  ra.stream = PT;
  for (int i = 0; i < 5; i++) {
    GT_OK(s, gt_api->replay(s, &ra));
  }
  GT_OK(s, gt_api->sync(s, PT, 10000));
  ck_assert_int_eq(read_counter(dev), 55);
  sg_rng_state rs = {sizeof rs, 0, 0};
  GT_OK(s, gt_api->rng_get_state(s, PT, &rs));
  ck_assert_uint_eq(rs.offset, 15); /* 3 counters a step, 5 replays */
  printf("test_per_thread_stream: plugin: pre_capture, capture_begin/end, "
         "5 replays, sync and rng_get_state on cudaStreamPerThread: OK "
         "(%llu nodes)\n", (unsigned long long)gi.nodes);
  gt_api->session_destroy(s);
  SG_CHECK_CUDA(cudaFree(dev));
}
END_TEST

static sg_status step_fn(void *user, sg_stream stream,
                         const sg_step_context *ctx) {
  (void)ctx;
  ck_assert_ptr_eq(stream, PT);
  SG_CHECK_CUDA(pt_add_on_default_stream(user, 1));
  return SG_OK;
}

START_TEST(driver_steps_on_the_per_thread_stream) {
  int *dev = NULL;
  sg_session *s = open_per_thread(1, &dev);
  const uint32_t want[] = {SG_STEP_WARMUP, SG_STEP_CAPTURED, SG_STEP_REPLAYED,
                           SG_STEP_REPLAYED};
  for (int i = 0; i < 4; i++) {
    sg_step_args a = {.struct_size = sizeof a, .key = 2, .stream = PT,
                      .fn = step_fn, .user = dev};
    GT_OK(s, gt_api->step(s, &a));
    ck_assert_uint_eq(a.outcome_out, want[i]);
  }
  ck_assert_int_eq(read_counter(dev), 4);
  gt_api->session_destroy(s);
  SG_CHECK_CUDA(cudaFree(dev));
}
END_TEST

typedef struct other_end {
  sg_session *s;
  sg_status st;
  char detail[1024];
} other_end;

static void *end_elsewhere(void *p) {
  other_end *o = p;
  sg_capture_args ca = per_thread_capture(3, SG_CAPTURE_RELAXED);
  o->st = gt_api->capture_end(o->s, &ca);
  gt_api->last_error(o->s, o->detail, sizeof o->detail, NULL);
  return NULL;
}

START_TEST(capture_end_from_another_thread_is_refused) {
  int *dev = NULL;
  sg_session *s = open_per_thread(0, &dev);
  sg_capture_args ca = per_thread_capture(3, SG_CAPTURE_RELAXED);
  GT_OK(s, gt_api->capture_begin(s, &ca));
  SG_CHECK_CUDA(pt_add_on_default_stream(dev, 7));
  other_end o = {s, SG_OK, ""};
  pthread_t t;
  ck_assert_int_eq(pthread_create(&t, NULL, end_elsewhere, &o), 0);
  ck_assert_int_eq(pthread_join(t, NULL), 0);
  printf("test_per_thread_stream: plugin: capture_end on another thread -> "
         "%s: %s\n", gt_api->status_string(o.st), o.detail);
  ck_assert_int_eq(o.st, SG_ERR_INVALID_ARGUMENT);
  ck_assert_ptr_nonnull(strstr(o.detail, "began on another thread's"));
  GT_OK(s, gt_api->capture_end(s, &ca)); /* the capture survived */
  sg_replay_args ra = gt_replay_args(3, NULL);
  ra.stream = PT;
  GT_OK(s, gt_api->replay(s, &ra));
  ck_assert_int_eq(read_counter(dev), 7);
  gt_api->session_destroy(s);
  SG_CHECK_CUDA(cudaFree(dev));
}
END_TEST

START_TEST(legacy_stream_is_still_refused) {
  sg_session_config cfg = gt_config();
  sg_session *s = gt_session(&cfg);
  GT_EXPECT(s, gt_api->pre_capture(s, NULL), SG_ERR_INVALID_ARGUMENT);
  const char *detail = sg_test_detail(gt_api, s);
  printf("test_per_thread_stream: plugin: pre_capture(NULL) -> %s\n", detail);
  ck_assert_ptr_nonnull(strstr(detail, "passes cudaStreamPerThread, not 0"));
  GT_EXPECT(s, gt_api->pre_capture(s, (sg_stream)cudaStreamLegacy),
            SG_ERR_INVALID_ARGUMENT);
  gt_api->session_destroy(s);
}
END_TEST

static Suite *make_suite(void) {
  Suite *suite = suite_create("per_thread_stream");
  TCase *t = tcase_create("cudaStreamPerThread");
  tcase_set_timeout(t, 60);
  tcase_add_test(t, cuda_captures_the_per_thread_stream);
  tcase_add_test(t, plugin_captures_and_replays_on_the_per_thread_stream);
  tcase_add_test(t, driver_steps_on_the_per_thread_stream);
  tcase_add_test(t, capture_end_from_another_thread_is_refused);
  tcase_add_test(t, legacy_stream_is_still_refused);
  suite_add_tcase(suite, t);
  return suite;
}

int main(void) {
  sg_test_require_gpu("test_per_thread_stream");
  SG_CHECK_CUDA(pt_preload());
  return gt_main("test_per_thread_stream", make_suite);
}

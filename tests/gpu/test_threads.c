/* Two sessions on two threads capture at the same time (thread-local mode),
 * then replay, each with its own results; then both drive steps through the
 * step driver concurrently. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>

#include "gpu_common.h"

#define THREADS 2
#define CHAIN 64
#define REPLAYS 50

static pthread_barrier_t barrier;

typedef struct worker {
  int index;
  sg_session *s;
  cudaStream_t st;
  int *dev;
  int result, driven_result;
  int failures;
  char why[256];
} worker;

#define W_CHECK(w, cond, ...)                                  \
  do {                                                         \
    if (!(cond)) {                                             \
      snprintf((w)->why, sizeof (w)->why, __VA_ARGS__);        \
      (w)->failures++;                                         \
    }                                                          \
  } while (0)

static sg_status chain_fn(void *user, sg_stream stream,
                          const sg_step_context *ctx) {
  worker *w = user;
  (void)ctx;
  for (int i = 0; i < CHAIN; i++) {
    if (tk_add_int(w->dev + 1, w->index + 1, (cudaStream_t)stream) !=
        cudaSuccess) {
      return SG_ERR_CUDA;
    }
  }
  return SG_OK;
}

static void *work(void *arg) {
  worker *w = arg;
  sg_status st = gt_api->pre_capture(w->s, (sg_stream)w->st);
  W_CHECK(w, st == SG_OK, "pre_capture: %d", (int)st);
  pthread_barrier_wait(&barrier);

  sg_capture_args ca =
      gt_capture_args(1, w->st, SG_CAPTURE_THREAD_LOCAL);
  st = gt_api->capture_begin(w->s, &ca);
  W_CHECK(w, st == SG_OK, "capture_begin: %d", (int)st);
  for (int i = 0; i < CHAIN; i++) {
    W_CHECK(w, tk_add_int(w->dev, w->index + 1, w->st) == cudaSuccess,
            "launch %d", i);
  }
  pthread_barrier_wait(&barrier); /* both are capturing now */
  st = gt_api->capture_end(w->s, &ca);
  W_CHECK(w, st == SG_OK, "capture_end: %d", (int)st);
  pthread_barrier_wait(&barrier);

  sg_replay_args ra = gt_replay_args(1, w->st);
  for (int i = 0; i < REPLAYS && st == SG_OK; i++) {
    st = gt_api->replay(w->s, &ra);
  }
  W_CHECK(w, st == SG_OK, "replay: %d", (int)st);
  W_CHECK(w, cudaStreamSynchronize(w->st) == cudaSuccess, "sync");
  pthread_barrier_wait(&barrier); /* no sync copy while another captures */
  W_CHECK(w, cudaMemcpy(&w->result, w->dev, sizeof(int),
                        cudaMemcpyDeviceToHost) == cudaSuccess,
          "read");

  /* The driver on both threads at once: each call may capture. */
  pthread_barrier_wait(&barrier);
  for (int i = 0; i < REPLAYS; i++) {
    sg_step_args a;
    memset(&a, 0, sizeof a);
    a.struct_size = sizeof a;
    a.key = 2;
    a.stream = (sg_stream)w->st;
    a.fn = chain_fn;
    a.user = w;
    st = gt_api->step(w->s, &a);
    W_CHECK(w, st == SG_OK, "step %d: %d", i, (int)st);
  }
  W_CHECK(w, cudaStreamSynchronize(w->st) == cudaSuccess, "sync");
  pthread_barrier_wait(&barrier);
  W_CHECK(w, cudaMemcpy(&w->driven_result, w->dev + 1, sizeof(int),
                        cudaMemcpyDeviceToHost) == cudaSuccess,
          "read");
  return NULL;
}

START_TEST(two_sessions_capture_concurrently) {
  worker w[THREADS];
  pthread_t t[THREADS];
  ck_assert_int_eq(pthread_barrier_init(&barrier, NULL, THREADS), 0);
  for (int i = 0; i < THREADS; i++) {
    sg_session_config cfg = gt_config();
    cfg.warmup_steps = 2;
    memset(&w[i], 0, sizeof w[i]);
    w[i].index = i;
    w[i].s = gt_session(&cfg);
    w[i].st = gt_stream(1);
    SG_CHECK_CUDA(cudaMalloc((void **)&w[i].dev, 2 * sizeof(int)));
    SG_CHECK_CUDA(cudaMemset(w[i].dev, 0, 2 * sizeof(int)));
  }
  for (int i = 0; i < THREADS; i++) {
    ck_assert_int_eq(pthread_create(&t[i], NULL, work, &w[i]), 0);
  }
  for (int i = 0; i < THREADS; i++) {
    ck_assert_int_eq(pthread_join(t[i], NULL), 0);
  }
  pthread_barrier_destroy(&barrier);
  for (int i = 0; i < THREADS; i++) {
    ck_assert_msg(w[i].failures == 0, "thread %d: %s", i, w[i].why);
    ck_assert_int_eq(w[i].result, REPLAYS * CHAIN * (i + 1));
    ck_assert_int_eq(w[i].driven_result, REPLAYS * CHAIN * (i + 1));
    sg_stats st = gt_stats(w[i].s);
    ck_assert_uint_eq(st.captures, 2);
    ck_assert_uint_eq(st.capture_failures, 0);
    ck_assert_uint_eq(st.replays, REPLAYS + REPLAYS - 2);
    gt_api->session_destroy(w[i].s);
    SG_CHECK_CUDA(cudaFree(w[i].dev));
    SG_CHECK_CUDA(cudaStreamDestroy(w[i].st));
  }
}
END_TEST

static Suite *make_suite(void) {
  Suite *suite = suite_create("threads");
  TCase *t = tcase_create("concurrent");
  tcase_set_timeout(t, 120);
  tcase_add_test(t, two_sessions_capture_concurrently);
  suite_add_tcase(suite, t);
  return suite;
}

int main(void) { return gt_main("test_threads", make_suite); }

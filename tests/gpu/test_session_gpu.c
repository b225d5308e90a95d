/* The session contract on a real GPU: create/destroy, the caller's device
 * and capture mode left as they were, pre_capture's device checks (FP8
 * parameters and static buffers), the RNG
 * checkpoint round trip and sync's timeout. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sg_cuda_check.h"
#include "sg_gpu_test.h"
#include "sg_load.h"
#include "sg_run_suite.h"

static const sg_api *api;

static sg_session *open_session(void) {
  sg_session_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.struct_size = sizeof cfg;
  cfg.rng_seed = 42;
  sg_session *s = NULL;
  sg_status st = api->session_create(&cfg, &s);
  ck_assert_msg(st == SG_OK, "session_create: %s", sg_test_detail(api, NULL));
  return s;
}

static cudaStream_t new_stream(void) {
  cudaStream_t st;
  SG_CHECK_CUDA(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  return st;
}

/* The thread's capture mode, read by exchanging it with itself. */
static enum cudaStreamCaptureMode capture_mode(void) {
  enum cudaStreamCaptureMode m = cudaStreamCaptureModeRelaxed;
  SG_CHECK_CUDA(cudaThreadExchangeStreamCaptureMode(&m));
  enum cudaStreamCaptureMode back = m;
  SG_CHECK_CUDA(cudaThreadExchangeStreamCaptureMode(&back));
  return m;
}

START_TEST(entries_leave_the_callers_device_and_capture_mode) {
  int device_before = -1, device_after = -2;
  SG_CHECK_CUDA(cudaGetDevice(&device_before));
  enum cudaStreamCaptureMode mode_before = capture_mode();
  sg_session *s = open_session();
  cudaStream_t st = new_stream();
  ck_assert_int_eq(api->pre_capture(s, (sg_stream)st), SG_OK);
  ck_assert_int_eq(api->sync(s, (sg_stream)st, 1000), SG_OK);
  api->session_destroy(s);
  SG_CHECK_CUDA(cudaGetDevice(&device_after));
  ck_assert_int_eq(device_before, device_after);
  ck_assert_int_eq(mode_before, capture_mode());
  SG_CHECK_CUDA(cudaStreamDestroy(st));
}
END_TEST

START_TEST(pre_capture_refuses_a_capturing_stream) {
  sg_session *s = open_session();
  cudaStream_t st = new_stream();
  SG_CHECK_CUDA(cudaStreamBeginCapture(st, cudaStreamCaptureModeThreadLocal));
  sg_status got = api->pre_capture(s, (sg_stream)st);
  cudaGraph_t g = NULL;
  SG_CHECK_CUDA(cudaStreamEndCapture(st, &g));
  SG_CHECK_CUDA(cudaGraphDestroy(g));
  ck_assert_int_eq(got, SG_ERR_INVALID_STATE);
  ck_assert_ptr_nonnull(strstr(sg_test_detail(api, s), "already capturing"));
  api->session_destroy(s);
  SG_CHECK_CUDA(cudaStreamDestroy(st));
}
END_TEST

START_TEST(pre_capture_finds_a_freed_parameter) {
  sg_session *s = open_session();
  cudaStream_t st = new_stream();
  uint8_t *w = NULL, *wt = NULL;
  SG_CHECK_CUDA(cudaMalloc((void **)&w, 64 * 32));
  SG_CHECK_CUDA(cudaMalloc((void **)&wt, 64 * 32));
  sg_fp8_param_desc d;
  memset(&d, 0, sizeof d);
  d.struct_size = sizeof d;
  d.rows = 64;
  d.cols = 32;
  d.data = w;
  d.ld_data = 32;
  d.transpose = wt;
  d.ld_transpose = 64;
  ck_assert_int_eq(api->register_fp8_params(s, &d, 1, NULL), SG_OK);
  ck_assert_int_eq(api->pre_capture(s, (sg_stream)st), SG_OK);
  SG_CHECK_CUDA(cudaFree(wt));
  ck_assert_int_eq(api->pre_capture(s, (sg_stream)st), SG_ERR_INVALID_ARGUMENT);
  ck_assert_ptr_nonnull(
      strstr(sg_test_detail(api, s), "registered param 0's transpose"));
  api->session_destroy(s);
  SG_CHECK_CUDA(cudaFree(w));
  SG_CHECK_CUDA(cudaStreamDestroy(st));
}
END_TEST

/* Static buffers are baked into graphs as well: one freed after
 * registration, or host memory, is refused before capture. */
START_TEST(pre_capture_finds_a_bad_static_buffer) {
  sg_session *s = open_session();
  cudaStream_t st = new_stream();
  void *good = NULL, *freed = NULL;
  SG_CHECK_CUDA(cudaMalloc(&good, 256));
  SG_CHECK_CUDA(cudaMalloc(&freed, 256));
  static char host[256];
  sg_static_buffer_desc b[3] = {{sizeof b[0], good, 256},
                                {sizeof b[0], freed, 256},
                                {sizeof b[0], host, sizeof host}};
  ck_assert_int_eq(api->register_static_buffers(s, b, 2, NULL), SG_OK);
  ck_assert_int_eq(api->pre_capture(s, (sg_stream)st), SG_OK);
  SG_CHECK_CUDA(cudaFree(freed));
  ck_assert_int_eq(api->pre_capture(s, (sg_stream)st), SG_ERR_INVALID_ARGUMENT);
  ck_assert_ptr_nonnull(
      strstr(sg_test_detail(api, s), "registered static buffer 1's data"));
  api->session_destroy(s);

  s = open_session();
  ck_assert_int_eq(api->register_static_buffers(s, &b[2], 1, NULL), SG_OK);
  ck_assert_int_eq(api->pre_capture(s, (sg_stream)st), SG_ERR_INVALID_ARGUMENT);
  ck_assert_ptr_nonnull(
      strstr(sg_test_detail(api, s), "registered static buffer 0's data"));
  api->session_destroy(s);
  SG_CHECK_CUDA(cudaFree(good));
  SG_CHECK_CUDA(cudaStreamDestroy(st));
}
END_TEST

START_TEST(rng_state_round_trips_through_a_checkpoint) {
  sg_session *s = open_session();
  cudaStream_t st = new_stream();
  sg_rng_state r = {sizeof r, 0, 0};
  ck_assert_int_eq(api->rng_get_state(s, (sg_stream)st, &r), SG_OK);
  ck_assert_uint_eq(r.seed, 42);
  ck_assert_uint_eq(r.offset, 0);
  sg_rng_state saved = {sizeof saved, 0x1234567890abcdefull, 977};
  ck_assert_int_eq(api->rng_set_state(s, (sg_stream)st, &saved), SG_OK);
  sg_rng_device_state dev = {sizeof dev, NULL, NULL};
  ck_assert_int_eq(api->rng_device_state(s, &dev), SG_OK);
  uint64_t on_device[2];
  SG_CHECK_CUDA(cudaMemcpy(&on_device[0], dev.seed, 8, cudaMemcpyDeviceToHost));
  SG_CHECK_CUDA(
      cudaMemcpy(&on_device[1], dev.base_offset, 8, cudaMemcpyDeviceToHost));
  ck_assert_uint_eq(on_device[0], saved.seed);
  ck_assert_uint_eq(on_device[1], saved.offset);
  ck_assert_int_eq(api->rng_get_state(s, (sg_stream)st, &r), SG_OK);
  ck_assert_uint_eq(r.seed, saved.seed);
  ck_assert_uint_eq(r.offset, saved.offset);
  api->session_destroy(s);
  SG_CHECK_CUDA(cudaStreamDestroy(st));
}
END_TEST

static void CUDART_CB sleep_200ms(void *user) {
  (void)user;
  struct timespec t = {0, 200 * 1000 * 1000};
  nanosleep(&t, NULL);
}

START_TEST(sync_times_out_then_completes) {
  sg_session *s = open_session();
  cudaStream_t st = new_stream();
  SG_CHECK_CUDA(cudaLaunchHostFunc(st, sleep_200ms, NULL));
  ck_assert_int_eq(api->sync(s, (sg_stream)st, 10), SG_ERR_TIMEOUT);
  ck_assert_ptr_nonnull(strstr(sg_test_detail(api, s), "still busy after 10 ms"));
  ck_assert_int_eq(api->sync(s, (sg_stream)st, 5000), SG_OK);
  ck_assert_int_eq(cudaStreamQuery(st), cudaSuccess);
  api->session_destroy(s);
  SG_CHECK_CUDA(cudaStreamDestroy(st));
}
END_TEST

START_TEST(sessions_are_created_and_destroyed_without_leaking_device_memory) {
  size_t free_before, free_after, total;
  sg_session *warm = open_session(); /* the first pays for lazy context init */
  api->session_destroy(warm);
  SG_CHECK_CUDA(cudaMemGetInfo(&free_before, &total));
  for (int i = 0; i < 20; i++) {
    api->session_destroy(open_session());
  }
  SG_CHECK_CUDA(cudaMemGetInfo(&free_after, &total));
  ck_assert_uint_eq(free_before, free_after);
}
END_TEST

int main(void) {
  sg_test_require_gpu("test_session_gpu");
  api = sg_test_load().api;
  Suite *suite = suite_create("session_gpu");
  TCase *t = tcase_create("device");
  tcase_set_timeout(t, 60);
  tcase_add_test(t, entries_leave_the_callers_device_and_capture_mode);
  tcase_add_test(t, pre_capture_refuses_a_capturing_stream);
  tcase_add_test(t, pre_capture_finds_a_freed_parameter);
  tcase_add_test(t, pre_capture_finds_a_bad_static_buffer);
  tcase_add_test(t, rng_state_round_trips_through_a_checkpoint);
  tcase_add_test(t, sync_times_out_then_completes);
  tcase_add_test(t, sessions_are_created_and_destroyed_without_leaking_device_memory);
  suite_add_tcase(suite, t);
  return sg_run_suite(suite, CK_NOFORK);
}

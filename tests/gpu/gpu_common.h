/* Helpers shared by the engine's GPU test programs: sessions, streams,
 * checked plugin calls, the thread's capture mode, the Check runner. */
#ifndef SG_TEST_GPU_COMMON_H
#define SG_TEST_GPU_COMMON_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_kernels.h"
#include "sg_cuda_check.h"
#include "sg_gpu_test.h"
#include "sg_load.h"
#include "sg_run_suite.h"

/* The plugin's table, set by gt_main. */
static const sg_api *gt_api;

/* Asserts a plugin call's status, printing the session's detail if not. */
#define GT_EXPECT(s, call, want)                                           \
  do {                                                                     \
    sg_status gt_st_ = (call);                                             \
    ck_assert_msg(gt_st_ == (want), "%s returned %d (%s), expected %d: %s", \
                  #call, (int)gt_st_, gt_api->status_string(gt_st_),       \
                  (int)(want), sg_test_detail(gt_api, (s)));               \
  } while (0)
#define GT_OK(s, call) GT_EXPECT(s, call, SG_OK)

static inline sg_session_config gt_config(void) {
  sg_session_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.struct_size = sizeof cfg;
  cfg.rng_seed = 20240611;
  return cfg;
}

static inline sg_session *gt_session(const sg_session_config *cfg) {
  sg_session *s = NULL;
  sg_status st = gt_api->session_create(cfg, &s);
  ck_assert_msg(st == SG_OK, "session_create: %s",
                sg_test_detail(gt_api, NULL));
  return s;
}

/* A stream that synchronises with the legacy default stream (as
 * cudaStreamCreate makes them), or a non-blocking one. */
static inline cudaStream_t gt_stream(int non_blocking) {
  cudaStream_t st;
  SG_CHECK_CUDA(cudaStreamCreateWithFlags(
      &st, non_blocking ? cudaStreamNonBlocking : cudaStreamDefault));
  return st;
}

static inline sg_capture_args gt_capture_args(uint64_t key, cudaStream_t st,
                                              uint32_t mode) {
  sg_capture_args a;
  memset(&a, 0, sizeof a);
  a.struct_size = sizeof a;
  a.key = key;
  a.stream = (sg_stream)st;
  a.capture_mode = mode;
  return a;
}

static inline sg_replay_args gt_replay_args(uint64_t key, cudaStream_t st) {
  sg_replay_args a;
  memset(&a, 0, sizeof a);
  a.struct_size = sizeof a;
  a.key = key;
  a.stream = (sg_stream)st;
  return a;
}

static inline sg_stats gt_stats(sg_session *s) {
  sg_stats out;
  memset(&out, 0, sizeof out);
  out.struct_size = sizeof out;
  GT_OK(s, gt_api->get_stats(s, &out));
  return out;
}

/* The thread's capture mode, read by exchanging it with itself. */
static inline enum cudaStreamCaptureMode gt_capture_mode(void) {
  enum cudaStreamCaptureMode m = cudaStreamCaptureModeRelaxed;
  SG_CHECK_CUDA(cudaThreadExchangeStreamCaptureMode(&m));
  enum cudaStreamCaptureMode back = m;
  SG_CHECK_CUDA(cudaThreadExchangeStreamCaptureMode(&back));
  return m;
}

static inline int gt_read_int(const int *dev, cudaStream_t st) {
  int v = 0;
  SG_CHECK_CUDA(cudaStreamSynchronize(st));
  SG_CHECK_CUDA(cudaMemcpy(&v, dev, sizeof v, cudaMemcpyDeviceToHost));
  return v;
}

static inline size_t gt_free_memory(void) {
  size_t free_bytes = 0, total = 0;
  SG_CHECK_CUDA(cudaMemGetInfo(&free_bytes, &total));
  return free_bytes;
}

/* Loads the plugin and the test kernels, runs the suite without forking
 * (a forked child cannot use the parent's CUDA context). */
static inline int gt_main(const char *name, Suite *(*make)(void)) {
  sg_test_require_gpu(name);
  gt_api = sg_test_load().api;
  SG_CHECK_CUDA(tk_preload());
  return sg_run_suite(make(), CK_NOFORK);
}

#endif

/* Two ranks of real NCCL on two GPUs in one process, one thread each
 * (skipped, 77, with fewer GPUs): the amax reduction gives every rank the
 * max over the ranks, and a capture forced to fail on rank 1
 * (STEPGRAPH_TEST_FAIL_CAPTURE_RANK=1) makes rank 1 fail and rank 0 run
 * eagerly naming rank 1, both within a bounded time. */
#define _POSIX_C_SOURCE 200809L /* setenv, clock_gettime */
#include <nccl.h>
#include <pthread.h>

#include "nccl_gpu_common.h"
#include "real_nccl.h"

#define RANKS 2
#define AGREE_MS 10000.0

typedef struct rank_run {
  int rank;
  ncclComm_t comm;
  float amax[NT_PARAMS];
  sg_status capture_end;
  char detail[1024];
  double capture_ms;
} rank_run;

static sg_nccl_functions table;

/* Rank r's masters are (r + 1) times nt_params' pattern. */
static void *rank_main(void *arg) {
  rank_run *r = arg;
  SG_CHECK_CUDA(cudaSetDevice(r->rank));
  SG_CHECK_CUDA(tk_preload()); /* this device's modules, before any capture */
  sg_session_config cfg = gt_config();
  cfg.device = r->rank;
  cfg.nccl_comm = r->comm;
  cfg.nccl = &table;
  sg_session *s = NULL;
  if (gt_api->session_create(&cfg, &s) != SG_OK) {
    gt_api->last_error(NULL, r->detail, sizeof r->detail, NULL);
    return NULL;
  }
  cudaStream_t st = gt_stream(1);
  nt_params p;
  nt_params_create(&p);
  SG_CHECK_CUDA(tk_scale_copy(p.master, p.master, (float)(r->rank + 1),
                             (size_t)NT_PARAMS * NT_ELEMS, st));
  nt_params_register(s, &p);
  sg_refresh_args a =
      nt_refresh(SG_REFRESH_CAST_TRANSPOSE, SG_ALL_GROUPS, SG_REFRESH_REDUCE_AMAX);
  (void)gt_api->post_optimizer_step(s, (sg_stream)st, &a);
  nt_read_amax(&p, st, r->amax);
  int *counter = nt_counter();
  const double start = sg_now_ms();
  sg_capture_args c = gt_capture_args(7, st, SG_CAPTURE_THREAD_LOCAL);
  (void)gt_api->pre_capture(s, (sg_stream)st);
  (void)gt_api->capture_begin(s, &c);
  SG_CHECK_CUDA(tk_add_int(counter, 1, st));
  r->capture_end = gt_api->capture_end(s, &c);
  r->capture_ms = sg_now_ms() - start;
  gt_api->last_error(s, r->detail, sizeof r->detail, NULL); /* per thread */
  gt_api->session_destroy(s);
  nt_params_destroy(&p);
  SG_CHECK_CUDA(cudaFree(counter));
  SG_CHECK_CUDA(cudaStreamDestroy(st));
  return NULL;
}

START_TEST(two_ranks_reduce_amax_and_agree) {
  ncclComm_t comms[RANKS];
  const int devs[RANKS] = {0, 1};
  NT_NCCL(ncclCommInitAll(comms, RANKS, devs));
  table = sg_real_nccl_table();
  setenv("STEPGRAPH_TEST_FAIL_CAPTURE_RANK", "1", 1);
  rank_run runs[RANKS];
  pthread_t threads[RANKS];
  for (int k = 0; k < RANKS; k++) {
    memset(&runs[k], 0, sizeof runs[k]);
    runs[k].rank = k;
    runs[k].comm = comms[k];
    ck_assert_int_eq(pthread_create(&threads[k], NULL, rank_main, &runs[k]),
                     0);
  }
  for (int k = 0; k < RANKS; k++) {
    ck_assert_int_eq(pthread_join(threads[k], NULL), 0);
  }
  unsetenv("STEPGRAPH_TEST_FAIL_CAPTURE_RANK");
  for (int k = 0; k < RANKS; k++) {
    NT_NCCL(ncclCommDestroy(comms[k]));
    for (uint32_t i = 0; i < NT_PARAMS; i++) { /* rank 1's, the larger */
      ck_assert_float_eq(runs[k].amax[i], 2.0f * (float)(i + 1) * 0.75f);
    }
    ck_assert_msg(runs[k].capture_ms < AGREE_MS, "rank %d: %.0f ms", k,
                  runs[k].capture_ms);
  }
  ck_assert_msg(runs[1].capture_end == SG_ERR_CAPTURE_FAILED &&
                    nt_has(runs[1].detail, "STEPGRAPH_TEST_FAIL_CAPTURE_RANK"),
                "rank 1: %d %s", (int)runs[1].capture_end, runs[1].detail);
  ck_assert_msg(runs[0].capture_end == SG_RUN_EAGERLY &&
                    nt_has(runs[0].detail, "ranks 1 of 2 failed"),
                "rank 0: %d %s", (int)runs[0].capture_end, runs[0].detail);
}
END_TEST

static Suite *ranks2_suite(void) {
  Suite *s = suite_create("nccl_ranks2");
  TCase *t = tcase_create("two_ranks");
  tcase_set_timeout(t, 300);
  tcase_add_test(t, two_ranks_reduce_amax_and_agree);
  suite_add_tcase(s, t);
  return s;
}

int main(void) {
  sg_test_require_gpu("test_nccl_ranks2");
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count < RANKS) {
    printf("test_nccl_ranks2: SKIP: needs %d GPUs, the machine has %d\n",
           RANKS, count);
    return SG_TEST_SKIP;
  }
  return gt_main("test_nccl_ranks2", ranks2_suite);
}

/* Multi-GPU sessions on real NCCL with one GPU: a communicator of one rank
 * runs every path. The agreement after capture; NCCL collectives inside the
 * plugin's graph replaying correctly; the refresh's amax reduction equal to
 * the local amax, eagerly and replayed; the plugin finding the host's NCCL
 * itself (RTLD_NOLOAD); sync on a healthy communicator; and the teardown
 * order, session then communicator, in bounded time with graphs holding
 * collectives. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, alarm */
#include <nccl.h>
#include <unistd.h>

#include "nccl_gpu_common.h"
#include "real_nccl.h"
#include "sg_log_capture.h"

/* Seconds after which a hung teardown fails the program instead of
 * holding the GPU machine. */
#define HANG_GUARD_S 120u
#define TEARDOWN_MS 10000.0

static sg_nccl_functions table;

static ncclComm_t one_rank(void) {
  ncclComm_t c = NULL;
  int dev = 0;
  NT_NCCL(ncclCommInitAll(&c, 1, &dev));
  return c;
}

START_TEST(the_agreement_runs_on_real_nccl) {
  ncclComm_t comm = one_rank();
  table = sg_real_nccl_table();
  sg_session *s = nt_session(comm, &table, 0, SG_NCCL_TIMEOUT_RETURN);
  cudaStream_t st = gt_stream(1);
  int *counter = nt_counter();
  GT_OK(s, nt_capture_add(s, 7, st, counter));
  sg_replay_args a = gt_replay_args(7, st);
  for (int i = 0; i < 3; i++) {
    GT_OK(s, gt_api->replay(s, &a));
  }
  GT_OK(s, gt_api->sync(s, (sg_stream)st, 10000));
  ck_assert_int_eq(gt_read_int(counter, st), 3);
  GT_OK(s, gt_api->sync(s, (sg_stream)st, 0)); /* idle: one poll */
  gt_api->session_destroy(s);
  NT_NCCL(ncclCommDestroy(comm));
  SG_CHECK_CUDA(cudaFree(counter));
  SG_CHECK_CUDA(cudaStreamDestroy(st));
}
END_TEST

/* One step of a data-parallel shape: x += 1; y = all_reduce(x);
 * z = all_gather(y); acc += z. With one rank every value stays a small
 * integer, so the result is exact. */
#define N 1024u

typedef struct dp {
  float *ones, *x, *y, *z, *acc;
} dp;

static void dp_step(const dp *d, ncclComm_t comm, cudaStream_t st) {
  SG_CHECK_CUDA(tk_axpby(d->x, d->ones, 1.0f, 1.0f, N, st));
  NT_NCCL(ncclAllReduce(d->x, d->y, N, ncclFloat32, ncclSum, comm, st));
  NT_NCCL(ncclAllGather(d->y, d->z, N, ncclFloat32, comm, st));
  SG_CHECK_CUDA(tk_axpby(d->acc, d->z, 1.0f, 1.0f, N, st));
}

static void read_floats(const float *dev, float *host, cudaStream_t st) {
  SG_CHECK_CUDA(cudaStreamSynchronize(st));
  SG_CHECK_CUDA(cudaMemcpy(host, dev, N * sizeof(float),
                          cudaMemcpyDeviceToHost));
}

START_TEST(collectives_replay_inside_the_graph) {
  ncclComm_t comm = one_rank();
  table = sg_real_nccl_table();
  sg_session *s = nt_session(comm, &table, 0, SG_NCCL_TIMEOUT_RETURN);
  cudaStream_t st = gt_stream(1);
  dp d;
  float **bufs[] = {&d.ones, &d.x, &d.y, &d.z, &d.acc};
  for (size_t i = 0; i < 5; i++) {
    SG_CHECK_CUDA(cudaMalloc((void **)bufs[i], N * sizeof(float)));
    SG_CHECK_CUDA(cudaMemset(*bufs[i], 0, N * sizeof(float)));
  }
  float host[N];
  for (uint32_t i = 0; i < N; i++) {
    host[i] = 1.0f;
  }
  SG_CHECK_CUDA(cudaMemcpy(d.ones, host, sizeof host, cudaMemcpyHostToDevice));
  dp_step(&d, comm, st); /* eager warm-up of both collectives: step 1 */
  sg_capture_args c = gt_capture_args(11, st, SG_CAPTURE_THREAD_LOCAL);
  GT_OK(s, gt_api->pre_capture(s, (sg_stream)st));
  GT_OK(s, gt_api->capture_begin(s, &c));
  dp_step(&d, comm, st);
  GT_OK(s, gt_api->capture_end(s, &c));
  ck_assert_uint_ge(nt_graph_info(s, 11).nodes, 3);
  sg_replay_args a = gt_replay_args(11, st);
  const uint32_t replays = 9; /* steps 2..10 */
  for (uint32_t i = 0; i < replays; i++) {
    GT_OK(s, gt_api->replay(s, &a));
  }
  read_floats(d.acc, host, st);
  for (uint32_t i = 0; i < N; i++) {
    ck_assert_msg(host[i] == 55.0f, "acc[%u] = %g, expected 1 + ... + 10",
                  i, (double)host[i]);
  }
  read_floats(d.z, host, st);
  ck_assert_float_eq(host[N - 1], 10.0f);
  gt_api->session_destroy(s);
  NT_NCCL(ncclCommDestroy(comm));
  for (size_t i = 0; i < 5; i++) {
    SG_CHECK_CUDA(cudaFree(*bufs[i]));
  }
  SG_CHECK_CUDA(cudaStreamDestroy(st));
}
END_TEST

static void refresh(sg_session *s, cudaStream_t st, uint32_t flags) {
  sg_refresh_args a =
      nt_refresh(SG_REFRESH_CAST_TRANSPOSE, SG_ALL_GROUPS, flags);
  GT_OK(s, gt_api->post_optimizer_step(s, (sg_stream)st, &a));
}

START_TEST(amax_reduction_equals_the_local_amax) {
  ncclComm_t comm = one_rank();
  table = sg_real_nccl_table();
  sg_session *s = nt_session(comm, &table, 0, SG_NCCL_TIMEOUT_RETURN);
  cudaStream_t st = gt_stream(1);
  nt_params p;
  nt_params_create(&p);
  nt_params_register(s, &p);
  float local[NT_PARAMS], reduced[NT_PARAMS], replayed[NT_PARAMS];
  refresh(s, st, 0);
  nt_read_amax(&p, st, local);
  SG_CHECK_CUDA(cudaMemset(p.amax, 0, NT_PARAMS * sizeof(float)));
  refresh(s, st, SG_REFRESH_REDUCE_AMAX);
  nt_read_amax(&p, st, reduced);
  sg_capture_args c = gt_capture_args(12, st, SG_CAPTURE_THREAD_LOCAL);
  GT_OK(s, gt_api->pre_capture(s, (sg_stream)st));
  GT_OK(s, gt_api->capture_begin(s, &c));
  refresh(s, st, SG_REFRESH_REDUCE_AMAX);
  GT_OK(s, gt_api->capture_end(s, &c));
  SG_CHECK_CUDA(cudaMemset(p.amax, 0, NT_PARAMS * sizeof(float)));
  sg_replay_args a = gt_replay_args(12, st);
  GT_OK(s, gt_api->replay(s, &a));
  nt_read_amax(&p, st, replayed);
  for (uint32_t k = 0; k < NT_PARAMS; k++) {
    ck_assert_float_eq(local[k], (float)(k + 1) * 0.75f);
    ck_assert_msg(memcmp(&local[k], &reduced[k], sizeof(float)) == 0 &&
                      memcmp(&local[k], &replayed[k], sizeof(float)) == 0,
                  "param %u: local %g, reduced %g, replayed %g", k,
                  (double)local[k], (double)reduced[k], (double)replayed[k]);
  }
  gt_api->session_destroy(s);
  NT_NCCL(ncclCommDestroy(comm));
  nt_params_destroy(&p);
  SG_CHECK_CUDA(cudaStreamDestroy(st));
}
END_TEST


START_TEST(the_plugin_finds_the_hosts_nccl_itself) {
  ncclComm_t comm = one_rank();
  heard h = {{0}};
  sg_session_config cfg = gt_config();
  cfg.nccl_comm = comm; /* no table: RTLD_NOLOAD finds ours */
  cfg.log_level = SG_LOG_INFO;
  cfg.log_fn = sg_hear;
  cfg.log_user = &h;
  sg_session *s = gt_session(&cfg);
  ck_assert_msg(nt_has(h.text, "(already loaded in this process)"), "%s",
                h.text);
  ck_assert_msg(nt_has(h.text, "rank 0 of 1; NCCL 2."), "%s", h.text);
  cudaStream_t st = gt_stream(1);
  int *counter = nt_counter();
  GT_OK(s, nt_capture_add(s, 7, st, counter));
  sg_replay_args a = gt_replay_args(7, st);
  GT_OK(s, gt_api->replay(s, &a));
  ck_assert_int_eq(gt_read_int(counter, st), 1);
  gt_api->session_destroy(s);
  NT_NCCL(ncclCommDestroy(comm));
  SG_CHECK_CUDA(cudaFree(counter));
  SG_CHECK_CUDA(cudaStreamDestroy(st));
}
END_TEST

/* NCCL 2.26+ blocks ncclCommDestroy while graphs holding its collectives
 * exist: session_destroy must have released them all. */
START_TEST(session_then_communicator_destroy_in_bounded_time) {
  alarm(HANG_GUARD_S);
  ncclComm_t comm = one_rank();
  table = sg_real_nccl_table();
  sg_session *s = nt_session(comm, &table, 0, SG_NCCL_TIMEOUT_RETURN);
  cudaStream_t st = gt_stream(1);
  float *buf = NULL;
  SG_CHECK_CUDA(cudaMalloc((void **)&buf, N * sizeof(float)));
  NT_NCCL(ncclAllReduce(buf, buf, N, ncclFloat32, ncclSum, comm, st));
  for (uint64_t key = 1; key <= 3; key++) { /* three graphs with one each */
    sg_capture_args c = gt_capture_args(key, st, SG_CAPTURE_THREAD_LOCAL);
    GT_OK(s, gt_api->pre_capture(s, (sg_stream)st));
    GT_OK(s, gt_api->capture_begin(s, &c));
    NT_NCCL(ncclAllReduce(buf, buf, N, ncclFloat32, ncclSum, comm, st));
    GT_OK(s, gt_api->capture_end(s, &c));
    sg_replay_args a = gt_replay_args(key, st);
    GT_OK(s, gt_api->replay(s, &a));
  }
  GT_OK(s, gt_api->sync(s, (sg_stream)st, 10000));
  double start = sg_now_ms();
  gt_api->session_destroy(s);
  const double session_ms = sg_now_ms() - start;
  start = sg_now_ms();
  NT_NCCL(ncclCommDestroy(comm));
  const double comm_ms = sg_now_ms() - start;
  alarm(0);
  printf("teardown: session_destroy %.1f ms, ncclCommDestroy %.1f ms\n",
         session_ms, comm_ms);
  ck_assert_msg(session_ms < TEARDOWN_MS && comm_ms < TEARDOWN_MS,
                "session_destroy %.0f ms, ncclCommDestroy %.0f ms",
                session_ms, comm_ms);
  SG_CHECK_CUDA(cudaFree(buf));
  SG_CHECK_CUDA(cudaStreamDestroy(st));
}
END_TEST

static Suite *real_suite(void) {
  Suite *s = suite_create("nccl_real");
  TCase *t = tcase_create("one_rank");
  tcase_set_timeout(t, 300);
  tcase_add_test(t, the_agreement_runs_on_real_nccl);
  tcase_add_test(t, collectives_replay_inside_the_graph);
  tcase_add_test(t, amax_reduction_equals_the_local_amax);
  tcase_add_test(t, the_plugin_finds_the_hosts_nccl_itself);
  tcase_add_test(t, session_then_communicator_destroy_in_bounded_time);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return gt_main("test_nccl_real", real_suite); }

/* Multi-GPU failures on one GPU, injected through the NCCL table the host
 * passes in (the test double, tests/support/fake_nccl.h, and its device
 * side, fake_collectives.h): a peer that failed its capture, this rank's
 * own failure reaching the peers, a non-blocking communicator, an
 * asynchronous NCCL error, a collective that never completes (a kernel
 * spinning on a host-mapped flag) under sync and under the agreement, with
 * and without abort, and the session after an abort. Also the amax
 * reduction against an injected peer's larger amax, eagerly and replayed. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <stdlib.h>

#include "fake_collectives.h"
#include "nccl_gpu_common.h"

/* Slack on a timeout: the poll sleeps at most 1 ms; the rest is the
 * machine's scheduling. */
#define LATE_MS 150.0
/* Destroy after an abort must be quick: nothing is left to wait for. */
#define DESTROY_MS 3000.0

static sg_nccl_functions table;

typedef struct rig {
  sg_session *s;
  cudaStream_t st;
  int *counter;
} rig;

/* This process is rank 0 of 2; the double reduces with silent peers. */
static rig open_rig(uint32_t timeout_ms, uint32_t action) {
  fake_nccl_reset(2, 0);
  fake_collectives_reduce();
  table = fake_nccl_table();
  rig r;
  r.s = nt_session(FAKE_COMM, &table, timeout_ms, action);
  r.st = gt_stream(1);
  r.counter = nt_counter();
  return r;
}

static void close_rig(rig *r) {
  SG_CHECK_CUDA(cudaStreamSynchronize(r->st));
  const double start = sg_now_ms();
  gt_api->session_destroy(r->s);
  const double took = sg_now_ms() - start;
  ck_assert_msg(took < DESTROY_MS, "session_destroy took %.0f ms", took);
  SG_CHECK_CUDA(cudaFree(r->counter));
  SG_CHECK_CUDA(cudaStreamDestroy(r->st));
}

/* --- The agreement ---------------------------------------------------------- */

START_TEST(all_ranks_succeeded_the_graph_replays) {
  rig r = open_rig(0, SG_NCCL_TIMEOUT_RETURN);
  GT_OK(r.s, nt_capture_add(r.s, 7, r.st, r.counter));
  ck_assert_int_eq(fake.calls, 1);
  ck_assert_uint_eq(peers.seen[0], 0); /* we said: success */
  sg_replay_args a = gt_replay_args(7, r.st);
  for (int i = 0; i < 3; i++) {
    GT_OK(r.s, gt_api->replay(r.s, &a));
  }
  ck_assert_int_eq(gt_read_int(r.counter, r.st), 3);
  close_rig(&r);
}
END_TEST

START_TEST(a_peer_that_failed_makes_this_rank_run_eagerly) {
  rig r = open_rig(0, SG_NCCL_TIMEOUT_RETURN);
  peers.sum_u64[0] = 1u << 1; /* rank 1 failed */
  GT_EXPECT(r.s, nt_capture_add(r.s, 7, r.st, r.counter), SG_RUN_EAGERLY);
  NT_DETAIL_HAS(r.s, "capture_end: key 7 runs eagerly: ranks 1 of 2 failed "
                     "to capture or instantiate it");
  ck_assert_uint_eq(peers.seen[0], 0);
  sg_graph_info gi = nt_graph_info(r.s, 7);
  ck_assert_uint_eq(gi.eager_only, 1);
  ck_assert_uint_eq(gi.nodes, 0);
  sg_replay_args a = gt_replay_args(7, r.st);
  GT_EXPECT(r.s, gt_api->replay(r.s, &a), SG_RUN_EAGERLY);
  sg_capture_args c = gt_capture_args(7, r.st, SG_CAPTURE_THREAD_LOCAL);
  GT_EXPECT(r.s, gt_api->capture_begin(r.s, &c), SG_RUN_EAGERLY);
  ck_assert_int_eq(gt_read_int(r.counter, r.st), 0); /* recorded, not run */
  /* invalidate lets the key capture again, and agree again. */
  GT_OK(r.s, gt_api->invalidate(r.s, 7));
  peers.sum_u64[0] = 0;
  GT_OK(r.s, nt_capture_add(r.s, 7, r.st, r.counter));
  ck_assert_int_eq(fake.calls, 2);
  close_rig(&r);
}
END_TEST

static sg_status add_step(void *user, sg_stream stream,
                          const sg_step_context *ctx) {
  (void)ctx;
  return tk_add_int(user, 1, (cudaStream_t)stream) == cudaSuccess
             ? SG_OK
             : SG_ERR_CUDA;
}

START_TEST(the_driver_runs_the_step_eagerly_when_a_peer_failed) {
  rig r = open_rig(0, SG_NCCL_TIMEOUT_RETURN);
  peers.sum_u64[0] = 1u << 1;
  sg_step_args a;
  memset(&a, 0, sizeof a);
  a.struct_size = sizeof a;
  a.key = 3;
  a.stream = (sg_stream)r.st;
  a.fn = add_step;
  a.user = r.counter;
  const uint32_t want[] = {SG_STEP_WARMUP, SG_STEP_EAGER, SG_STEP_EAGER};
  for (int i = 0; i < 3; i++) {
    GT_OK(r.s, gt_api->step(r.s, &a));
    ck_assert_uint_eq(a.outcome_out, want[i]);
  }
  ck_assert_int_eq(gt_read_int(r.counter, r.st), 3); /* every step ran */
  ck_assert_int_eq(fake.calls, 1); /* one agreement, at the capture */
  close_rig(&r);
}
END_TEST

/* A step callback that fails while captured still takes part in the
 * agreement, as a failure. */
static sg_status failing_step(void *user, sg_stream stream,
                              const sg_step_context *ctx) {
  if (ctx->phase == SG_PHASE_CAPTURE) {
    return SG_ERR_INVALID_STATE;
  }
  return add_step(user, stream, ctx);
}

START_TEST(a_callback_that_gives_up_still_agrees) {
  rig r = open_rig(0, SG_NCCL_TIMEOUT_RETURN);
  sg_step_args a;
  memset(&a, 0, sizeof a);
  a.struct_size = sizeof a;
  a.key = 4;
  a.stream = (sg_stream)r.st;
  a.fn = failing_step;
  a.user = r.counter;
  GT_OK(r.s, gt_api->step(r.s, &a)); /* warm-up */
  GT_EXPECT(r.s, gt_api->step(r.s, &a), SG_ERR_INVALID_STATE);
  ck_assert_int_eq(fake.calls, 1);
  ck_assert_uint_eq(peers.seen[0], 1u << 0); /* we said: rank 0 failed */
  GT_OK(r.s, gt_api->step(r.s, &a));
  ck_assert_uint_eq(a.outcome_out, SG_STEP_EAGER); /* eager-only, as peers */
  close_rig(&r);
}
END_TEST

START_TEST(this_ranks_failure_reaches_the_peers) {
  setenv("STEPGRAPH_TEST_FAIL_CAPTURE_RANK", "0", 1);
  rig r = open_rig(0, SG_NCCL_TIMEOUT_RETURN);
  unsetenv("STEPGRAPH_TEST_FAIL_CAPTURE_RANK");
  GT_EXPECT(r.s, nt_capture_add(r.s, 9, r.st, r.counter),
            SG_ERR_CAPTURE_FAILED);
  NT_DETAIL_HAS(r.s, "made to fail on rank 0 by "
                     "STEPGRAPH_TEST_FAIL_CAPTURE_RANK");
  NT_DETAIL_HAS(r.s, "ranks 0 of 2 failed on key 9");
  ck_assert_uint_eq(peers.seen[0], 1u << 0);
  ck_assert_uint_eq(nt_graph_info(r.s, 9).eager_only, 1);
  close_rig(&r);
}
END_TEST

START_TEST(every_failed_rank_is_named) {
  setenv("STEPGRAPH_TEST_FAIL_CAPTURE_RANK", "0", 1);
  rig r = open_rig(0, SG_NCCL_TIMEOUT_RETURN);
  unsetenv("STEPGRAPH_TEST_FAIL_CAPTURE_RANK");
  peers.sum_u64[0] = 1u << 1;
  GT_EXPECT(r.s, nt_capture_add(r.s, 9, r.st, r.counter),
            SG_ERR_CAPTURE_FAILED);
  NT_DETAIL_HAS(r.s, "ranks 0, 1 of 2 failed on key 9");
  close_rig(&r);
}
END_TEST

START_TEST(a_non_blocking_communicator_is_waited_for) {
  rig r = open_rig(0, SG_NCCL_TIMEOUT_RETURN);
  fake.collective_result = FAKE_IN_PROGRESS;
  fake.pending_polls = 3;
  GT_OK(r.s, nt_capture_add(r.s, 7, r.st, r.counter));
  ck_assert_int_eq(fake.pending_polls, 0);
  close_rig(&r);
}
END_TEST

/* --- Asynchronous errors, hangs, abort --------------------------------------- */

/* Every device entry of an unusable session answers SG_ERR_NCCL naming
 * why; host-only entries still answer. */
static void expect_unusable(rig *r, const char *why) {
  sg_replay_args ra = gt_replay_args(7, r->st);
  sg_capture_args ca = gt_capture_args(8, r->st, SG_CAPTURE_THREAD_LOCAL);
  sg_refresh_args fa = nt_refresh(SG_REFRESH_TRANSPOSE, SG_ALL_GROUPS, 0);
  sg_rng_state rs = {.struct_size = sizeof rs};
  sg_status got[] = {gt_api->pre_capture(r->s, (sg_stream)r->st),
                     gt_api->capture_begin(r->s, &ca),
                     gt_api->replay(r->s, &ra),
                     gt_api->post_optimizer_step(r->s, (sg_stream)r->st, &fa),
                     gt_api->rng_end_step(r->s, (sg_stream)r->st),
                     gt_api->rng_get_state(r->s, (sg_stream)r->st, &rs),
                     gt_api->rng_set_state(r->s, (sg_stream)r->st, &rs),
                     gt_api->sync(r->s, (sg_stream)r->st, 10)};
  for (size_t i = 0; i < sizeof got / sizeof got[0]; i++) {
    ck_assert_msg(got[i] == SG_ERR_NCCL, "device entry %zu returned %d", i,
                  (int)got[i]);
  }
  NT_DETAIL_HAS(r->s, "sync: the session is unusable since ");
  NT_DETAIL_HAS(r->s, why);
  NT_DETAIL_HAS(r->s, "destroy it, then the communicator");
  (void)gt_stats(r->s); /* host-only: still fine */
}

START_TEST(an_async_error_makes_sync_return_nccl) {
  rig r = open_rig(0, SG_NCCL_TIMEOUT_RETURN);
  fake.async_error = FAKE_REMOTE_ERROR;
  GT_EXPECT(r.s, gt_api->sync(r.s, (sg_stream)r.st, 1000), SG_ERR_NCCL);
  NT_DETAIL_HAS(r.s, "sync: the communicator reported an asynchronous error: "
                     "ncclRemoteError 6 (fake: a peer rank went away)");
  ck_assert_int_eq(fake.aborts, 0); /* RETURN: the host's to abort */
  expect_unusable(&r, "ncclRemoteError");
  close_rig(&r);
}
END_TEST

START_TEST(an_async_error_with_abort_aborts) {
  rig r = open_rig(0, SG_NCCL_TIMEOUT_ABORT);
  fake.async_error = FAKE_REMOTE_ERROR;
  GT_EXPECT(r.s, gt_api->sync(r.s, (sg_stream)r.st, 1000), SG_ERR_NCCL);
  ck_assert_int_eq(fake.aborts, 1);
  expect_unusable(&r, "the communicator was aborted");
  close_rig(&r);
}
END_TEST

/* The host's own collective (through the same table) never completes. */
static void enqueue_hung_collective(rig *r) {
  fake_collectives_hang();
  ck_assert_int_eq(table.all_reduce(r->counter, r->counter, 1, 5, 0,
                                    FAKE_COMM, (sg_stream)r->st),
                   FAKE_SUCCESS);
}

START_TEST(a_hung_collective_times_sync_out_and_aborts) {
  rig r = open_rig(0, SG_NCCL_TIMEOUT_ABORT);
  enqueue_hung_collective(&r);
  const double start = sg_now_ms();
  GT_EXPECT(r.s, gt_api->sync(r.s, (sg_stream)r.st, 200), SG_ERR_TIMEOUT);
  const double took = sg_now_ms() - start;
  ck_assert_msg(took >= 200.0 && took < 200.0 + LATE_MS,
                "sync(200 ms) took %.1f ms", took);
  ck_assert_int_eq(fake.aborts, 1);
  NT_DETAIL_HAS(r.s, "still busy after 200 ms; the communicator was aborted");
  expect_unusable(&r, "still busy after 200 ms");
  close_rig(&r);
}
END_TEST

START_TEST(a_hung_collective_without_abort_leaves_it_to_the_host) {
  rig r = open_rig(0, SG_NCCL_TIMEOUT_RETURN);
  enqueue_hung_collective(&r);
  GT_EXPECT(r.s, gt_api->sync(r.s, (sg_stream)r.st, 50), SG_ERR_TIMEOUT);
  ck_assert_int_eq(fake.aborts, 0);
  NT_DETAIL_HAS(r.s, "the communicator was left alone");
  fake_collectives_release();
  GT_OK(r.s, gt_api->sync(r.s, (sg_stream)r.st, 5000)); /* still usable */
  close_rig(&r);
}
END_TEST

START_TEST(a_hung_agreement_times_out_and_aborts) {
  rig r = open_rig(300, SG_NCCL_TIMEOUT_ABORT);
  fake_collectives_hang();
  const double start = sg_now_ms();
  GT_EXPECT(r.s, nt_capture_add(r.s, 7, r.st, r.counter), SG_ERR_TIMEOUT);
  const double took = sg_now_ms() - start;
  ck_assert_msg(took >= 300.0 && took < 300.0 + LATE_MS,
                "capture_end with a 300 ms bound took %.1f ms", took);
  NT_DETAIL_HAS(r.s, "the 2 ranks did not agree on key 7 within 300 ms");
  ck_assert_int_eq(fake.aborts, 1);
  ck_assert_uint_eq(nt_graph_info(r.s, 7).eager_only, 1);
  expect_unusable(&r, "did not agree on key 7");
  close_rig(&r);
}
END_TEST

START_TEST(a_hung_agreement_without_abort_blocks_the_next_one) {
  rig r = open_rig(100, SG_NCCL_TIMEOUT_RETURN);
  fake_collectives_hang();
  GT_EXPECT(r.s, nt_capture_add(r.s, 7, r.st, r.counter), SG_ERR_TIMEOUT);
  NT_DETAIL_HAS(r.s, "the communicator was left alone");
  ck_assert_int_eq(fake.aborts, 0);
  /* Its collective is still in flight: the next agreement says so. */
  GT_EXPECT(r.s, nt_capture_add(r.s, 8, r.st, r.counter), SG_ERR_TIMEOUT);
  NT_DETAIL_HAS(r.s, "the previous agreement (which timed out) is still in "
                     "flight");
  ck_assert_uint_eq(nt_graph_info(r.s, 8).eager_only, 1);
  fake_collectives_release(); /* the late rank arrives */
  close_rig(&r);
}
END_TEST

/* --- The amax reduction -------------------------------------------------------- */

static void refresh(rig *r, uint32_t group, uint32_t flags) {
  sg_refresh_args a = nt_refresh(SG_REFRESH_CAST_TRANSPOSE, group, flags);
  GT_OK(r->s, gt_api->post_optimizer_step(r->s, (sg_stream)r->st, &a));
}

static uint32_t bits(float f) {
  uint32_t b;
  memcpy(&b, &f, sizeof b);
  return b;
}

START_TEST(amax_is_the_max_over_the_ranks) {
  rig r = open_rig(0, SG_NCCL_TIMEOUT_RETURN);
  nt_params p;
  nt_params_create(&p);
  nt_params_register(r.s, &p);
  float local[NT_PARAMS], got[NT_PARAMS];
  refresh(&r, SG_ALL_GROUPS, 0);
  nt_read_amax(&p, r.st, local);
  /* A peer whose param 1 is larger, and whose others are smaller. */
  peers.max_u32[1] = bits(100.0f);
  peers.max_u32[0] = peers.max_u32[2] = bits(0.25f);
  refresh(&r, SG_ALL_GROUPS, SG_REFRESH_REDUCE_AMAX);
  nt_read_amax(&p, r.st, got);
  ck_assert_int_eq(fake.calls, 1); /* one collective for all three */
  ck_assert_uint_eq(peers.seen_count, NT_PARAMS);
  ck_assert_float_eq(got[0], local[0]);
  ck_assert_float_eq(got[1], 100.0f);
  ck_assert_float_eq(got[2], local[2]);
  /* One group: a span of one, the others untouched. */
  peers.max_u32[0] = bits(50.0f); /* the span's slot 0 is param 2 now */
  refresh(&r, SG_ALL_GROUPS, 0);
  refresh(&r, 2, SG_REFRESH_REDUCE_AMAX);
  nt_read_amax(&p, r.st, got);
  ck_assert_uint_eq(peers.seen_count, 1);
  ck_assert_float_eq(got[0], local[0]);
  ck_assert_float_eq(got[1], local[1]);
  ck_assert_float_eq(got[2], 50.0f);
  close_rig(&r);
  nt_params_destroy(&p);
}
END_TEST

START_TEST(amax_reduction_replays_in_a_graph) {
  rig r = open_rig(0, SG_NCCL_TIMEOUT_RETURN);
  nt_params p;
  nt_params_create(&p);
  nt_params_register(r.s, &p);
  refresh(&r, SG_ALL_GROUPS, SG_REFRESH_REDUCE_AMAX); /* eager warm-up */
  sg_capture_args c = gt_capture_args(5, r.st, SG_CAPTURE_THREAD_LOCAL);
  GT_OK(r.s, gt_api->pre_capture(r.s, (sg_stream)r.st));
  GT_OK(r.s, gt_api->capture_begin(r.s, &c));
  refresh(&r, SG_ALL_GROUPS, SG_REFRESH_REDUCE_AMAX);
  GT_OK(r.s, gt_api->capture_end(r.s, &c));
  peers.max_u32[0] = bits(7.0f);
  sg_replay_args a = gt_replay_args(5, r.st);
  GT_OK(r.s, gt_api->replay(r.s, &a));
  float got[NT_PARAMS];
  nt_read_amax(&p, r.st, got);
  ck_assert_float_eq(got[0], 7.0f);
  ck_assert_float_eq(got[1], 1.5f); /* param 1's own peak: 2 * 0.75 */
  close_rig(&r);
  nt_params_destroy(&p);
}
END_TEST

static Suite *faults_suite(void) {
  Suite *s = suite_create("nccl_faults");
  TCase *a = tcase_create("agreement");
  tcase_add_test(a, all_ranks_succeeded_the_graph_replays);
  tcase_add_test(a, a_peer_that_failed_makes_this_rank_run_eagerly);
  tcase_add_test(a, the_driver_runs_the_step_eagerly_when_a_peer_failed);
  tcase_add_test(a, a_callback_that_gives_up_still_agrees);
  tcase_add_test(a, this_ranks_failure_reaches_the_peers);
  tcase_add_test(a, every_failed_rank_is_named);
  tcase_add_test(a, a_non_blocking_communicator_is_waited_for);
  suite_add_tcase(s, a);
  TCase *f = tcase_create("failures");
  tcase_set_timeout(f, 60);
  tcase_add_test(f, an_async_error_makes_sync_return_nccl);
  tcase_add_test(f, an_async_error_with_abort_aborts);
  tcase_add_test(f, a_hung_collective_times_sync_out_and_aborts);
  tcase_add_test(f, a_hung_collective_without_abort_leaves_it_to_the_host);
  tcase_add_test(f, a_hung_agreement_times_out_and_aborts);
  tcase_add_test(f, a_hung_agreement_without_abort_blocks_the_next_one);
  suite_add_tcase(s, f);
  TCase *m = tcase_create("amax");
  tcase_add_test(m, amax_is_the_max_over_the_ranks);
  tcase_add_test(m, amax_reduction_replays_in_a_graph);
  suite_add_tcase(s, m);
  return s;
}

int main(void) { return gt_main("test_nccl_faults", faults_suite); }

/* step_plan with real captures: after a failed capture the plan says
 * SG_ACTION_EAGER (and replay SG_RUN_EAGERLY) until invalidate, then
 * SG_ACTION_CAPTURE again; it is refused while capturing; the plan and the
 * step driver count the key's steps together. (The whole manual path steered by the plan, with host
 * inputs, is in test_host_sources.) */
#include "gpu_common.h"

static sg_step_plan plan(sg_session *s, uint64_t key) {
  sg_step_plan p = {.struct_size = sizeof p, .key = key};
  GT_OK(s, gt_api->step_plan(s, &p));
  return p;
}

START_TEST(failed_capture_makes_the_plan_eager_until_invalidate) {
  sg_session_config cfg = gt_config();
  sg_session *s = gt_session(&cfg);
  cudaStream_t st = gt_stream(1);
  int *dev = NULL;
  SG_CHECK_CUDA(cudaMalloc((void **)&dev, sizeof(int)));
  SG_CHECK_CUDA(tk_set_int(dev, 0, st));
  sg_step_plan p = plan(s, 4);
  ck_assert_uint_eq(p.action_out, SG_ACTION_CAPTURE);
  ck_assert_uint_eq(p.pre_capture_out, 1);
  GT_OK(s, gt_api->pre_capture(s, (sg_stream)st));
  sg_capture_args ca = gt_capture_args(4, st, SG_CAPTURE_THREAD_LOCAL);
  GT_OK(s, gt_api->capture_begin(s, &ca));
  SG_CHECK_CUDA(tk_add_int(dev, 1, st));
  (void)cudaStreamSynchronize(st); /* illegal while capturing */
  (void)cudaGetLastError();
  GT_EXPECT(s, gt_api->capture_end(s, &ca), SG_ERR_CAPTURE_FAILED);
  printf("test_step_plan_gpu: sync inside the step -> %s\n",
         sg_test_detail(gt_api, s));
  p = plan(s, 4);
  ck_assert_uint_eq(p.action_out, SG_ACTION_EAGER);
  ck_assert_uint_eq(p.step_index_out, 1);
  sg_replay_args ra = gt_replay_args(4, st);
  GT_EXPECT(s, gt_api->replay(s, &ra), SG_RUN_EAGERLY);
  GT_OK(s, gt_api->invalidate(s, 4));
  p = plan(s, 4);
  ck_assert_uint_eq(p.action_out, SG_ACTION_CAPTURE);
  ck_assert_uint_eq(p.pre_capture_out, 0);
  GT_OK(s, gt_api->capture_begin(s, &ca));
  SG_CHECK_CUDA(tk_add_int(dev, 1, st));
  sg_step_plan during = {.struct_size = sizeof during, .key = 4};
  GT_EXPECT(s, gt_api->step_plan(s, &during), SG_ERR_INVALID_STATE);
  GT_OK(s, gt_api->capture_end(s, &ca)); /* the refusal left it intact */
  GT_OK(s, gt_api->replay(s, &ra));
  ck_assert_uint_eq(plan(s, 4).action_out, SG_ACTION_REPLAY);
  ck_assert_int_eq(gt_read_int(dev, st), 1);
  gt_api->session_destroy(s);
  SG_CHECK_CUDA(cudaFree(dev));
  SG_CHECK_CUDA(cudaStreamDestroy(st));
}
END_TEST

static sg_status add_one(void *user, sg_stream stream,
                         const sg_step_context *ctx) {
  (void)ctx;
  return tk_add_int(user, 1, (cudaStream_t)stream) == cudaSuccess
             ? SG_OK
             : SG_ERR_CUDA;
}

START_TEST(plan_and_driver_share_the_count) {
  sg_session_config cfg = gt_config();
  cfg.warmup_steps = 2;
  sg_session *s = gt_session(&cfg);
  cudaStream_t st = gt_stream(1);
  int *dev = NULL;
  SG_CHECK_CUDA(cudaMalloc((void **)&dev, sizeof(int)));
  SG_CHECK_CUDA(tk_set_int(dev, 0, st));
  sg_step_args a = {.struct_size = sizeof a, .key = 8,
                    .stream = (sg_stream)st, .fn = add_one, .user = dev};
  GT_OK(s, gt_api->step(s, &a));
  ck_assert_uint_eq(a.outcome_out, SG_STEP_WARMUP);
  ck_assert_uint_eq(plan(s, 8).action_out, SG_ACTION_WARMUP); /* 2nd step */
  GT_OK(s, gt_api->step(s, &a));
  ck_assert_uint_eq(a.outcome_out, SG_STEP_CAPTURED);
  sg_step_plan p = plan(s, 8);
  ck_assert_uint_eq(p.action_out, SG_ACTION_REPLAY);
  ck_assert_uint_eq(p.step_index_out, 3);
  gt_api->session_destroy(s);
  SG_CHECK_CUDA(cudaFree(dev));
  SG_CHECK_CUDA(cudaStreamDestroy(st));
}
END_TEST

static Suite *make_suite(void) {
  Suite *suite = suite_create("step_plan_gpu");
  TCase *t = tcase_create("plans with real captures");
  tcase_add_test(t, failed_capture_makes_the_plan_eager_until_invalidate);
  tcase_add_test(t, plan_and_driver_share_the_count);
  suite_add_tcase(suite, t);
  return suite;
}

int main(void) { return gt_main("test_step_plan_gpu", make_suite); }

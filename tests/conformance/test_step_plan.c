/* step_plan (ABI 1.1): the step driver's decision for hosts on the manual
 * path, counted per key like the driver's warm-up. Host-only bookkeeping,
 * so validation-only sessions answer it in full. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <stdlib.h>

#include "conformance.h"

static sg_session *with_warmup(uint32_t warmup) {
  sg_session_config cfg = validation_config();
  cfg.warmup_steps = warmup;
  return open_config(&cfg);
}

/* One step_plan call for key; asserts it succeeds. */
static sg_step_plan plan_of(sg_session *s, uint64_t key) {
  sg_step_plan p = {.struct_size = sizeof p, .key = key};
  p.action_out = 99;
  p.pre_capture_out = 99;
  p.step_index_out = 99;
  EXPECT(s, api->step_plan(s, &p), SG_OK, NULL);
  ck_assert_uint_eq(p.key, key);
  return p;
}

static void expect_plan(sg_step_plan p, uint32_t action, uint32_t pre,
                        uint64_t index) {
  ck_assert_uint_eq(p.action_out, action);
  ck_assert_uint_eq(p.pre_capture_out, pre);
  ck_assert_uint_eq(p.step_index_out, index);
}

START_TEST(warm_up_then_capture_counted_per_key) {
  sg_session *s = with_warmup(2);
  expect_plan(plan_of(s, 5), SG_ACTION_WARMUP, 0, 0);
  expect_plan(plan_of(s, 6), SG_ACTION_WARMUP, 0, 0); /* its own count */
  expect_plan(plan_of(s, 5), SG_ACTION_WARMUP, 0, 1);
  expect_plan(plan_of(s, 5), SG_ACTION_CAPTURE, 1, 2);
  /* A capture the host did not carry out is asked for again. */
  expect_plan(plan_of(s, 5), SG_ACTION_CAPTURE, 1, 3);
  expect_plan(plan_of(s, 6), SG_ACTION_WARMUP, 0, 1);
  api->session_destroy(s);
}
END_TEST

START_TEST(pre_capture_out_follows_the_session_state) {
  sg_session *s = with_warmup(0);
  expect_plan(plan_of(s, 1), SG_ACTION_CAPTURE, 1, 0);
  EXPECT(s, api->pre_capture(s, FAKE_STREAM), SG_OK, NULL);
  expect_plan(plan_of(s, 1), SG_ACTION_CAPTURE, 0, 1);
  sg_static_buffer_desc d = {sizeof d, FAKE_DEVICE(0), 16};
  EXPECT(s, api->register_static_buffers(s, &d, 1, NULL), SG_OK, NULL);
  expect_plan(plan_of(s, 1), SG_ACTION_CAPTURE, 1, 2);
  api->session_destroy(s);
}
END_TEST

START_TEST(disabled_graphs_plan_eager_steps_and_count_them) {
  setenv("STEPGRAPH_DISABLE", "1", 1);
  sg_session *s = with_warmup(3);
  unsetenv("STEPGRAPH_DISABLE");
  expect_plan(plan_of(s, 9), SG_ACTION_EAGER, 0, 0);
  expect_plan(plan_of(s, 9), SG_ACTION_EAGER, 0, 1);
  sg_stats st = {.struct_size = sizeof st};
  EXPECT(s, api->get_stats(s, &st), SG_OK, NULL);
  ck_assert_uint_eq(st.eager_runs, 2);
  api->session_destroy(s);
}
END_TEST

START_TEST(bad_plan_arguments_are_named) {
  sg_session *s = with_warmup(0);
  EXPECT(s, api->step_plan(s, NULL), SG_ERR_INVALID_ARGUMENT, "plan is NULL");
  sg_step_plan p = {.struct_size = sizeof(size_t), .key = 1};
  EXPECT(s, api->step_plan(s, &p), SG_ERR_STRUCT_SIZE, "plan->struct_size");
  EXPECT(NULL, api->step_plan(NULL, &p), SG_ERR_INVALID_ARGUMENT,
         "step_plan: session is NULL");
  /* Refused calls count nothing. */
  expect_plan(plan_of(s, 1), SG_ACTION_CAPTURE, 1, 0);
  api->session_destroy(s);
}
END_TEST

Suite *step_plan_suite(void) {
  Suite *s = suite_create("step_plan");
  TCase *t = tcase_create("the manual path's decision");
  tcase_add_test(t, warm_up_then_capture_counted_per_key);
  tcase_add_test(t, pre_capture_out_follows_the_session_state);
  tcase_add_test(t, disabled_graphs_plan_eager_steps_and_count_them);
  tcase_add_test(t, bad_plan_arguments_are_named);
  suite_add_tcase(s, t);
  return s;
}

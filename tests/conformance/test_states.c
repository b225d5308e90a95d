/* The session state machine: entries called out of order return
 * SG_ERR_INVALID_STATE and say what to do first; in-order calls in a
 * validation-only session reach the device and stop there (NO_DEVICE). */
#include "conformance.h"

static sg_capture_args capture_args(uint64_t key) {
  sg_capture_args a = {sizeof a, key, FAKE_STREAM, SG_CAPTURE_THREAD_LOCAL, 0};
  return a;
}

START_TEST(capture_begin_before_pre_capture_is_invalid_state) {
  sg_session *s = open_validation();
  sg_capture_args a = capture_args(1);
  EXPECT(s, api->capture_begin(s, &a), SG_ERR_INVALID_STATE, "pre_capture");
  api->session_destroy(s);
}
END_TEST

START_TEST(capture_begin_after_pre_capture_reaches_the_device) {
  sg_session *s = open_validation();
  sg_capture_args a = capture_args(1);
  EXPECT(s, api->pre_capture(s, FAKE_STREAM), SG_OK, NULL);
  EXPECT(s, api->capture_begin(s, &a), SG_ERR_NO_DEVICE,
         "SG_SESSION_VALIDATION_ONLY");
  api->session_destroy(s);
}
END_TEST

START_TEST(registering_again_requires_pre_capture_again) {
  sg_session *s = open_validation();
  sg_capture_args a = capture_args(1);
  sg_fp8_param_desc d = fp8_desc(0, 8, 8);
  EXPECT(s, api->pre_capture(s, FAKE_STREAM), SG_OK, NULL);
  EXPECT(s, api->register_fp8_params(s, &d, 1, NULL), SG_OK, NULL);
  EXPECT(s, api->capture_begin(s, &a), SG_ERR_INVALID_STATE, "pre_capture");
  api->session_destroy(s);
}
END_TEST

START_TEST(capture_end_without_begin_is_invalid_state) {
  sg_session *s = open_validation();
  sg_capture_args a = capture_args(1);
  EXPECT(s, api->capture_end(s, &a), SG_ERR_INVALID_STATE,
         "no capture in progress");
  api->session_destroy(s);
}
END_TEST

START_TEST(replay_before_capture_is_invalid_state) {
  sg_session *s = open_validation();
  sg_replay_args a = {sizeof a, 5, FAKE_STREAM, NULL, 0, 0};
  EXPECT(s, api->replay(s, &a), SG_ERR_INVALID_STATE,
         "key 5 has not been captured");
  api->session_destroy(s);
}
END_TEST

START_TEST(device_entries_say_no_device_in_validation_sessions) {
  sg_session *s = open_validation();
  sg_refresh_args r = {sizeof r, SG_REFRESH_TRANSPOSE, SG_ALL_GROUPS, NULL, 0, 0};
  /* Each detail names its entry: it is this call's, not the one before. */
  EXPECT(s, api->post_optimizer_step(s, FAKE_STREAM, &r), SG_ERR_NO_DEVICE,
         "post_optimizer_step: needs a GPU");
  EXPECT(s, api->sync(s, FAKE_STREAM, 1), SG_ERR_NO_DEVICE,
         "sync: needs a GPU");
  api->session_destroy(s);
}
END_TEST

START_TEST(rng_reserve_hands_out_consecutive_offsets) {
  sg_session *s = open_validation();
  uint64_t a = 99, b = 99, c = 99;
  EXPECT(s, api->rng_reserve(s, 10, &a), SG_OK, NULL);
  EXPECT(s, api->rng_reserve(s, 5, &b), SG_OK, NULL);
  EXPECT(s, api->rng_reserve(s, 1, &c), SG_OK, NULL);
  ck_assert_uint_eq(a, 0);
  ck_assert_uint_eq(b, 10);
  ck_assert_uint_eq(c, 15);
  api->session_destroy(s);
}
END_TEST

START_TEST(a_success_leaves_the_detail_as_it_was) {
  sg_session *s = open_validation();
  char before[256], after[256];
  ck_assert_int_eq(api->invalidate(s, 3), SG_ERR_NOT_FOUND);
  api->last_error(s, before, sizeof before, NULL);
  ck_assert_ptr_nonnull(strstr(before, "invalidate: key 3"));
  sg_stats st = {.struct_size = sizeof st};
  ck_assert_int_eq(api->get_stats(s, &st), SG_OK);
  api->last_error(s, after, sizeof after, NULL);
  ck_assert_str_eq(before, after);
  api->session_destroy(s);
}
END_TEST

START_TEST(two_sessions_are_independent) {
  sg_session *a = open_validation();
  sg_session *b = open_validation();
  sg_fp8_param_desc d = fp8_desc(0, 8, 8);
  EXPECT(a, api->register_fp8_params(a, &d, 1, NULL), SG_OK, NULL);
  /* The same memory in another session is not an overlap. */
  EXPECT(b, api->register_fp8_params(b, &d, 1, NULL), SG_OK, NULL);
  ck_assert_int_eq(api->invalidate(a, 77), SG_ERR_NOT_FOUND);
  char detail_b[256];
  api->last_error(b, detail_b, sizeof detail_b, NULL);
  ck_assert_ptr_null(strstr(detail_b, "77"));
  EXPECT(b, api->pre_capture(b, FAKE_STREAM), SG_OK, NULL);
  sg_capture_args ca = capture_args(1);
  EXPECT(a, api->capture_begin(a, &ca), SG_ERR_INVALID_STATE, "pre_capture");
  sg_stats sa = {.struct_size = sizeof sa}, sb = {.struct_size = sizeof sb};
  EXPECT(a, api->get_stats(a, &sa), SG_OK, NULL);
  EXPECT(b, api->get_stats(b, &sb), SG_OK, NULL);
  ck_assert_uint_eq(sa.fp8_params, 1);
  ck_assert_uint_eq(sb.fp8_params, 1);
  api->session_destroy(a);
  api->session_destroy(b);
}
END_TEST

Suite *states_suite(void) {
  Suite *s = suite_create("states");
  TCase *t = tcase_create("misuse order");
  tcase_add_test(t, capture_begin_before_pre_capture_is_invalid_state);
  tcase_add_test(t, capture_begin_after_pre_capture_reaches_the_device);
  tcase_add_test(t, registering_again_requires_pre_capture_again);
  tcase_add_test(t, capture_end_without_begin_is_invalid_state);
  tcase_add_test(t, replay_before_capture_is_invalid_state);
  tcase_add_test(t, device_entries_say_no_device_in_validation_sessions);
  tcase_add_test(t, rng_reserve_hands_out_consecutive_offsets);
  tcase_add_test(t, a_success_leaves_the_detail_as_it_was);
  tcase_add_test(t, two_sessions_are_independent);
  suite_add_tcase(s, t);
  return s;
}

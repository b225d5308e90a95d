/* ABI 1.1's conditional regions (guard_begin, guard_end, loop_begin,
 * loop_next) and stale-transpose detector (check_transposes,
 * transpose_report, SG_SESSION_CHECK_TRANSPOSES, STEPGRAPH_CHECK_TRANSPOSES)
 * through validation-only sessions: every bad argument is refused naming
 * it, the closing entries refuse what is not open, the opening ones stop
 * at the device, and the detector's entries answer as documented when it
 * is off and when it is on. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <stddef.h>
#include <stdlib.h>

#include "conformance.h"

static const int32_t *const FAKE_FLAG = (const int32_t *)FAKE_DEVICE(0x100);

static sg_session *open_detecting(void) {
  sg_session_config cfg = validation_config();
  cfg.flags |= SG_SESSION_CHECK_TRANSPOSES;
  sg_session *s = NULL;
  ck_assert_int_eq(api->session_create(&cfg, &s), SG_OK);
  return s;
}

START_TEST(the_table_has_the_1_1_entries) {
  ck_assert_uint_eq(SG_ABI_VERSION_MINOR(api->abi_version), 1);
  ck_assert_uint_ge(api->struct_size,
                    offsetof(sg_api, transpose_report) + sizeof(void *));
  ck_assert_ptr_nonnull(api->guard_begin);
  ck_assert_ptr_nonnull(api->guard_end);
  ck_assert_ptr_nonnull(api->loop_begin);
  ck_assert_ptr_nonnull(api->loop_next);
  ck_assert_ptr_nonnull(api->check_transposes);
  ck_assert_ptr_nonnull(api->transpose_report);
}
END_TEST

START_TEST(guard_begin_refuses_bad_arguments_by_name) {
  sg_session *s = open_validation();
  uint32_t run = 7;
  EXPECT(s, api->guard_begin(s, FAKE_STREAM, NULL, &run),
         SG_ERR_INVALID_ARGUMENT, "guard_begin: flag is NULL");
  EXPECT(s, api->guard_begin(s, FAKE_STREAM, FAKE_FLAG, NULL),
         SG_ERR_INVALID_ARGUMENT, "run_body_out is NULL");
  EXPECT(s, api->guard_begin(s, NULL, FAKE_FLAG, &run),
         SG_ERR_INVALID_ARGUMENT, "stream");
  ck_assert_uint_eq(run, 7); /* nothing written on failure */
  api->session_destroy(s);
}
END_TEST

START_TEST(loop_begin_refuses_bad_arguments_by_name) {
  sg_session *s = open_validation();
  const uint32_t *index = NULL;
  uint32_t again = 7;
  EXPECT(s, api->loop_begin(s, FAKE_STREAM, NULL, &index, &again),
         SG_ERR_INVALID_ARGUMENT, "loop_begin: trip_count is NULL");
  EXPECT(s, api->loop_begin(s, FAKE_STREAM, FAKE_FLAG, NULL, &again),
         SG_ERR_INVALID_ARGUMENT, "index_out is NULL");
  EXPECT(s, api->loop_begin(s, FAKE_STREAM, FAKE_FLAG, &index, NULL),
         SG_ERR_INVALID_ARGUMENT, "again_out is NULL");
  EXPECT(s, api->loop_begin(s, NULL, FAKE_FLAG, &index, &again),
         SG_ERR_INVALID_ARGUMENT, "stream");
  ck_assert_ptr_null(index);
  ck_assert_uint_eq(again, 7);
  api->session_destroy(s);
}
END_TEST

START_TEST(opening_a_region_needs_the_device) {
  sg_session *s = open_validation();
  const uint32_t *index = NULL;
  uint32_t run = 0, again = 0;
  EXPECT(s, api->guard_begin(s, FAKE_STREAM, FAKE_FLAG, &run),
         SG_ERR_NO_DEVICE, "guard_begin: needs a GPU");
  EXPECT(s, api->loop_begin(s, FAKE_STREAM, FAKE_FLAG, &index, &again),
         SG_ERR_NO_DEVICE, "loop_begin: needs a GPU");
  /* Nothing was opened: the closers have nothing to close. */
  EXPECT(s, api->guard_end(s, FAKE_STREAM), SG_ERR_INVALID_STATE,
         "no guard is open");
  api->session_destroy(s);
}
END_TEST

START_TEST(closing_what_is_not_open_is_invalid_state) {
  sg_session *s = open_validation();
  uint32_t again = 7;
  EXPECT(s, api->guard_end(s, FAKE_STREAM), SG_ERR_INVALID_STATE,
         "guard_end: no guard is open");
  EXPECT(s, api->loop_next(s, FAKE_STREAM, &again), SG_ERR_INVALID_STATE,
         "loop_next: no loop is open");
  EXPECT(s, api->loop_next(s, FAKE_STREAM, NULL), SG_ERR_INVALID_ARGUMENT,
         "again_out is NULL");
  ck_assert_uint_eq(again, 7);
  api->session_destroy(s);
}
END_TEST

START_TEST(null_session_is_refused_by_the_new_entries) {
  uint32_t out = 0;
  const uint32_t *index = NULL;
  sg_transpose_report r = {.struct_size = sizeof r};
  EXPECT(NULL, api->guard_begin(NULL, FAKE_STREAM, FAKE_FLAG, &out),
         SG_ERR_INVALID_ARGUMENT, "guard_begin: session is NULL");
  EXPECT(NULL, api->guard_end(NULL, FAKE_STREAM), SG_ERR_INVALID_ARGUMENT,
         "guard_end: session is NULL");
  EXPECT(NULL, api->loop_begin(NULL, FAKE_STREAM, FAKE_FLAG, &index, &out),
         SG_ERR_INVALID_ARGUMENT, "loop_begin: session is NULL");
  EXPECT(NULL, api->loop_next(NULL, FAKE_STREAM, &out),
         SG_ERR_INVALID_ARGUMENT, "loop_next: session is NULL");
  EXPECT(NULL, api->check_transposes(NULL, FAKE_STREAM),
         SG_ERR_INVALID_ARGUMENT, "check_transposes: session is NULL");
  EXPECT(NULL, api->transpose_report(NULL, FAKE_STREAM, &r),
         SG_ERR_INVALID_ARGUMENT, "transpose_report: session is NULL");
}
END_TEST

START_TEST(the_detector_flag_is_a_known_bit) {
  sg_session *s = open_detecting();
  api->session_destroy(s);
  sg_session_config cfg = validation_config();
  cfg.flags |= 1u << 2;
  sg_session *bad = NULL;
  EXPECT(NULL, api->session_create(&cfg, &bad), SG_ERR_INVALID_ARGUMENT,
         "unknown bits 0x4");
  ck_assert_ptr_null(bad);
}
END_TEST

START_TEST(check_transposes_does_nothing_with_the_detector_off) {
  sg_session *s = open_validation();
  sg_fp8_param_desc d = fp8_desc(0, 16, 16);
  EXPECT(s, api->register_fp8_params(s, &d, 1, NULL), SG_OK, NULL);
  EXPECT(s, api->check_transposes(s, FAKE_STREAM), SG_OK, NULL);
  api->session_destroy(s);
}
END_TEST

START_TEST(check_transposes_needs_the_device_with_the_detector_on) {
  sg_session *s = open_detecting();
  EXPECT(s, api->check_transposes(s, FAKE_STREAM), SG_ERR_NO_DEVICE,
         "check_transposes: needs a GPU");
  api->session_destroy(s);
}
END_TEST

START_TEST(report_with_the_detector_off_says_so_and_finds_nothing) {
  sg_session *s = open_validation();
  uint64_t counts[3] = {5, 5, 5};
  sg_transpose_report r;
  memset(&r, 0xab, sizeof r);
  r.struct_size = sizeof r;
  r.mismatches = counts;
  r.mismatch_capacity = 3;
  r.reserved0 = 0;
  EXPECT(s, api->transpose_report(s, FAKE_STREAM, &r), SG_OK, NULL);
  ck_assert_uint_eq(r.enabled, 0);
  ck_assert_uint_eq(r.checks, 0);
  ck_assert_uint_eq(r.stale_params, 0);
  ck_assert_uint_eq(r.first_stale_check, UINT64_MAX);
  ck_assert_uint_eq(r.first_stale_param, UINT32_MAX);
  ck_assert_uint_eq(r.first_stale_group, UINT32_MAX);
  ck_assert_ptr_eq(r.mismatches, counts); /* an in field, kept */
  ck_assert_uint_eq(r.mismatch_capacity, 3);
  for (int i = 0; i < 3; i++) {
    ck_assert_uint_eq(counts[i], 0);
  }
  api->session_destroy(s);
}
END_TEST

START_TEST(report_refuses_bad_arguments_by_name) {
  sg_session *s = open_validation();
  sg_transpose_report r = {.struct_size = sizeof r};
  EXPECT(s, api->transpose_report(s, FAKE_STREAM, NULL),
         SG_ERR_INVALID_ARGUMENT, "out");
  r.reserved0 = 1;
  EXPECT(s, api->transpose_report(s, FAKE_STREAM, &r),
         SG_ERR_INVALID_ARGUMENT, "out->reserved0 is 1");
  r.reserved0 = 0;
  EXPECT(s, api->transpose_report(s, NULL, &r), SG_ERR_INVALID_ARGUMENT,
         "stream");
  api->session_destroy(s);
}
END_TEST

START_TEST(report_needs_the_device_with_the_detector_on) {
  sg_session *s = open_detecting();
  sg_transpose_report r = {.struct_size = sizeof r};
  EXPECT(s, api->transpose_report(s, FAKE_STREAM, &r), SG_ERR_NO_DEVICE,
         "transpose_report: needs a GPU");
  api->session_destroy(s);
}
END_TEST

START_TEST(the_environment_switches_the_detector_on) {
  setenv("STEPGRAPH_CHECK_TRANSPOSES", "1", 1);
  sg_session *s = open_validation();
  unsetenv("STEPGRAPH_CHECK_TRANSPOSES");
  EXPECT(s, api->check_transposes(s, FAKE_STREAM), SG_ERR_NO_DEVICE,
         "needs a GPU");
  api->session_destroy(s);
  s = open_validation(); /* read at creation: unset now, off */
  EXPECT(s, api->check_transposes(s, FAKE_STREAM), SG_OK, NULL);
  api->session_destroy(s);
}
END_TEST

START_TEST(stats_start_with_no_regions_and_no_findings) {
  sg_session *s = open_detecting();
  sg_stats st;
  memset(&st, 0xab, sizeof st);
  st.struct_size = sizeof st;
  EXPECT(s, api->get_stats(s, &st), SG_OK, NULL);
  ck_assert_uint_eq(st.guards, 0);
  ck_assert_uint_eq(st.guards_skipped, 0);
  ck_assert_uint_eq(st.loops, 0);
  ck_assert_uint_eq(st.conditional_nodes, 0);
  ck_assert_uint_eq(st.transpose_checks, 0);
  ck_assert_uint_eq(st.stale_params, 0);
  ck_assert_uint_eq(st.first_stale_check, UINT64_MAX);
  ck_assert_uint_eq(st.first_stale_param, UINT32_MAX);
  ck_assert_uint_eq(st.first_stale_group, UINT32_MAX);
  api->session_destroy(s);
}
END_TEST

Suite *conditional_suite(void) {
  Suite *s = suite_create("conditional");
  TCase *regions = tcase_create("regions");
  tcase_add_test(regions, the_table_has_the_1_1_entries);
  tcase_add_test(regions, guard_begin_refuses_bad_arguments_by_name);
  tcase_add_test(regions, loop_begin_refuses_bad_arguments_by_name);
  tcase_add_test(regions, opening_a_region_needs_the_device);
  tcase_add_test(regions, closing_what_is_not_open_is_invalid_state);
  tcase_add_test(regions, null_session_is_refused_by_the_new_entries);
  suite_add_tcase(s, regions);
  TCase *detector = tcase_create("detector");
  tcase_add_test(detector, the_detector_flag_is_a_known_bit);
  tcase_add_test(detector, check_transposes_does_nothing_with_the_detector_off);
  tcase_add_test(detector,
                 check_transposes_needs_the_device_with_the_detector_on);
  tcase_add_test(detector,
                 report_with_the_detector_off_says_so_and_finds_nothing);
  tcase_add_test(detector, report_refuses_bad_arguments_by_name);
  tcase_add_test(detector, report_needs_the_device_with_the_detector_on);
  tcase_add_test(detector, the_environment_switches_the_detector_on);
  tcase_add_test(detector, stats_start_with_no_regions_and_no_findings);
  suite_add_tcase(s, detector);
  return s;
}

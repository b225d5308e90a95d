/* NULL and nonsense arguments to every entry return the documented status
 * and a detail message naming the argument; nothing crashes. */
#include <stdint.h>

#include "conformance.h"

typedef struct arg_case {
  const char *name;
  sg_status (*call)(sg_session *s);
  sg_status want;
  const char *needle; /* the detail must name this */
} arg_case;

static sg_capture_args capture(sg_stream stream) {
  sg_capture_args a = {sizeof a, 1, stream, SG_CAPTURE_THREAD_LOCAL, 0};
  return a;
}
static sg_replay_args replay(void) {
  sg_replay_args a = {sizeof a, 1, FAKE_STREAM, NULL, 0, 0};
  return a;
}
static sg_refresh_args refresh(uint32_t mode, uint32_t group) {
  sg_refresh_args a = {sizeof a, mode, group, NULL, 0, 0};
  return a;
}
static sg_status noop_step(void *u, sg_stream st, const sg_step_context *c) {
  (void)u, (void)st, (void)c;
  return SG_OK;
}

/* Each case: one wrong argument, everything else valid. */
static sg_status register_null(sg_session *s) {
  return api->register_fp8_params(s, NULL, 1, NULL);
}
static sg_status register_zero(sg_session *s) {
  sg_fp8_param_desc d = fp8_desc(0, 4, 4);
  return api->register_fp8_params(s, &d, 0, NULL);
}
static sg_status static_null(sg_session *s) {
  return api->register_static_buffers(s, NULL, 1, NULL);
}
static sg_status static_data_null(sg_session *s) {
  sg_static_buffer_desc d = {sizeof d, NULL, 64};
  return api->register_static_buffers(s, &d, 1, NULL);
}
static sg_status static_zero_bytes(sg_session *s) {
  sg_static_buffer_desc d = {sizeof d, FAKE_DEVICE(0), 0};
  return api->register_static_buffers(s, &d, 1, NULL);
}
static sg_status static_overlap(sg_session *s) {
  sg_static_buffer_desc d[2] = {{sizeof d[0], FAKE_DEVICE(0), 64},
                                {sizeof d[0], FAKE_DEVICE(32), 64}};
  return api->register_static_buffers(s, d, 2, NULL);
}
static sg_status static_wraps(sg_session *s) {
  sg_static_buffer_desc d = {sizeof d, FAKE_DEVICE(0), UINT64_MAX};
  return api->register_static_buffers(s, &d, 1, NULL);
}
static sg_status pre_capture_null(sg_session *s) {
  return api->pre_capture(s, NULL);
}
static sg_status pre_capture_legacy(sg_session *s) {
  return api->pre_capture(s, (sg_stream)(uintptr_t)0x1); /* cudaStreamLegacy */
}
static sg_status begin_null(sg_session *s) {
  return api->capture_begin(s, NULL);
}
static sg_status begin_bad_mode(sg_session *s) {
  sg_capture_args a = capture(FAKE_STREAM);
  a.capture_mode = 3;
  return api->capture_begin(s, &a);
}
static sg_status begin_bad_flags(sg_session *s) {
  sg_capture_args a = capture(FAKE_STREAM);
  a.flags = 4;
  return api->capture_begin(s, &a);
}
static sg_status begin_legacy_stream(sg_session *s) {
  sg_capture_args a = capture(NULL);
  return api->capture_begin(s, &a);
}
static sg_status end_null(sg_session *s) { return api->capture_end(s, NULL); }
static sg_status invalidate_unknown(sg_session *s) {
  return api->invalidate(s, 42);
}
static sg_status refresh_null(sg_session *s) {
  return api->post_optimizer_step(s, FAKE_STREAM, NULL);
}
static sg_status refresh_bad_mode(sg_session *s) {
  sg_refresh_args a = refresh(3, SG_ALL_GROUPS);
  return api->post_optimizer_step(s, FAKE_STREAM, &a);
}
static sg_status refresh_bad_flags(sg_session *s) {
  sg_refresh_args a = refresh(SG_REFRESH_TRANSPOSE, SG_ALL_GROUPS);
  a.flags = 1;
  return api->post_optimizer_step(s, FAKE_STREAM, &a);
}
static sg_status refresh_unknown_group(sg_session *s) {
  sg_fp8_param_desc d = fp8_desc(0, 8, 8);
  ck_assert_int_eq(api->register_fp8_params(s, &d, 1, NULL), SG_OK);
  sg_refresh_args a = refresh(SG_REFRESH_TRANSPOSE, 9);
  return api->post_optimizer_step(s, FAKE_STREAM, &a);
}
static sg_status refresh_cast_without_master(sg_session *s) {
  sg_fp8_param_desc d = fp8_desc(0, 8, 8);
  d.master_dtype = SG_DTYPE_NONE;
  d.master = NULL;
  d.scale = NULL;
  d.scale_inv = NULL;
  d.amax = NULL;
  ck_assert_int_eq(api->register_fp8_params(s, &d, 1, NULL), SG_OK);
  sg_refresh_args a = refresh(SG_REFRESH_CAST, SG_ALL_GROUPS);
  return api->post_optimizer_step(s, FAKE_STREAM, &a);
}
static sg_status replay_null(sg_session *s) { return api->replay(s, NULL); }
static sg_status replay_bad_flags(sg_session *s) {
  sg_replay_args a = replay();
  a.flags = 2;
  return api->replay(s, &a);
}
static sg_status replay_too_many_sources(sg_session *s) {
  const void *src[1] = {FAKE_DEVICE(0)};
  sg_replay_args a = replay();
  a.static_sources = src;
  a.static_source_count = 1; /* none registered */
  return api->replay(s, &a);
}
static sg_status replay_null_sources(sg_session *s) {
  sg_static_buffer_desc d = {sizeof d, FAKE_DEVICE(0), 64};
  ck_assert_int_eq(api->register_static_buffers(s, &d, 1, NULL), SG_OK);
  sg_replay_args a = replay();
  a.static_source_count = 1;
  return api->replay(s, &a);
}
static sg_status step_null(sg_session *s) { return api->step(s, NULL); }
static sg_status step_null_fn(sg_session *s) {
  sg_step_args a = {.struct_size = sizeof a, .key = 1, .stream = FAKE_STREAM};
  return api->step(s, &a);
}
static sg_status step_legacy_stream(sg_session *s) {
  sg_step_args a = {.struct_size = sizeof a, .key = 1, .fn = noop_step};
  return api->step(s, &a);
}
static sg_status reserve_null(sg_session *s) {
  return api->rng_reserve(s, 16, NULL);
}
static sg_status reserve_zero(sg_session *s) {
  uint64_t off;
  return api->rng_reserve(s, 0, &off);
}
static sg_status reserve_overflow(sg_session *s) {
  uint64_t off;
  ck_assert_int_eq(api->rng_reserve(s, 16, &off), SG_OK);
  return api->rng_reserve(s, UINT64_MAX, &off);
}
static sg_status rng_device_null(sg_session *s) {
  return api->rng_device_state(s, NULL);
}
static sg_status rng_get_null(sg_session *s) {
  return api->rng_get_state(s, FAKE_STREAM, NULL);
}
static sg_status rng_set_null(sg_session *s) {
  return api->rng_set_state(s, FAKE_STREAM, NULL);
}
static sg_status rng_set_legacy_stream(sg_session *s) {
  sg_rng_state r = {sizeof r, 1, 0};
  return api->rng_set_state(s, NULL, &r);
}
static sg_status stats_null(sg_session *s) { return api->get_stats(s, NULL); }
static sg_status info_null(sg_session *s) {
  return api->graph_info(s, 1, NULL);
}
static sg_status info_unknown(sg_session *s) {
  sg_graph_info g = {.struct_size = sizeof g};
  return api->graph_info(s, 1, &g);
}
static sg_status dump_null_path(sg_session *s) {
  return api->dump_graph(s, 1, NULL);
}
static sg_status dump_empty_path(sg_session *s) {
  return api->dump_graph(s, 1, "");
}
static sg_status dump_unknown(sg_session *s) {
  return api->dump_graph(s, 1, "/tmp/never-written.dot");
}
static sg_status sync_legacy(sg_session *s) { return api->sync(s, NULL, 10); }
static sg_status last_error_null_buf(sg_session *s) {
  return api->last_error(s, NULL, 16, NULL);
}

static const arg_case cases[] = {
    {"register_fp8_params NULL", register_null, SG_ERR_INVALID_ARGUMENT, "params is NULL"},
    {"register_fp8_params count 0", register_zero, SG_ERR_INVALID_ARGUMENT, "count is 0"},
    {"register_static_buffers NULL", static_null, SG_ERR_INVALID_ARGUMENT, "buffers is NULL"},
    {"static data NULL", static_data_null, SG_ERR_INVALID_ARGUMENT, "buffers[0].data is NULL"},
    {"static bytes 0", static_zero_bytes, SG_ERR_INVALID_ARGUMENT, "buffers[0].bytes is 0"},
    {"static overlap", static_overlap, SG_ERR_INVALID_ARGUMENT, "overlaps"},
    {"static wraps", static_wraps, SG_ERR_INVALID_ARGUMENT, "buffers[0].bytes"},
    {"pre_capture NULL stream", pre_capture_null, SG_ERR_INVALID_ARGUMENT, "legacy default stream"},
    {"pre_capture legacy stream", pre_capture_legacy, SG_ERR_INVALID_ARGUMENT, "legacy default stream"},
    {"capture_begin NULL", begin_null, SG_ERR_INVALID_ARGUMENT, "args is NULL"},
    {"capture_begin mode", begin_bad_mode, SG_ERR_INVALID_ARGUMENT, "args->capture_mode is 3"},
    {"capture_begin flags", begin_bad_flags, SG_ERR_INVALID_ARGUMENT, "args->flags"},
    {"capture_begin legacy", begin_legacy_stream, SG_ERR_INVALID_ARGUMENT, "args->stream"},
    {"capture_end NULL", end_null, SG_ERR_INVALID_ARGUMENT, "args is NULL"},
    {"invalidate unknown key", invalidate_unknown, SG_ERR_NOT_FOUND, "key 42"},
    {"post_optimizer_step NULL", refresh_null, SG_ERR_INVALID_ARGUMENT, "args is NULL"},
    {"post_optimizer_step mode", refresh_bad_mode, SG_ERR_INVALID_ARGUMENT, "args->mode is 3"},
    {"post_optimizer_step flags", refresh_bad_flags, SG_ERR_INVALID_ARGUMENT, "args->flags"},
    {"post_optimizer_step group", refresh_unknown_group, SG_ERR_INVALID_ARGUMENT, "args->group 9"},
    {"post_optimizer_step cast no master", refresh_cast_without_master, SG_ERR_INVALID_STATE, "no master"},
    {"replay NULL", replay_null, SG_ERR_INVALID_ARGUMENT, "args is NULL"},
    {"replay flags", replay_bad_flags, SG_ERR_INVALID_ARGUMENT, "args->flags"},
    {"replay sources count", replay_too_many_sources, SG_ERR_INVALID_ARGUMENT, "static_source_count"},
    {"replay sources NULL", replay_null_sources, SG_ERR_INVALID_ARGUMENT, "static_sources is NULL"},
    {"step NULL", step_null, SG_ERR_INVALID_ARGUMENT, "args is NULL"},
    {"step fn NULL", step_null_fn, SG_ERR_INVALID_ARGUMENT, "args->fn is NULL"},
    {"step legacy stream", step_legacy_stream, SG_ERR_INVALID_ARGUMENT, "args->stream"},
    {"rng_reserve NULL", reserve_null, SG_ERR_INVALID_ARGUMENT, "offset_out is NULL"},
    {"rng_reserve 0", reserve_zero, SG_ERR_INVALID_ARGUMENT, "count is 0"},
    {"rng_reserve overflow", reserve_overflow, SG_ERR_INVALID_ARGUMENT, "overflows"},
    {"rng_device_state NULL", rng_device_null, SG_ERR_INVALID_ARGUMENT, "out is NULL"},
    {"rng_get_state NULL", rng_get_null, SG_ERR_INVALID_ARGUMENT, "out is NULL"},
    {"rng_set_state NULL", rng_set_null, SG_ERR_INVALID_ARGUMENT, "state is NULL"},
    {"rng_set_state legacy", rng_set_legacy_stream, SG_ERR_INVALID_ARGUMENT, "stream"},
    {"get_stats NULL", stats_null, SG_ERR_INVALID_ARGUMENT, "out is NULL"},
    {"graph_info NULL", info_null, SG_ERR_INVALID_ARGUMENT, "out is NULL"},
    {"graph_info unknown", info_unknown, SG_ERR_NOT_FOUND, "key 1"},
    {"dump_graph NULL path", dump_null_path, SG_ERR_INVALID_ARGUMENT, "path is NULL"},
    {"dump_graph empty path", dump_empty_path, SG_ERR_INVALID_ARGUMENT, "path is empty"},
    {"dump_graph unknown", dump_unknown, SG_ERR_NOT_FOUND, "key 1"},
    {"sync legacy stream", sync_legacy, SG_ERR_INVALID_ARGUMENT, "stream"},
    {"last_error NULL buf", last_error_null_buf, SG_ERR_INVALID_ARGUMENT, "buf is NULL"},
};
#define CASES (int)(sizeof cases / sizeof *cases)

START_TEST(bad_argument_is_named) {
  sg_session *s = open_validation();
  sg_status got = cases[_i].call(s);
  ck_assert_msg(got == cases[_i].want, "%s: status %d, expected %d",
                cases[_i].name, (int)got, (int)cases[_i].want);
  EXPECT(s, got, cases[_i].want, cases[_i].needle);
  api->session_destroy(s);
}
END_TEST

/* A NULL session: every entry that takes one refuses it, and the thread's
 * message names that entry (so each check also shows the message was
 * replaced by the call just made, not left from the one before). */
#define REFUSES_NULL_SESSION(entry, ...)                                \
  EXPECT(NULL, api->entry(NULL, __VA_ARGS__), SG_ERR_INVALID_ARGUMENT, \
         #entry ": session is NULL")

START_TEST(null_session_is_refused_by_every_entry) {
  sg_capture_args ca = capture(FAKE_STREAM);
  sg_replay_args ra = replay();
  sg_refresh_args fa = refresh(SG_REFRESH_TRANSPOSE, SG_ALL_GROUPS);
  sg_step_args sa = {.struct_size = sizeof sa, .key = 1,
                     .stream = FAKE_STREAM, .fn = noop_step};
  sg_rng_state rs = {sizeof rs, 0, 0};
  sg_rng_device_state rd = {sizeof rd, NULL, NULL};
  sg_stats st = {.struct_size = sizeof st};
  sg_graph_info gi = {.struct_size = sizeof gi};
  sg_fp8_param_desc d = fp8_desc(0, 4, 4);
  sg_static_buffer_desc b = {sizeof b, FAKE_DEVICE(0), 8};
  uint64_t off;
  REFUSES_NULL_SESSION(register_fp8_params, &d, 1, NULL);
  REFUSES_NULL_SESSION(register_static_buffers, &b, 1, NULL);
  REFUSES_NULL_SESSION(pre_capture, FAKE_STREAM);
  REFUSES_NULL_SESSION(capture_begin, &ca);
  REFUSES_NULL_SESSION(capture_end, &ca);
  REFUSES_NULL_SESSION(invalidate, 1);
  REFUSES_NULL_SESSION(post_optimizer_step, FAKE_STREAM, &fa);
  REFUSES_NULL_SESSION(replay, &ra);
  REFUSES_NULL_SESSION(step, &sa);
  REFUSES_NULL_SESSION(rng_reserve, 1, &off);
  REFUSES_NULL_SESSION(rng_end_step, FAKE_STREAM);
  REFUSES_NULL_SESSION(rng_device_state, &rd);
  REFUSES_NULL_SESSION(rng_get_state, FAKE_STREAM, &rs);
  REFUSES_NULL_SESSION(rng_set_state, FAKE_STREAM, &rs);
  REFUSES_NULL_SESSION(get_stats, &st);
  REFUSES_NULL_SESSION(graph_info, 1, &gi);
  REFUSES_NULL_SESSION(dump_graph, 1, "x.dot");
  REFUSES_NULL_SESSION(sync, FAKE_STREAM, 1);
}
END_TEST

/* No crash, and no message either: the thread's stays as it was. */
START_TEST(destroy_null_is_a_no_op) {
  ck_assert_int_eq(api->invalidate(NULL, 5), SG_ERR_INVALID_ARGUMENT);
  api->session_destroy(NULL);
  char detail[256];
  api->last_error(NULL, detail, sizeof detail, NULL);
  ck_assert_str_eq(detail, "invalidate: session is NULL");
}
END_TEST

START_TEST(every_status_has_its_own_string) {
  for (sg_status a = 0; a < SG_STATUS_COUNT; a++) {
    const char *sa = api->status_string(a);
    ck_assert_ptr_nonnull(sa);
    ck_assert_str_ne(sa, "unknown status");
    for (sg_status b = 0; b < a; b++) {
      ck_assert_str_ne(sa, api->status_string(b));
    }
  }
}
END_TEST

START_TEST(unknown_statuses_have_a_string_too) {
  ck_assert_str_eq(api->status_string(-1), "unknown status");
  ck_assert_str_eq(api->status_string(SG_STATUS_COUNT), "unknown status");
  ck_assert_str_eq(api->status_string(INT32_MAX), "unknown status");
}
END_TEST

START_TEST(last_error_truncates_cleanly) {
  sg_session *s = open_validation();
  ck_assert_int_eq(api->invalidate(s, 42), SG_ERR_NOT_FOUND);
  char full[256], small[8];
  size_t needed = 0;
  ck_assert_int_eq(api->last_error(s, full, sizeof full, &needed), SG_OK);
  ck_assert_uint_eq(needed, strlen(full));
  memset(small, 'x', sizeof small);
  ck_assert_int_eq(api->last_error(s, small, sizeof small, NULL), SG_OK);
  ck_assert_uint_eq(strlen(small), sizeof small - 1);
  ck_assert_int_eq(strncmp(small, full, sizeof small - 1), 0);
  ck_assert_int_eq(api->last_error(s, NULL, 0, &needed), SG_OK);
  ck_assert_uint_eq(needed, strlen(full));
  api->session_destroy(s);
}
END_TEST

Suite *arguments_suite(void) {
  Suite *s = suite_create("arguments");
  TCase *t = tcase_create("each entry");
  tcase_add_loop_test(t, bad_argument_is_named, 0, CASES);
  tcase_add_test(t, null_session_is_refused_by_every_entry);
  tcase_add_test(t, destroy_null_is_a_no_op);
  suite_add_tcase(s, t);
  TCase *st = tcase_create("status");
  tcase_add_test(st, every_status_has_its_own_string);
  tcase_add_test(st, unknown_statuses_have_a_string_too);
  tcase_add_test(st, last_error_truncates_cleanly);
  suite_add_tcase(s, st);
  return s;
}

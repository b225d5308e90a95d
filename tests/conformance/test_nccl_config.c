/* ABI 1.1's multi-GPU configuration through validation-only sessions given
 * a fake communicator and the fake NCCL table (tests/support/fake_nccl.h):
 * the new config fields and table under the struct_size rules, every bad
 * value refused naming its field, NCCL's answers checked, the refresh's
 * SG_REFRESH_REDUCE_AMAX flag checked, and no collective ever called. */
#include <stdint.h>
#include <stdio.h>

#include "conformance.h"
#include "fake_nccl.h"
#include "sg_log_capture.h"


static sg_nccl_functions table;

static sg_session_config comm_config(heard *h) {
  fake_nccl_reset(4, 1);
  table = fake_nccl_table();
  sg_session_config cfg = validation_config();
  cfg.nccl_comm = FAKE_COMM;
  cfg.nccl = &table;
  cfg.log_level = SG_LOG_INFO;
  cfg.log_fn = sg_hear;
  cfg.log_user = h;
  return cfg;
}

/* Creates, checks the status (and the detail for failures), destroys. */
static void create_expect(const sg_session_config *cfg, sg_status want,
                          const char *needle, int line) {
  sg_session *s = NULL;
  sg_status st = api->session_create(cfg, &s);
  expect_status_at(NULL, st, want, needle, __FILE__, line);
  ck_assert_msg((st == SG_OK) == (s != NULL), "session_out vs status");
  api->session_destroy(s);
}
#define CREATE_EXPECT(cfg, want, needle) \
  create_expect((cfg), (want), (needle), __LINE__)

START_TEST(fake_comm_session_reports_rank_and_defaults) {
  heard h = {{0}};
  sg_session_config cfg = comm_config(&h);
  CREATE_EXPECT(&cfg, SG_OK, NULL);
  ck_assert_msg(strstr(h.text, "rank 1 of 4") != NULL, "%s", h.text);
  ck_assert_msg(strstr(h.text, "NCCL 2.28.9 from the host's table") != NULL,
                "%s", h.text);
  ck_assert_msg(strstr(h.text, "timeout 600000 ms; on timeout: return") !=
                    NULL,
                "%s", h.text);
  ck_assert_int_eq(fake.calls, 0); /* no collective: no device */
}
END_TEST

START_TEST(config_fields_are_used) {
  heard h = {{0}};
  sg_session_config cfg = comm_config(&h);
  cfg.nccl_timeout_ms = 1234;
  cfg.nccl_on_timeout = SG_NCCL_TIMEOUT_ABORT;
  CREATE_EXPECT(&cfg, SG_OK, NULL);
  ck_assert_msg(strstr(h.text, "timeout 1234 ms; on timeout: abort") != NULL,
                "%s", h.text);
}
END_TEST

/* A config of ABI 1.0's size has no timeout fields: the defaults hold, and
 * the bytes past its struct_size are not read. */
START_TEST(v1_0_config_with_a_comm_gets_the_defaults) {
  heard h = {{0}};
  struct {
    sg_session_config cfg;
    unsigned char trail[16];
  } big;
  memset(&big, 0xcd, sizeof big);
  big.cfg = comm_config(&h);
  memset(&big.cfg.nccl_timeout_ms, 0xcd, sizeof big.cfg - SG_V1_0_SIZE_sg_session_config);
  big.cfg.struct_size = SG_V1_0_SIZE_sg_session_config;
  CREATE_EXPECT(&big.cfg, SG_OK, NULL);
  ck_assert_msg(strstr(h.text, "timeout 600000 ms; on timeout: return") !=
                    NULL,
                "%s", h.text);
}
END_TEST

/* A field that struct_size covers only in part is not read. */
START_TEST(fields_cut_by_struct_size_are_not_read) {
  heard h = {{0}};
  sg_session_config cfg = comm_config(&h);
  cfg.nccl_timeout_ms = 1234;
  cfg.nccl_on_timeout = 7; /* refused if it were read */
  cfg.struct_size = SG_V1_1_SIZE_sg_session_config - 2;
  CREATE_EXPECT(&cfg, SG_OK, NULL);
  ck_assert_msg(strstr(h.text, "timeout 1234 ms; on timeout: return") != NULL,
                "%s", h.text);
}
END_TEST

START_TEST(unknown_timeout_action_is_named) {
  heard h = {{0}};
  sg_session_config cfg = comm_config(&h);
  cfg.nccl_on_timeout = 2;
  CREATE_EXPECT(&cfg, SG_ERR_INVALID_ARGUMENT, "config->nccl_on_timeout is 2");
  cfg.nccl_comm = NULL; /* refused with or without a communicator */
  CREATE_EXPECT(&cfg, SG_ERR_INVALID_ARGUMENT, "config->nccl_on_timeout is 2");
}
END_TEST

START_TEST(table_struct_size_rules) {
  heard h = {{0}};
  sg_session_config cfg = comm_config(&h);
  table.struct_size = 8;
  CREATE_EXPECT(&cfg, SG_ERR_STRUCT_SIZE,
                "config->nccl->struct_size is 8, smaller than the 32 of its "
                "first ABI version");
  table.struct_size = SG_V1_0_SIZE_sg_nccl_functions;
  CREATE_EXPECT(&cfg, SG_ERR_INVALID_ARGUMENT,
                "config->nccl->get_version is NULL or beyond its struct_size "
                "32: it must be ncclGetVersion");
  table.struct_size = SG_V1_0_SIZE_sg_nccl_functions + 4; /* cuts a pointer */
  CREATE_EXPECT(&cfg, SG_ERR_INVALID_ARGUMENT,
                "config->nccl->get_version is NULL or beyond its struct_size "
                "36");
  /* A newer host's larger table: accepted, its tail not read. */
  struct {
    sg_nccl_functions t;
    unsigned char trail[32];
  } big;
  memset(&big, 0xcd, sizeof big);
  big.t = fake_nccl_table();
  big.t.struct_size = sizeof big;
  cfg.nccl = &big.t;
  CREATE_EXPECT(&cfg, SG_OK, NULL);
}
END_TEST

static const struct {
  size_t offset;
  const char *needle;
} required[] = {
    {offsetof(sg_nccl_functions, all_reduce), "config->nccl->all_reduce is NULL"},
    {offsetof(sg_nccl_functions, comm_get_async_error),
     "config->nccl->comm_get_async_error is NULL"},
    {offsetof(sg_nccl_functions, comm_abort), "config->nccl->comm_abort is NULL"},
    {offsetof(sg_nccl_functions, get_version), "config->nccl->get_version is NULL"},
    {offsetof(sg_nccl_functions, comm_count), "config->nccl->comm_count is NULL"},
    {offsetof(sg_nccl_functions, comm_user_rank),
     "config->nccl->comm_user_rank is NULL"},
    {offsetof(sg_nccl_functions, comm_cu_device),
     "config->nccl->comm_cu_device is NULL"},
    {offsetof(sg_nccl_functions, get_error_string),
     "config->nccl->get_error_string is NULL"},
};

START_TEST(every_table_field_is_required) {
  heard h = {{0}};
  sg_session_config cfg = comm_config(&h);
  void *null = NULL;
  memcpy((char *)&table + required[_i].offset, &null, sizeof null);
  CREATE_EXPECT(&cfg, SG_ERR_INVALID_ARGUMENT, required[_i].needle);
}
END_TEST

START_TEST(old_nccl_is_refused_with_the_minimum) {
  heard h = {{0}};
  sg_session_config cfg = comm_config(&h);
  fake.version = 20805; /* 2.8 cannot capture collectives */
  CREATE_EXPECT(&cfg, SG_ERR_NCCL, "NCCL 2.8.5 (ncclGetVersion 20805) is too "
                                   "old: stepgraph needs 2.9.0");
  fake.version = 2804; /* the encoding before 2.9 */
  CREATE_EXPECT(&cfg, SG_ERR_NCCL, "NCCL 2.8.4");
  fake.version = 20900;
  CREATE_EXPECT(&cfg, SG_OK, NULL);
}
END_TEST

START_TEST(nccl_failures_are_named_with_ncclS_text) {
  heard h = {{0}};
  sg_session_config cfg = comm_config(&h);
  fake.query_result = FAKE_INVALID_ARGUMENT;
  CREATE_EXPECT(&cfg, SG_ERR_NCCL,
                "ncclCommCount failed: ncclInvalidArgument 4 (fake: invalid "
                "argument)");
  fake.query_result = FAKE_SUCCESS;
  cfg.nccl_comm = (sg_nccl_comm)(uintptr_t)0x1234; /* the double's "other" */
  CREATE_EXPECT(&cfg, SG_ERR_NCCL, "ncclCommCount failed");
}
END_TEST

START_TEST(impossible_rank_and_wrong_device_are_refused) {
  heard h = {{0}};
  sg_session_config cfg = comm_config(&h);
  fake.rank = 4;
  CREATE_EXPECT(&cfg, SG_ERR_NCCL, "rank 4 of 4 ranks, which is not a rank");
  fake.rank = 0;
  fake.device = 1;
  CREATE_EXPECT(&cfg, SG_ERR_INVALID_ARGUMENT,
                "config->device is 0 but the communicator's device "
                "(ncclCommCuDevice) is 1");
}
END_TEST

START_TEST(table_without_a_comm_is_not_read) {
  heard h = {{0}};
  sg_session_config cfg = comm_config(&h);
  cfg.nccl_comm = NULL;
  table.get_version = NULL; /* would be refused if it were read */
  CREATE_EXPECT(&cfg, SG_OK, NULL);
  ck_assert_ptr_null(strstr(h.text, "multi-GPU"));
}
END_TEST

/* --- The refresh flag ---------------------------------------------------- */

static sg_refresh_args refresh_args(uint32_t mode, uint32_t flags) {
  sg_refresh_args a;
  memset(&a, 0, sizeof a);
  a.struct_size = sizeof a;
  a.mode = mode;
  a.group = SG_ALL_GROUPS;
  a.flags = flags;
  return a;
}

static sg_session *with_one_param(sg_session_config *cfg) {
  sg_session *s = NULL;
  ck_assert_int_eq(api->session_create(cfg, &s), SG_OK);
  sg_fp8_param_desc d = fp8_desc(0, 16, 32);
  EXPECT(s, api->register_fp8_params(s, &d, 1, NULL), SG_OK, NULL);
  return s;
}

START_TEST(reduce_amax_flag_is_checked) {
  heard h = {{0}};
  sg_session_config cfg = comm_config(&h);
  sg_session *s = with_one_param(&cfg);
  sg_refresh_args a = refresh_args(SG_REFRESH_CAST, 0x2);
  EXPECT(s, api->post_optimizer_step(s, FAKE_STREAM, &a),
         SG_ERR_INVALID_ARGUMENT, "unknown flag bits");
  a = refresh_args(SG_REFRESH_TRANSPOSE, SG_REFRESH_REDUCE_AMAX);
  EXPECT(s, api->post_optimizer_step(s, FAKE_STREAM, &a),
         SG_ERR_INVALID_ARGUMENT, "but args->mode is TRANSPOSE");
  /* Valid: every check passes, then the device is needed. */
  a = refresh_args(SG_REFRESH_CAST, SG_REFRESH_REDUCE_AMAX);
  EXPECT(s, api->post_optimizer_step(s, FAKE_STREAM, &a), SG_ERR_NO_DEVICE,
         "needs a GPU");
  a.mode = SG_REFRESH_CAST_TRANSPOSE;
  EXPECT(s, api->post_optimizer_step(s, FAKE_STREAM, &a), SG_ERR_NO_DEVICE,
         "needs a GPU");
  api->session_destroy(s);
  ck_assert_int_eq(fake.calls, 0);
}
END_TEST

/* Only delayed scaling takes its scales from amax: a current-scaling cast
 * has used its own rank's already. */
START_TEST(reduce_amax_is_for_the_delayed_recipe) {
  heard h = {{0}};
  sg_session_config cfg = comm_config(&h);
  sg_session *s = with_one_param(&cfg); /* param 0: delayed, group 0 */
  sg_fp8_param_desc d = fp8_desc(1, 16, 32);
  d.recipe = SG_RECIPE_CURRENT;
  d.scale = NULL;
  d.group = 1;
  EXPECT(s, api->register_fp8_params(s, &d, 1, NULL), SG_OK, NULL);
  sg_refresh_args a =
      refresh_args(SG_REFRESH_CAST_TRANSPOSE, SG_REFRESH_REDUCE_AMAX);
  EXPECT(s, api->post_optimizer_step(s, FAKE_STREAM, &a),
         SG_ERR_INVALID_ARGUMENT,
         "registered param 1 does not use the delayed recipe");
  a.group = 0;
  EXPECT(s, api->post_optimizer_step(s, FAKE_STREAM, &a), SG_ERR_NO_DEVICE,
         "needs a GPU");
  api->session_destroy(s);
}
END_TEST

START_TEST(reduce_amax_needs_a_communicator) {
  sg_session_config cfg = validation_config();
  sg_session *s = with_one_param(&cfg);
  sg_refresh_args a = refresh_args(SG_REFRESH_CAST, SG_REFRESH_REDUCE_AMAX);
  EXPECT(s, api->post_optimizer_step(s, FAKE_STREAM, &a),
         SG_ERR_INVALID_STATE, "the session has no communicator");
  api->session_destroy(s);
}
END_TEST

/* Device entries of a validation-only session with a communicator say
 * they need a GPU; nothing reaches NCCL's collectives or async error. */
START_TEST(device_entries_touch_no_nccl) {
  heard h = {{0}};
  sg_session_config cfg = comm_config(&h);
  sg_session *s = with_one_param(&cfg);
  EXPECT(s, api->pre_capture(s, FAKE_STREAM), SG_OK, NULL);
  sg_capture_args c = {sizeof c, 7, FAKE_STREAM, 0, 0};
  EXPECT(s, api->capture_begin(s, &c), SG_ERR_NO_DEVICE, "needs a GPU");
  EXPECT(s, api->sync(s, FAKE_STREAM, 10), SG_ERR_NO_DEVICE, "needs a GPU");
  api->session_destroy(s);
  ck_assert_int_eq(fake.calls, 0);
  ck_assert_int_eq(fake.async_polls, 0);
  ck_assert_int_eq(fake.aborts, 0);
}
END_TEST

Suite *nccl_config_suite(void) {
  Suite *s = suite_create("nccl_config");
  TCase *t = tcase_create("config");
  tcase_add_test(t, fake_comm_session_reports_rank_and_defaults);
  tcase_add_test(t, config_fields_are_used);
  tcase_add_test(t, v1_0_config_with_a_comm_gets_the_defaults);
  tcase_add_test(t, unknown_timeout_action_is_named);
  tcase_add_test(t, fields_cut_by_struct_size_are_not_read);
  tcase_add_test(t, table_struct_size_rules);
  tcase_add_loop_test(t, every_table_field_is_required, 0,
                      sizeof required / sizeof required[0]);
  tcase_add_test(t, old_nccl_is_refused_with_the_minimum);
  tcase_add_test(t, nccl_failures_are_named_with_ncclS_text);
  tcase_add_test(t, impossible_rank_and_wrong_device_are_refused);
  tcase_add_test(t, table_without_a_comm_is_not_read);
  suite_add_tcase(s, t);
  TCase *r = tcase_create("refresh_flag");
  tcase_add_test(r, reduce_amax_flag_is_checked);
  tcase_add_test(r, reduce_amax_needs_a_communicator);
  tcase_add_test(r, reduce_amax_is_for_the_delayed_recipe);
  tcase_add_test(r, device_entries_touch_no_nccl);
  suite_add_tcase(s, r);
  return s;
}

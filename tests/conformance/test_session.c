/* Session configuration and logging. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "conformance.h"


static sg_status create_with(void (*edit)(sg_session_config *c)) {
  sg_session_config cfg = validation_config();
  edit(&cfg);
  sg_session *s = (sg_session *)(uintptr_t)0xdead;
  sg_status st = api->session_create(&cfg, &s);
  ck_assert_msg(st == SG_OK || s == NULL, "session_out not NULL on failure");
  api->session_destroy(s);
  return st;
}

static void bad_device(sg_session_config *c) { c->device = -1; }
static void bad_flags(sg_session_config *c) { c->flags |= 0x80; }
static void bad_mode(sg_session_config *c) { c->capture_mode = 9; }
static void bad_level(sg_session_config *c) { c->log_level = -2; }
static void bad_reserved(sg_session_config *c) { c->reserved0 = 1; }
static void huge_params(sg_session_config *c) { c->param_capacity = UINT32_MAX; }
static void huge_statics(sg_session_config *c) { c->static_capacity = UINT32_MAX; }

static const struct {
  void (*edit)(sg_session_config *c);
  sg_status want;
  const char *needle;
} config_cases[] = {
    {bad_device, SG_ERR_INVALID_ARGUMENT, "config->device is -1"},
    {bad_flags, SG_ERR_INVALID_ARGUMENT, "config->flags has unknown bits 0x80"},
    {bad_mode, SG_ERR_INVALID_ARGUMENT, "config->capture_mode is 9"},
    {bad_level, SG_ERR_INVALID_ARGUMENT, "config->log_level is -2"},
    {bad_reserved, SG_ERR_INVALID_ARGUMENT, "config->reserved0"},
    {huge_params, SG_ERR_INVALID_ARGUMENT, "config->param_capacity"},
    {huge_statics, SG_ERR_INVALID_ARGUMENT, "config->static_capacity"},
};

START_TEST(bad_config_is_refused_by_field) {
  sg_status st = create_with(config_cases[_i].edit);
  EXPECT(NULL, st, config_cases[_i].want, config_cases[_i].needle);
}
END_TEST

START_TEST(create_refuses_null_pointers) {
  sg_session *s = NULL;
  sg_session_config cfg = validation_config();
  EXPECT(NULL, api->session_create(NULL, &s), SG_ERR_INVALID_ARGUMENT,
         "session_create: config is NULL");
  EXPECT(NULL, api->session_create(&cfg, NULL), SG_ERR_INVALID_ARGUMENT,
         "session_out is NULL");
}
END_TEST

START_TEST(many_sessions_come_and_go) {
  sg_session *s[16];
  for (int i = 0; i < 16; i++) {
    s[i] = open_validation();
  }
  for (int i = 0; i < 16; i++) {
    api->session_destroy(s[i]);
  }
}
END_TEST

typedef struct log_record {
  int calls;
  int32_t last_level;
  char last[512];
} log_record;

static void record(void *user, int32_t level, const char *message) {
  log_record *r = user;
  r->calls++;
  r->last_level = level;
  snprintf(r->last, sizeof r->last, "%s", message);
}

static sg_session *logged_session(log_record *r, int32_t level) {
  sg_session_config cfg = validation_config();
  cfg.log_fn = record;
  cfg.log_user = r;
  cfg.log_level = level;
  sg_session *s = NULL;
  ck_assert_int_eq(api->session_create(&cfg, &s), SG_OK);
  return s;
}

START_TEST(default_log_level_is_quiet) {
  log_record r = {0};
  unsetenv("STEPGRAPH_LOG_LEVEL");
  sg_session *s = logged_session(&r, SG_LOG_OFF);
  ck_assert_int_eq(api->invalidate(s, 1), SG_ERR_NOT_FOUND); /* an error */
  api->session_destroy(s);
  ck_assert_int_eq(r.calls, 0);
}
END_TEST

START_TEST(errors_reach_the_log_callback) {
  log_record r = {0};
  unsetenv("STEPGRAPH_LOG_LEVEL");
  sg_session *s = logged_session(&r, SG_LOG_ERROR);
  ck_assert_int_eq(api->invalidate(s, 31337), SG_ERR_NOT_FOUND);
  ck_assert_int_ge(r.calls, 1);
  ck_assert_int_eq(r.last_level, SG_LOG_ERROR);
  ck_assert_ptr_nonnull(strstr(r.last, "invalidate: key 31337"));
  api->session_destroy(s);
}
END_TEST

START_TEST(environment_overrides_the_log_level) {
  log_record r = {0};
  setenv("STEPGRAPH_LOG_LEVEL", "debug", 1);
  sg_session *s = logged_session(&r, SG_LOG_OFF);
  EXPECT(s, api->pre_capture(s, FAKE_STREAM), SG_OK, NULL);
  unsetenv("STEPGRAPH_LOG_LEVEL");
  ck_assert_int_ge(r.calls, 1);
  ck_assert_int_eq(r.last_level, SG_LOG_DEBUG);
  ck_assert_ptr_nonnull(strstr(r.last, "pre_capture"));
  api->session_destroy(s);
}
END_TEST

Suite *session_suite(void) {
  Suite *s = suite_create("session");
  TCase *t = tcase_create("config");
  tcase_add_loop_test(t, bad_config_is_refused_by_field, 0,
                      sizeof config_cases / sizeof *config_cases);
  tcase_add_test(t, create_refuses_null_pointers);
  tcase_add_test(t, many_sessions_come_and_go);
  suite_add_tcase(s, t);
  TCase *l = tcase_create("logging");
  tcase_add_test(l, default_log_level_is_quiet);
  tcase_add_test(l, errors_reach_the_log_callback);
  tcase_add_test(l, environment_overrides_the_log_level);
  suite_add_tcase(s, l);
  return s;
}

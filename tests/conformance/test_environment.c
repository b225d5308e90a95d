/* The environment switches: STEPGRAPH_DISABLE takes the usual spellings of
 * on and off, STEPGRAPH_LOG_LEVEL a level name or number, and anything else
 * is ignored with one warning per process, delivered whatever the session's
 * log level. Observed through the log callback of validation-only
 * sessions. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <stdlib.h>

#include "conformance.h"

typedef struct heard {
  int messages, warnings;
  char last[512];
} heard;

static void listen(void *user, int32_t level, const char *message) {
  heard *h = user;
  h->messages++;
  h->warnings += level == SG_LOG_WARN;
  strncpy(h->last, message, sizeof h->last - 1);
}

/* Creates and destroys a validation-only session at `level`, with `name`
 * set to `value` (NULL: unset), and returns what its logger said. */
static heard session_with(const char *name, const char *value, int32_t level) {
  heard h = {0};
  if (value != NULL) {
    setenv(name, value, 1);
  } else {
    unsetenv(name);
  }
  sg_session_config cfg = validation_config();
  cfg.log_level = level;
  cfg.log_fn = listen;
  cfg.log_user = &h;
  sg_session *s = NULL;
  ck_assert_int_eq(api->session_create(&cfg, &s), SG_OK);
  api->session_destroy(s);
  unsetenv(name);
  return h;
}

static int said(const heard *h, const char *needle) {
  return strstr(h->last, needle) != NULL;
}

static const char *const disable_on[] = {"1", "true", "YES", "On"};
static const char *const disable_off[] = {"0", "false", "no", "OFF", ""};

START_TEST(disable_accepts_on_spellings) {
  heard h = session_with("STEPGRAPH_DISABLE", disable_on[_i], SG_LOG_INFO);
  ck_assert_int_eq(h.warnings, 0);
  /* "graphs are off", then "session created". */
  ck_assert_int_eq(h.messages, 2);
}
END_TEST

START_TEST(disable_accepts_off_spellings) {
  heard h = session_with("STEPGRAPH_DISABLE", disable_off[_i], SG_LOG_INFO);
  ck_assert_int_eq(h.warnings, 0);
  ck_assert_int_eq(h.messages, 1); /* only "session created" */
  ck_assert_msg(said(&h, "validation-only session created"), "%s", h.last);
}
END_TEST

/* One case for all misspellings: the warning is once per process. */
START_TEST(misspelt_switches_warn_once) {
  heard a = session_with("STEPGRAPH_DISABLE", "maybe", SG_LOG_OFF);
  ck_assert_int_eq(a.warnings, 1);
  ck_assert_msg(said(&a, "STEPGRAPH_DISABLE=\"maybe\""), "%s", a.last);
  heard b = session_with("STEPGRAPH_DISABLE", "maybe", SG_LOG_OFF);
  ck_assert_int_eq(b.warnings, 0);

  heard c = session_with("STEPGRAPH_LOG_LEVEL", "verbose", SG_LOG_OFF);
  ck_assert_int_eq(c.warnings, 1);
  ck_assert_msg(said(&c, "STEPGRAPH_LOG_LEVEL=\"verbose\""), "%s", c.last);
  heard d = session_with("STEPGRAPH_LOG_LEVEL", "verbose", SG_LOG_OFF);
  ck_assert_int_eq(d.warnings, 0);
  ck_assert_int_eq(d.messages, 0); /* and the config's level (off) holds */
}
END_TEST

START_TEST(log_level_overrides_config) {
  static const char *const debug[] = {"debug", "DEBUG", "4", "9"};
  for (size_t i = 0; i < sizeof debug / sizeof debug[0]; i++) {
    heard h = session_with("STEPGRAPH_LOG_LEVEL", debug[i], SG_LOG_OFF);
    ck_assert_msg(h.messages >= 1, "STEPGRAPH_LOG_LEVEL=%s said nothing",
                  debug[i]);
    ck_assert_int_eq(h.warnings, 0);
  }
  heard off = session_with("STEPGRAPH_LOG_LEVEL", "off", SG_LOG_DEBUG);
  ck_assert_int_eq(off.messages, 0);
}
END_TEST

Suite *environment_suite(void) {
  Suite *s = suite_create("environment");
  TCase *tc = tcase_create("switches");
  tcase_add_loop_test(tc, disable_accepts_on_spellings, 0,
                      sizeof disable_on / sizeof disable_on[0]);
  tcase_add_loop_test(tc, disable_accepts_off_spellings, 0,
                      sizeof disable_off / sizeof disable_off[0]);
  tcase_add_test(tc, misspelt_switches_warn_once);
  tcase_add_test(tc, log_level_overrides_config);
  suite_add_tcase(s, tc);
  return s;
}

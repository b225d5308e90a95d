/* fp8_trainer's command line and plugin loading; needs no GPU (both are
 * dealt with before the GPU is looked for). Each bad input must end in a
 * reason, the usage text and exit status 64 (a normal exit: no crash); a
 * missing plugin in a message that names the path and what to do, exit 1. */
#define _XOPEN_SOURCE 700 /* mkdtemp, posix_spawn */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sg_run_suite.h"
#include "spawn.h"

#define EXIT_USAGE 64

static char dir[] = "/tmp/sg_trainer_cli_XXXXXX";

static void expect_usage(const char *const *args, const char *reason) {
  trainer_result r = run_trainer(dir, args, NULL);
  ck_assert_msg(r.exited, "%s: killed by signal %d", args[0], r.code);
  ck_assert_msg(r.code == EXIT_USAGE, "%s ...: exit %d, expected %d\n%s",
                args[0], r.code, EXIT_USAGE, r.err);
  ck_assert_msg(strstr(r.err, "usage: fp8_trainer") != NULL,
                "no usage text:\n%s", r.err);
  ck_assert_msg(strstr(r.err, reason) != NULL, "no \"%s\" in:\n%s", reason,
                r.err);
  trainer_result_free(&r);
}

START_TEST(unknown_option) {
  const char *a[] = {"--fast", NULL};
  expect_usage(a, "unrecognized option");
}
END_TEST

START_TEST(missing_value) {
  const char *a[] = {"--steps", NULL};
  expect_usage(a, "requires an argument");
}
END_TEST

START_TEST(not_a_number) {
  const char *a[] = {"--steps", "12abc", NULL};
  expect_usage(a, "--steps '12abc' is not a whole number");
}
END_TEST

START_TEST(zero_steps) {
  const char *a[] = {"--steps", "0", NULL};
  expect_usage(a, "--steps '0'");
}
END_TEST

START_TEST(negative_batch) {
  const char *a[] = {"--batch", "-16", NULL};
  expect_usage(a, "--batch '-16'");
}
END_TEST

START_TEST(huge_number) {
  const char *a[] = {"--layers", "99999999999999999999999", NULL};
  expect_usage(a, "--layers");
}
END_TEST

START_TEST(hidden_not_multiple_of_16) {
  const char *a[] = {"--hidden", "100", NULL};
  expect_usage(a, "not a multiple of 16");
}
END_TEST

START_TEST(one_layer) {
  const char *a[] = {"--layers", "1", NULL};
  expect_usage(a, "--layers '1'");
}
END_TEST

START_TEST(unknown_mode) {
  const char *a[] = {"--mode", "turbo", NULL};
  expect_usage(a, "--mode 'turbo' is not one of");
}
END_TEST

START_TEST(stray_argument) {
  const char *a[] = {"graph", NULL};
  expect_usage(a, "unexpected argument 'graph'");
}
END_TEST

START_TEST(warmup_not_below_steps) {
  const char *a[] = {"--mode", "graph", "--steps", "20", "--warmup", "20",
                     NULL};
  expect_usage(a, "--steps must exceed --warmup");
}
END_TEST

static void expect_missing_plugin(const char *const *args, const char *env,
                                  const char *path) {
  trainer_result r = run_trainer(dir, args, env);
  ck_assert_msg(r.exited && r.code == 1, "exit %d (exited %d), expected 1\n%s",
                r.code, (int)r.exited, r.err);
  ck_assert_msg(strstr(r.err, "cannot load the stepgraph plugin") != NULL &&
                    strstr(r.err, path) != NULL &&
                    strstr(r.err, "--plugin") != NULL,
                "unclear message:\n%s", r.err);
  trainer_result_free(&r);
}

START_TEST(missing_plugin_option) {
  const char *path = "/nonexistent/libstepgraph.so.1";
  const char *a[] = {"--plugin", path, NULL};
  expect_missing_plugin(a, NULL, path);
}
END_TEST

START_TEST(missing_plugin_environment) {
  const char *a[] = {NULL};
  expect_missing_plugin(a, "STEPGRAPH_PLUGIN=/nonexistent/env/libsg.so",
                        "/nonexistent/env/libsg.so");
}
END_TEST

START_TEST(help_is_not_an_error) {
  const char *a[] = {"--help", NULL};
  trainer_result r = run_trainer(dir, a, NULL);
  ck_assert(r.exited && r.code == 0);
  ck_assert_ptr_nonnull(strstr(r.out, "usage: fp8_trainer"));
  trainer_result_free(&r);
}
END_TEST

static Suite *cli_suite(void) {
  Suite *s = suite_create("trainer_cli");
  TCase *tc = tcase_create("cli");
  tcase_add_test(tc, unknown_option);
  tcase_add_test(tc, missing_value);
  tcase_add_test(tc, not_a_number);
  tcase_add_test(tc, zero_steps);
  tcase_add_test(tc, negative_batch);
  tcase_add_test(tc, huge_number);
  tcase_add_test(tc, hidden_not_multiple_of_16);
  tcase_add_test(tc, one_layer);
  tcase_add_test(tc, unknown_mode);
  tcase_add_test(tc, stray_argument);
  tcase_add_test(tc, warmup_not_below_steps);
  tcase_add_test(tc, missing_plugin_option);
  tcase_add_test(tc, missing_plugin_environment);
  tcase_add_test(tc, help_is_not_an_error);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  if (mkdtemp(dir) == NULL) {
    perror("mkdtemp");
    return EXIT_FAILURE;
  }
  const int rc = sg_run_suite(cli_suite(), CK_FORK);
  remove_trainer_dir(dir);
  return rc;
}

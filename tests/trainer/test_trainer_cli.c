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

/* Each bad command line (NULL-terminated, at most 6 words) and the reason
 * the trainer must give for it. */
static const struct {
  const char *args[7];
  const char *reason;
} bad_lines[] = {
    {{"--fast"}, "unrecognized option"},
    {{"--steps"}, "requires an argument"},
    {{"--steps", "12abc"}, "--steps '12abc' is not a whole number"},
    {{"--steps", "0"}, "--steps '0'"},
    {{"--batch", "-16"}, "--batch '-16'"},
    {{"--layers", "99999999999999999999999"}, "--layers"},
    {{"--hidden", "100"}, "not a multiple of 16"},
    {{"--layers", "1"}, "--layers '1'"},
    {{"--mode", "turbo"}, "--mode 'turbo' is not one of"},
    {{"graph"}, "unexpected argument 'graph'"},
    {{"--mode", "graph", "--steps", "20", "--warmup", "20"},
     "--steps must exceed --warmup"},
    {{"--accumulate", "0"}, "--accumulate wants a whole number in 1..1024"},
    {{"--accumulate", "1025"}, "--accumulate wants"},
    {{"--unroll"}, "--unroll needs --accumulate N"},
    {{"--accumulate-schedule", "5:2,3:1"}, "ascending STEP:N pairs"},
    {{"--accumulate-schedule", "0:2;9:1"}, "expected ','"},
    {{"--accumulate", "2", "--unroll", "--accumulate-schedule", "0:1"},
     "needs the loop, not --unroll"},
    {{"--inject-nonfinite", "3"}, "needs --skip-nonfinite"},
    {{"--skip-nonfinite", "--inject-nonfinite", "x"},
     "--inject-nonfinite wants"},
    {{"--ranks", "0"}, "--ranks '0' is not a whole number in 1..64"},
    {{"--shard-optimizer"}, "--shard-optimizer needs ranks"},
    {{"--rendezvous", "/tmp/x"}, "--rendezvous needs RANK and WORLD_SIZE"},
    {{"--ranks", "1", "--shard-optimizer", "--mode", "stale"},
     "--mode stale would not differ"},
    {{"--ranks", "1", "--warmup", "0"}, "--warmup must be at least 1"},
    {{"--buckets", "0"}, "--buckets '0'"},
    {{"--ranks", "1", "--skip-nonfinite"}, "--skip-nonfinite with ranks"},
};

START_TEST(bad_command_line_gets_usage) {
  expect_usage(bad_lines[_i].args, bad_lines[_i].reason);
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
  tcase_add_loop_test(tc, bad_command_line_gets_usage, 0,
                      sizeof bad_lines / sizeof bad_lines[0]);
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

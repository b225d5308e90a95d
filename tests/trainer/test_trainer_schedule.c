/* fp8_trainer's learning-rate schedule reaches the step as a host static
 * source in every mode (GPU): with --lr-warmup the rate changes every step,
 * so eager (its own copies), graph (replay's host sources) and driver (the
 * step driver's) must give bit-identical losses, and differ from a
 * constant-rate run from step 1 on (step 0's loss is computed before its
 * first update). */
#define _XOPEN_SOURCE 700 /* mkdtemp */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sg_gpu_test.h"
#include "sg_run_suite.h"
#include "spawn.h"

#define STEPS "200"
#define LR_WARMUP "60"
/* The trainer's exit when it trained but missed its own loss target: a
 * short run with a warm-up may, and that is not what is tested here. */
#define EXIT_LOSS 3

static char dir[] = "/tmp/sg_schedule_XXXXXX";

/* The losses of one run (`lr_warmup` NULL: constant rate); *n: steps. */
static float *losses_of(const char *mode, const char *lr_warmup, size_t *n) {
  char path[4200];
  snprintf(path, sizeof path, "%s/%s-%s.losses", dir, mode,
           lr_warmup ? lr_warmup : "constant");
  const char *args[] = {"--mode", mode, "--steps", STEPS, "--warmup", "5",
                        "--print-every", "0", "--dump-losses", path,
                        lr_warmup ? "--lr-warmup" : NULL, lr_warmup, NULL};
  trainer_result t = run_trainer(dir, args, NULL);
  ck_assert_msg(t.exited && (t.code == 0 || t.code == EXIT_LOSS),
                "fp8_trainer --mode %s: %d\n%s\n%s", mode, t.code, t.out,
                t.err);
  trainer_result_free(&t);
  size_t bytes = 0;
  float *losses = (float *)read_file(path, &bytes);
  ck_assert_ptr_nonnull(losses);
  unlink(path);
  *n = bytes / sizeof(float);
  return losses;
}

START_TEST(schedule_reaches_the_step_in_every_mode) {
  size_t n = 0, m = 0;
  float *eager = losses_of("eager", LR_WARMUP, &n);
  const char *const modes[] = {"graph", "driver"};
  for (int i = 0; i < 2; i++) {
    float *other = losses_of(modes[i], LR_WARMUP, &m);
    ck_assert_uint_eq(m, n);
    for (size_t k = 0; k < n; k++) {
      ck_assert_msg(memcmp(&eager[k], &other[k], sizeof(float)) == 0,
                    "%s differs from eager at step %zu (%.9g vs %.9g)",
                    modes[i], k, (double)other[k], (double)eager[k]);
    }
    free(other);
  }
  float *constant = losses_of("graph", NULL, &m);
  ck_assert_uint_eq(m, n);
  ck_assert_int_eq(memcmp(&constant[0], &eager[0], sizeof(float)), 0);
  for (size_t k = 1; k < n; k++) {
    ck_assert_msg(memcmp(&constant[k], &eager[k], sizeof(float)) != 0,
                  "step %zu: the warm-up's loss equals the constant rate's",
                  k);
  }
  free(constant);
  free(eager);
}
END_TEST

int main(void) {
  sg_test_require_gpu("test_trainer_schedule");
  if (mkdtemp(dir) == NULL) {
    perror("mkdtemp");
    return EXIT_FAILURE;
  }
  Suite *s = suite_create("trainer_schedule");
  TCase *tc = tcase_create("host-fed learning rate");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, schedule_reaches_the_step_in_every_mode);
  suite_add_tcase(s, tc);
  const int rc = sg_run_suite(s, CK_NOFORK);
  remove_trainer_dir(dir);
  return rc;
}

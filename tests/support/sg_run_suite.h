/* The end of every Check test program's main(): run the suites, report, and
 * turn the result into the exit status CTest reads. */
#ifndef SG_RUN_SUITE_H
#define SG_RUN_SUITE_H

#include <check.h>
#include <stddef.h>
#include <stdlib.h>

/* fork: CK_FORK for CPU tests (a crash fails one case, not the program);
 * CK_NOFORK for GPU tests (a forked child cannot use the parent's CUDA
 * context); CK_FORK_GETENV where the environment chooses (CK_FORK=no under
 * valgrind, which must see every test in one process). */
static inline int sg_run_suites(Suite *const *suites, size_t count,
                                enum fork_status fork) {
  SRunner *sr = srunner_create(suites[0]);
  for (size_t i = 1; i < count; i++) {
    srunner_add_suite(sr, suites[i]);
  }
  srunner_set_fork_status(sr, fork);
  srunner_run_all(sr, CK_NORMAL);
  const int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

static inline int sg_run_suite(Suite *s, enum fork_status fork) {
  return sg_run_suites(&s, 1, fork);
}

#endif /* SG_RUN_SUITE_H */

/* The end of every Check test program's main(): run the suite, report, and
 * turn the result into the exit status CTest reads. */
#ifndef SG_RUN_SUITE_H
#define SG_RUN_SUITE_H

#include <check.h>
#include <stdlib.h>

/* fork: CK_FORK for CPU tests (a crash fails one case, not the program);
 * CK_NOFORK for GPU tests (a forked child cannot use the parent's CUDA
 * context). */
static inline int sg_run_suite(Suite *s, enum fork_status fork) {
  SRunner *sr = srunner_create(s);
  srunner_set_fork_status(sr, fork);
  srunner_run_all(sr, CK_NORMAL);
  const int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

#endif /* SG_RUN_SUITE_H */

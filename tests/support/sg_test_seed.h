/* The random seed of a test program that draws its inputs: SG_TEST_SEED from
 * the environment where it is set (any base strtoull reads), so that a
 * failing run can be repeated, else the time, so that every run draws fresh
 * inputs. Printed either way ("<test>: SG_TEST_SEED=<seed>"). Header-only so
 * C and CUDA tests both include it. */
#ifndef SG_TEST_SEED_H
#define SG_TEST_SEED_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static inline uint64_t sg_test_seed(const char *test_name) {
  const char *v = getenv("SG_TEST_SEED");
  const uint64_t seed = v != NULL ? (uint64_t)strtoull(v, NULL, 0) : (uint64_t)time(NULL);
  printf("%s: SG_TEST_SEED=%llu\n", test_name, (unsigned long long)seed);
  return seed;
}

#endif

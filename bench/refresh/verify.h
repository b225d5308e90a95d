/* bench_refresh's check of a run against the CPU reference, on a sample of
 * tensors (first, middle, last) of rotation copy 0. */
#ifndef SG_BENCH_VERIFY_H
#define SG_BENCH_VERIFY_H

#include <stdint.h>

#include "sets.h"

/* Call after a launch of `mode` on copy 0 of the recipe's tables has
 * finished. Returns how many output bytes differ from the reference (0:
 * verified). */
uint64_t bench_verify(const bench_set *set, uint32_t mode, uint32_t recipe,
                      uint32_t master_dtype);

#endif /* SG_BENCH_VERIFY_H */

#include "regions.h"

#include <stdlib.h>

uintptr_t sg_region_end(uintptr_t begin, uint64_t bytes) {
  uintptr_t end;
  return __builtin_add_overflow(begin, bytes, &end) ? UINTPTR_MAX : end;
}

static int by_begin(const void *x, const void *y) {
  uintptr_t p = ((const sg_region *)x)->begin;
  uintptr_t q = ((const sg_region *)y)->begin;
  return (p > q) - (p < q);
}

int sg_regions_overlap(sg_region *regions, size_t n, uint32_t first_new,
                       sg_region *a, sg_region *b) {
  qsort(regions, n, sizeof *regions, by_begin);
  size_t reach = 0; /* the region reaching furthest so far */
  for (size_t k = 1; k < n; k++) {
    if (regions[k].begin < regions[reach].end &&
        (regions[k].owner >= first_new || regions[reach].owner >= first_new)) {
      *a = regions[k];
      *b = regions[reach];
      return 1;
    }
    if (regions[k].end > regions[reach].end) {
      reach = k;
    }
  }
  return 0;
}

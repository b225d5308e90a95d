/* Overlap detection between the memory regions the host registers: sort by
 * start, sweep once. Registered regions are known to be disjoint, so only
 * pairs with a new region are reported. */
#ifndef SG_REGIONS_H
#define SG_REGIONS_H

#include <stddef.h>
#include <stdint.h>

typedef struct sg_region {
  uintptr_t begin, end; /* [begin, end) */
  uint32_t owner;       /* index of the parameter or buffer */
  const char *field;    /* which of its pointers */
} sg_region;

/* begin + bytes, saturated so that it never wraps below begin. Ranges
 * that would wrap are refused before regions are built; saturating keeps
 * the sweep's order sound whatever it is given. */
uintptr_t sg_region_end(uintptr_t begin, uint64_t bytes);

/* Sorts regions[0..n) and returns 1 with *a, *b set to an overlapping pair
 * of which at least one has owner >= first_new; 0 when there is none. */
int sg_regions_overlap(sg_region *regions, size_t n, uint32_t first_new,
                       sg_region *a, sg_region *b);

#endif

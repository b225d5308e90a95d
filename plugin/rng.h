/* Graph-safe RNG: a Philox seed and a 64-bit base offset in device memory.
 * Kernels read both and add the offset rng_reserve gave them within the
 * step; a captured end-of-step kernel advances the base offset. */
#ifndef SG_RNG_H
#define SG_RNG_H

#include <stdint.h>

#include "stepgraph.h"

typedef struct sg_session sg_session;

typedef struct sg_rng {
  uint64_t *device_state; /* [0] seed, [1] base offset; NULL if no device */
  uint64_t seed;          /* host copy of what was last set */
  uint64_t step_offset;   /* offsets reserved so far in this step */
} sg_rng;

sg_status sg_rng_open(sg_rng *r, sg_session *s);
void sg_rng_close(sg_rng *r, sg_session *s);

#endif

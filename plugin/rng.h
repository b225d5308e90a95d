/* Graph-safe RNG state: a Philox seed and a 64-bit base offset in device
 * memory. Kernels read both and add the offset rng_reserve gave them within
 * the step; a captured end-of-step kernel advances the base offset. The
 * entries are in rng_entries.c. */
#ifndef SG_RNG_H
#define SG_RNG_H

#include <cuda_runtime_api.h>
#include <stdbool.h>
#include <stdint.h>

#include "error.h"

typedef struct sg_rng {
  sg_diag *diag;          /* the session's, for failures */
  uint64_t *device_state; /* [0] seed, [1] base offset; NULL if no device */
  uint64_t seed;          /* host copy of what was last set */
  uint64_t step_offset;   /* offsets reserved so far in this step */
} sg_rng;

/* with_device: allocates the device state and sets it to (seed, 0) on
 * `stream`, waited for (the device is current). */
sg_status sg_rng_open(sg_rng *r, sg_diag *diag, uint64_t seed,
                      bool with_device, cudaStream_t stream);
void sg_rng_close(sg_rng *r);

/* Writes seed and base offset to the device, ordered after `stream`, and
 * waits for the copy. */
sg_status sg_rng_put(sg_rng *r, cudaStream_t stream, uint64_t seed,
                     uint64_t offset);

#endif

/* Graph-safe RNG state: a Philox seed and a 64-bit base offset in device
 * memory. Kernels read both and add the offset rng_reserve gave them within
 * the step; a captured end-of-step kernel advances the base offset. The
 * entries are in rng_entries.c.
 *
 * Without a device (validation-only sessions) the same state lives on the
 * host, so that a host's RNG calls can be exercised on a CPU machine: the
 * end of step adds to the host-side base offset instead of enqueueing, and
 * the device pointers are the ABI's placeholders. */
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
  uint64_t host_offset;   /* the base offset when there is no device */
  uint64_t step_offset;   /* offsets reserved so far in this step */
} sg_rng;

/* with_device: allocates the device state and sets it to (seed, 0) on
 * `stream`, waited for (the device is current). */
sg_status sg_rng_open(sg_rng *r, sg_diag *diag, uint64_t seed,
                      bool with_device, cudaStream_t stream);
void sg_rng_close(sg_rng *r);

/* Writes seed and base offset, ordered after `stream`, and waits for the
 * copy. */
sg_status sg_rng_put(sg_rng *r, cudaStream_t stream, uint64_t seed,
                     uint64_t offset);

/* Reads seed and base offset after `stream`'s work, waiting for it. */
sg_status sg_rng_get(sg_rng *r, cudaStream_t stream, uint64_t *seed,
                     uint64_t *offset);

/* Adds the step's reserved total to the base offset (one tiny kernel on
 * `stream`: capture-safe) and restarts the in-step offsets. */
sg_status sg_rng_advance(sg_rng *r, cudaStream_t stream);

/* Where kernels read the seed and the base offset (the placeholders
 * without a device). */
void sg_rng_pointers(const sg_rng *r, const uint64_t **seed,
                     const uint64_t **base_offset);

#endif

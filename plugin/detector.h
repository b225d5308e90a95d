/* The stale-transpose detector's state: its device block (transpose_check.h
 * in kernels/), the launch of one check, and the host copy of its findings
 * that get_stats reports. Knows nothing of the session: it gets the refresh
 * table and the registered parameters from the caller. */
#ifndef SG_DETECTOR_H
#define SG_DETECTOR_H

#include <cuda_runtime_api.h>
#include <stdbool.h>
#include <stdint.h>

#include "error.h"
#include "refresh.h"

/* What the last read found. */
typedef struct sg_findings {
  uint64_t checks;
  uint64_t stale_params;
  uint64_t first_check; /* UINT64_MAX: none */
  uint32_t first_param; /* UINT32_MAX: none */
} sg_findings;

typedef struct sg_detector {
  sg_diag *diag;
  bool enabled;
  uint32_t capacity;
  cudaStream_t aux;     /* the session's stream, for reads */
  void *state;          /* device block; NULL when off or without device */
  void *image;          /* host, pinned: a read lands here */
  sg_findings found;    /* as of the last read */
  bool logged;          /* the first finding has been logged */
} sg_detector;

/* enabled && with_device: allocates the device block for `capacity`
 * parameters and initialises it on `aux`, waited for. */
sg_status sg_detector_open(sg_detector *d, sg_diag *diag, bool enabled,
                           bool with_device, uint32_t capacity,
                           cudaStream_t aux);
void sg_detector_close(sg_detector *d);

/* One check of params[0..count) through the device refresh table on
 * `stream` (capture-safe); nothing when off or count is 0. */
sg_status sg_detector_check(sg_detector *d, const void *table,
                            const sg_k_param *params, uint32_t count,
                            int sm_count, cudaStream_t stream);

/* Copies the device block (after `stream`'s work, waited for) into d->found
 * and, when `mismatches` is not NULL, its first n counters there (zeros
 * past params[0..count), the registered ones). Logs the first finding once
 * (warning). Nothing but empty findings when off. */
sg_status sg_detector_read(sg_detector *d, cudaStream_t stream,
                           const sg_k_param *params, uint32_t count,
                           uint64_t *mismatches, uint32_t n);

#endif

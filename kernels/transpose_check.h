/* The stale-transpose detector's kernel behind a C launcher (prefix sg_k_):
 * one launch compares every parameter of a refresh table (refresh.h) —
 * Wt[j][i] against W[i][j], byte for byte — and counts the differing bytes
 * per parameter in a device state block. Includable from C11 and CUDA.
 *
 * The state block, sg_k_check_state_bytes(capacity) bytes of device memory
 * set up once with sg_k_check_state_init, holds: how many checks ran; the
 * first finding, packed as (check << SG_K_CHECK_INDEX_BITS) | param index,
 * kept as the minimum over all findings (so the earliest check, then the
 * lowest index at it); and one 64-bit mismatch counter per parameter,
 * indexed by its position in the caller's array (sg_k_desc.index).
 * Launches that share a state block must be ordered (one stream, or
 * events). */
#ifndef SG_KERNELS_TRANSPOSE_CHECK_H
#define SG_KERNELS_TRANSPOSE_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "refresh.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Parameter indices fit in this many bits (the plugin's capacity limit is
 * 2^20 parameters). */
#define SG_K_CHECK_INDEX_BITS 20
/* `first` when nothing was ever found. */
#define SG_K_CHECK_NONE UINT64_MAX

typedef struct sg_k_check_header {
  uint64_t checks;  /* launches completed */
  uint64_t first;   /* min over findings of check << 20 | index; NONE */
  uint32_t arrived; /* blocks of the launch in flight done; 0 between */
  uint32_t pad_;
  uint64_t pad2_;
} sg_k_check_header;

/* Bytes of a state block for `capacity` parameters: the header, then
 * `capacity` uint64 mismatch counters. */
size_t sg_k_check_state_bytes(uint32_t capacity);

/* Writes the initial state (no check run, nothing found, counters 0) into
 * host memory `image` of sg_k_check_state_bytes(capacity) bytes, for the
 * caller to copy to the device block. */
void sg_k_check_state_init(void *image, uint32_t capacity);

/* One launch on `stream` checking every parameter of the device refresh
 * table `table` (its transpose tiles; params[0..count) is the host array it
 * was built from, which sizes the grid). No allocation, no
 * synchronisation: legal inside a stream capture. cudaErrorInvalidValue
 * for a NULL table or state, or sm_count < 1. */
cudaError_t sg_k_check_launch(const void *table, void *state,
                              const sg_k_param *params, uint32_t count,
                              int sm_count, cudaStream_t stream);

/* Loads the kernel now (see sg_k_refresh_load). */
cudaError_t sg_k_check_load(void);

#ifdef __cplusplus
}
#endif

#endif /* SG_KERNELS_TRANSPOSE_CHECK_H */

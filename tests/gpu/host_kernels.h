/* Kernels of the host-integration GPU tests (prefix hk_): a stream held
 * back by a host flag, and a step that records the per-step inputs it
 * reads from static buffers. Each launcher enqueues on `stream` and
 * returns the launch's error; none synchronises or allocates. */
#ifndef SG_TEST_HOST_KERNELS_H
#define SG_TEST_HOST_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One kernel that spins until *flag (page-locked host memory) is nonzero,
 * or about 20 s have passed: the stream's later work waits for the host. */
cudaError_t hk_wait_flag(const volatile int *flag, cudaStream_t stream);

/* The per-step scalars a host computes (the pattern "per-step scalars live
 * in a small static buffer"). */
typedef struct hk_scalars {
  float lr;
  uint32_t step;
} hk_scalars;

/* What a step saw: its scalars and the sum of its token words. */
typedef struct hk_record {
  float lr;
  uint32_t step;
  unsigned long long checksum;
} hk_record;

/* *sum += the words of tokens[0..words) (integer atomics: any order gives
 * the same sum). */
cudaError_t hk_checksum(const uint32_t *tokens, size_t words,
                        unsigned long long *sum, cudaStream_t stream);

/* One thread: records[*counter] = {*scalars, *sum} (when *counter <
 * capacity), then *counter += 1 and *sum = 0 for the next step. */
cudaError_t hk_record_step(const hk_scalars *scalars,
                           unsigned long long *sum,
                           hk_record *records, uint32_t *counter,
                           uint32_t capacity, cudaStream_t stream);

/* Loads the kernels above (lazy loading would load them inside a capture). */
cudaError_t hk_preload(void);

#ifdef __cplusplus
}
#endif

#endif

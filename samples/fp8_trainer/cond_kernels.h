/* Kernels of the trainer's conditional features (prefix tr_k_), each one
 * launch on `stream` returning its cudaError_t; none allocates or
 * synchronises, so all may be captured, and every per-step value is read
 * from device memory. */
#ifndef TR_COND_KERNELS_H
#define TR_COND_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* *trip = counts[k] of the last k < entries with steps[k] <= *iter (the
 * first entry has step 0). */
cudaError_t tr_k_schedule(const uint32_t *iter, const uint32_t *steps,
                          const int32_t *counts, uint32_t entries,
                          int32_t *trip, cudaStream_t stream);

/* Microbatch *index draws its random numbers from counters
 * *mb_base = *base_offset + block + *index * per_microbatch on. */
cudaError_t tr_k_microbatch_rng(const uint64_t *base_offset, uint64_t block,
                                const uint32_t *index, uint64_t per_microbatch,
                                uint64_t *mb_base, cudaStream_t stream);

/* grad = (*index == 0 ? 0 : grad) + mb (n floats, a multiple of 4). */
cudaError_t tr_k_accumulate(float *grad, const float *mb, size_t n,
                            const uint32_t *index, cudaStream_t stream);

/* *finite = 1; grad[0] = NaN when *iter is one of faults[0..count). */
cudaError_t tr_k_arm_and_inject(float *grad, const uint32_t *iter,
                                const uint32_t *faults, uint32_t count,
                                int32_t *finite, cudaStream_t stream);

/* *finite = 0 when any of grad[0..n) is not finite (n a multiple of 4). */
cudaError_t tr_k_all_finite(const float *grad, size_t n, int32_t *finite,
                            cudaStream_t stream);

/* *counter += 1. */
cudaError_t tr_k_advance(uint32_t *counter, cudaStream_t stream);

/* Device memory a digest covers (bytes a multiple of 4). */
typedef struct tr_k_region {
  const void *p;
  size_t bytes;
} tr_k_region;

#define TR_DIGEST_REGIONS 6

/* digests[2 * *iter + phase] += an order-independent 64-bit hash of every
 * 32-bit word of the regions (a sum of mixed (region, index, word)); the
 * slot must start at 0; ignored past `capacity` slots. */
cudaError_t tr_k_digest(const tr_k_region *regions, const uint32_t *iter,
                        uint32_t phase, uint64_t *digests, uint32_t capacity,
                        cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif

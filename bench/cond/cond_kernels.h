/* The conditional benchmark's step (prefix ck_): a microbatch body of a
 * few memory-bound kernels that reads its inputs by the loop index, and
 * one update after the microbatches. Each launcher enqueues one kernel. */
#ifndef SG_BENCH_COND_KERNELS_H
#define SG_BENCH_COND_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* acc[i] += inputs[(*index % slices) * n + i]. */
cudaError_t ck_gather(float *acc, const float *inputs, const uint32_t *index,
                      uint32_t slices, size_t n, cudaStream_t stream);

/* v[i] = v[i] * 0.999 + 0.001. */
cudaError_t ck_work(float *v, size_t n, cudaStream_t stream);

/* w[i] -= 1e-3 * acc[i]; acc[i] = 0. */
cudaError_t ck_apply(float *w, float *acc, size_t n, cudaStream_t stream);

/* *p = v. */
cudaError_t ck_set(int32_t *p, int32_t v, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif

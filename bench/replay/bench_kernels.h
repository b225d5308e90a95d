/* The replay benchmark's kernel: one block of 32 threads adding v to *p,
 * about the smallest kernel a step launches. */
#ifndef SG_BENCH_KERNELS_H
#define SG_BENCH_KERNELS_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

cudaError_t bk_tiny(float *p, float v, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif

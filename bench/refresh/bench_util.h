/* Shared by the bench_refresh sources: a CUDA error check that aborts (a
 * benchmark has nothing to recover). */
#ifndef SG_BENCH_UTIL_H
#define SG_BENCH_UTIL_H

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>

#define BENCH_CUDA(call)                                                              \
  do {                                                                                \
    cudaError_t bench_err_ = (call);                                                  \
    if (bench_err_ != cudaSuccess) {                                                  \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                   \
              cudaGetErrorString(bench_err_));                                        \
      exit(1);                                                                        \
    }                                                                                 \
  } while (0)

#endif /* SG_BENCH_UTIL_H */

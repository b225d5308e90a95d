/* One CUDA return-code check for the programs around the plugin: samples,
 * benchmarks and tests. (The plugin has its own, SG_CUDA, which puts the
 * error in the session's detail message instead.) Header-only, for C and
 * CUDA sources. */
#ifndef SG_CUDA_CHECK_H
#define SG_CUDA_CHECK_H

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>

/* Whether err is a failure; if so, prints
 * "<file>:<line>: <call> failed: <cudaErrorName> (<description>)". */
static inline int sg_cuda_failed(cudaError_t err, const char *call,
                                 const char *file, int line) {
  if (err == cudaSuccess) {
    return 0;
  }
  fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", file, line, call,
          cudaGetErrorName(err), cudaGetErrorString(err));
  return 1;
}

/* For programs with nothing to recover after a failed CUDA call: reports it
 * and exits with status 1. */
#define SG_CHECK_CUDA(call)                                    \
  do {                                                         \
    if (sg_cuda_failed((call), #call, __FILE__, __LINE__)) {   \
      exit(EXIT_FAILURE);                                      \
    }                                                          \
  } while (0)

#endif /* SG_CUDA_CHECK_H */

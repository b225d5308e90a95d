/* Shared by every GPU test program: how a test treats a missing GPU (CUDA
 * return codes go through sg_cuda_check.h). Header-only so C and CUDA tests
 * both include it.
 *
 * Policy (README "How tests treat missing things"): without a usable GPU a
 * test exits 77, which CTest reports as skipped, with a one-line reason; with
 * STEPGRAPH_REQUIRE_GPU=1 in the environment it fails instead, so a run on the
 * GPU machine can never pass by skipping.
 *
 * Call sg_test_require_gpu() first thing in main(), before anything forks:
 * Check must run GPU suites with fork mode off (srunner_set_fork_status
 * CK_NOFORK) because a forked child cannot use the parent's CUDA context. */
#ifndef SG_GPU_TEST_H
#define SG_GPU_TEST_H

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SG_TEST_SKIP 77

static inline int sg_test_gpu_required(void) {
  const char *v = getenv("STEPGRAPH_REQUIRE_GPU");
  return v != NULL && strcmp(v, "1") == 0;
}

/* Exits the process (77, or 1 under STEPGRAPH_REQUIRE_GPU=1) unless a GPU
 * can run kernels of this build. */
static inline void sg_test_require_gpu(const char *test_name) {
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err == cudaSuccess && count > 0) {
    return;
  }
  const char *why = err != cudaSuccess ? cudaGetErrorName(err) : "0 devices";
  if (sg_test_gpu_required()) {
    fprintf(stderr, "%s: FAIL: STEPGRAPH_REQUIRE_GPU=1 but no usable GPU (%s)\n",
            test_name, why);
    exit(1);
  }
  printf("%s: SKIP: no usable GPU (%s)\n", test_name, why);
  exit(SG_TEST_SKIP);
}

#endif /* SG_GPU_TEST_H */

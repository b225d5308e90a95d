/* Built with --default-stream per-thread (tests/gpu/CMakeLists.txt). */
#include "per_thread_kernels.h"

namespace {

__global__ void add(int *p, int v) { *p += v; }

}  // namespace

extern "C" cudaError_t pt_add_on_default_stream(int *p, int v) {
  add<<<1, 1>>>(p, v);
  return cudaGetLastError();
}

extern "C" cudaError_t pt_preload(void) {
  cudaFuncAttributes a;
  return cudaFuncGetAttributes(&a, reinterpret_cast<const void *>(&add));
}

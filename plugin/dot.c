#include "dot.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* cudaGraphDebugDotPrint's flags: kernel, copy and memset parameters and
 * allocation sizes, without the handles (they change every run). */
#define DOT_FLAGS                                                   \
  (cudaGraphDebugDotFlagsKernelNodeParams |                         \
   cudaGraphDebugDotFlagsMemcpyNodeParams |                         \
   cudaGraphDebugDotFlagsMemsetNodeParams |                         \
   cudaGraphDebugDotFlagsHostNodeParams |                           \
   cudaGraphDebugDotFlagsEventNodeParams |                          \
   cudaGraphDebugDotFlagsKernelNodeAttributes |                     \
   cudaGraphDebugDotFlagsConditionalNodeParams)

bool sg_dot_write(cudaGraph_t graph, const char *path, char *why,
                  size_t cap) {
  /* Open it first: CUDA's failure says less than errno does. */
  FILE *f = fopen(path, "w");
  if (f == NULL) {
    snprintf(why, cap, "%s", strerror(errno));
    return false;
  }
  fclose(f);
  cudaError_t err = cudaGraphDebugDotPrint(graph, path, DOT_FLAGS);
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    snprintf(why, cap, "%s (%s)", cudaGetErrorName(err),
             cudaGetErrorString(err));
    return false;
  }
  return true;
}

#include "cuda_check.h"

sg_status sg_cuda(sg_diag *d, cudaError_t err, const char *call) {
  if (err == cudaSuccess) {
    return SG_OK;
  }
  /* Clear a non-sticky error so that the host's next cudaGetLastError does
   * not report ours a second time; the status carries it. */
  (void)cudaGetLastError();
  sg_status code = err == cudaErrorMemoryAllocation ? SG_ERR_OUT_OF_MEMORY
                                                    : SG_ERR_CUDA;
  return sg_fail(d, code, "%s failed: %s (%s)", call, cudaGetErrorName(err),
                 cudaGetErrorString(err));
}

sg_status sg_device_push(sg_diag *d, int device, sg_device_scope *scope) {
  scope->switched = false;
  sg_status st = SG_CUDA(d, cudaGetDevice(&scope->previous));
  if (st != SG_OK || scope->previous == device) {
    return st;
  }
  st = SG_CUDA(d, cudaSetDevice(device));
  scope->switched = st == SG_OK;
  return st;
}

void sg_device_pop(const sg_device_scope *scope) {
  if (scope->switched) {
    (void)cudaSetDevice(scope->previous);
  }
}

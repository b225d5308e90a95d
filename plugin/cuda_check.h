/* The one helper through which every CUDA return code passes, and the scope
 * that makes the session's device current for an entry and restores the
 * caller's afterwards. */
#ifndef SG_CUDA_CHECK_H
#define SG_CUDA_CHECK_H

#include <cuda_runtime_api.h>
#include <stdbool.h>

#include "error.h"

/* SG_OK, or fails with "<call> failed: <cudaErrorName> (<text>)"
 * (SG_ERR_OUT_OF_MEMORY for allocation failures, else SG_ERR_CUDA) through
 * d (NULL: the thread's message). */
sg_status sg_cuda(sg_diag *d, cudaError_t err, const char *call);
#define SG_CUDA(d, call) sg_cuda((d), (call), #call)

typedef struct sg_device_scope {
  int previous;
  bool switched;
} sg_device_scope;

/* Makes `device` current for this thread, remembering the caller's. */
sg_status sg_device_push(sg_diag *d, int device, sg_device_scope *scope);
/* Restores the caller's device. */
void sg_device_pop(const sg_device_scope *scope);

#endif

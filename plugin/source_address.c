#include "source_address.h"

#include "cuda_check.h"

sg_status sg_source_address(sg_diag *d, int device, const void *src,
                            uint32_t index, const void **out) {
  struct cudaPointerAttributes a;
  sg_status st = SG_CUDA(d, cudaPointerGetAttributes(&a, src));
  if (st != SG_OK) {
    return st;
  }
  switch (a.type) {
    case cudaMemoryTypeHost:
      if (a.devicePointer == NULL) {
        return sg_fail(d, SG_ERR_INVALID_ARGUMENT,
                       "args->static_sources[%u] (%p) is page-locked host "
                       "memory that device %d cannot address (registered "
                       "for another context without "
                       "cudaHostRegisterPortable?)",
                       (unsigned)index, src, device);
      }
      *out = a.devicePointer;
      return SG_OK;
    case cudaMemoryTypeManaged:
      *out = src;
      return SG_OK;
    case cudaMemoryTypeDevice:
      if (a.device != device) {
        return sg_fail(d, SG_ERR_INVALID_ARGUMENT,
                       "args->static_sources[%u] (%p) is memory of device "
                       "%d, the session's is device %d",
                       (unsigned)index, src, a.device, device);
      }
      *out = src;
      return SG_OK;
    default:
      return sg_fail(d, SG_ERR_INVALID_ARGUMENT,
                     "args->static_sources[%u] (%p) is pageable host memory "
                     "(malloc, the stack), which the copy kernel cannot "
                     "read: allocate it with cudaMallocHost or "
                     "cudaHostAlloc, or page-lock it with cudaHostRegister",
                     (unsigned)index, src);
  }
}

/* replay's static-input copies: up to SG_K_COPY_MAX device-to-device copies
 * in one kernel launch, behind a C launcher. Includable from C11 and CUDA.
 * Prefix sg_k_.
 *
 * One launch for all of a replay's sources instead of one cudaMemcpyAsync
 * each: the host pays about one launch whatever the number of copies. The
 * copies are described in the kernel's parameters (no device table), so the
 * launcher needs no allocation and no synchronisation. */
#ifndef SG_KERNELS_STATIC_COPY_H
#define SG_KERNELS_STATIC_COPY_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SG_K_COPY_MAX 64u

typedef struct sg_k_copy {
  void *dst;       /* device memory (or memory the device can address) */
  const void *src; /* likewise; must not overlap dst */
  uint64_t bytes;  /* 0 copies nothing */
} sg_k_copy;

typedef struct sg_k_copy_batch {
  uint32_t count; /* 1..SG_K_COPY_MAX */
  uint32_t pad_;
  sg_k_copy items[SG_K_COPY_MAX];
} sg_k_copy_batch;

/* Enqueues one kernel on `stream` doing batch->items[0..count) (the batch is
 * read during the call only). Any alignment; 16-byte vectors where the dst
 * and src addresses agree modulo 16. sm_count (>= 1) sizes the grid.
 * Returns cudaErrorInvalidValue for a NULL batch, a count of 0 or over
 * SG_K_COPY_MAX, or sm_count < 1; else cudaLaunchKernel's result. */
cudaError_t sg_k_copy_launch(const sg_k_copy_batch *batch, int sm_count,
                             cudaStream_t stream);

/* Loads the kernel now (lazy loading would load it at its first launch). */
cudaError_t sg_k_copy_load(void);

#ifdef __cplusplus
}
#endif

#endif /* SG_KERNELS_STATIC_COPY_H */

/* The graph-safe RNG's end-of-step kernel behind a C launcher. Includable
 * from C11 and CUDA. Prefix sg_k_.
 *
 * The session keeps a Philox seed and a 64-bit base offset in device memory.
 * Kernels that draw random numbers read both and add the offset the host
 * reserved for them within the step; at the end of the step one tiny kernel
 * adds the step's reserved total to the base offset. Captured into a graph,
 * that kernel's `count` is baked in, so every replay advances the offset by
 * the same amount as the eager step did. */
#ifndef SG_KERNELS_RNG_H
#define SG_KERNELS_RNG_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Enqueues one single-thread kernel on `stream` that does
 * *base_offset += count (wrapping modulo 2^64). No allocation, no
 * synchronisation: legal inside a stream capture. Returns
 * cudaErrorInvalidValue for a NULL base_offset, else cudaLaunchKernel's
 * result. */
cudaError_t sg_k_rng_advance(uint64_t *base_offset, uint64_t count,
                             cudaStream_t stream);

/* Loads the kernel now. With lazy loading (CUDA's default) a kernel's
 * module is loaded at its first launch, which may fall inside a capture;
 * the session loads it when it is created instead. */
cudaError_t sg_k_rng_load(void);

#ifdef __cplusplus
}
#endif

#endif /* SG_KERNELS_RNG_H */

/* The refresh's cross-rank amax reduction (SG_REFRESH_REDUCE_AMAX) around
 * one collective: a gather of the selected parameters' amax into one
 * contiguous buffer that the collective reduces in place, and a scatter of
 * the reduced values back. Includable from C11 and CUDA. Prefix sg_k_.
 *
 * Both read the refresh's device table (refresh.h): parameter i of the
 * caller's array (registration order) owns buffer slot i - first, for i in
 * [first, first + span). Slots are amax bit patterns (uint32): amax is a
 * non-negative float, whose bits order like its value, with a NaN above
 * every number, so a MAX over the bits is the MAX over the values and a
 * NaN wins, as it does within one parameter. No allocation, no
 * synchronisation: both may be captured. */
#ifndef SG_KERNELS_AMAX_REDUCE_H
#define SG_KERNELS_AMAX_REDUCE_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* buffer[i - first] = the bits of parameter i's amax when it is selected
 * (its group is `group`, or group is SG_K_ALL_GROUPS, and it has an amax),
 * 0 when it is not, for every i in the span. count_hint: the number of
 * registered parameters, which sizes the grid (the kernel reads the real
 * count from the table). cudaErrorInvalidValue for a NULL table or buffer
 * or a span of 0, else cudaLaunchKernel's result. */
cudaError_t sg_k_amax_gather(const void *device_table, uint32_t group,
                             uint32_t first, uint32_t span, uint32_t *buffer,
                             uint32_t count_hint, cudaStream_t stream);

/* The way back: parameter i's amax = buffer[i - first] (as float bits) for
 * every selected i in the span; the others are not written. */
cudaError_t sg_k_amax_scatter(const void *device_table, uint32_t group,
                              uint32_t first, uint32_t span,
                              const uint32_t *buffer, uint32_t count_hint,
                              cudaStream_t stream);

/* Loads both kernels now (lazy loading would load them at their first
 * launch, maybe inside a capture). */
cudaError_t sg_k_amax_load(void);

#ifdef __cplusplus
}
#endif

#endif /* SG_KERNELS_AMAX_REDUCE_H */

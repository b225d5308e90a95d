/* The kernels of conditional regions behind a C launcher (prefix sg_k_):
 * one-thread kernels that set an IF or WHILE node's condition from device
 * memory inside a captured graph, and the eager loop's index writes.
 * Includable from C11 and CUDA.
 *
 * A guard is captured as  [cond_if] -> IF{ body },  a loop as
 * [loop_start] -> WHILE{ body, [loop_step] }: the condition is set on the
 * device before the node and, for a loop, at the end of every iteration,
 * so the host never decides. None allocates or synchronises. */
#ifndef SG_KERNELS_CONDITIONAL_H
#define SG_KERNELS_CONDITIONAL_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A cudaGraphConditionalHandle (an unsigned long long) as C sees it. */
typedef uint64_t sg_k_cond_handle;

/* Captured before an IF node: its condition = (*flag != 0). */
cudaError_t sg_k_cond_if(sg_k_cond_handle handle, const int32_t *flag,
                         cudaStream_t stream);

/* Captured before a WHILE node: *index = 0, condition = (*trip > 0). */
cudaError_t sg_k_cond_loop_start(sg_k_cond_handle handle, uint32_t *index,
                                 const int32_t *trip, cudaStream_t stream);

/* Captured last in a WHILE body: *index += 1, condition =
 * (*index < *trip). */
cudaError_t sg_k_cond_loop_step(sg_k_cond_handle handle, uint32_t *index,
                                const int32_t *trip, cudaStream_t stream);

/* Eager loops (no graph, no condition): *index = 0, and *index += 1. */
cudaError_t sg_k_index_reset(uint32_t *index, cudaStream_t stream);
cudaError_t sg_k_index_advance(uint32_t *index, cudaStream_t stream);

/* Loads these kernels now (lazy loading would load them at their first
 * launch, which is inside a capture). Once per device, outside capture. */
cudaError_t sg_k_cond_load(void);

#ifdef __cplusplus
}
#endif

#endif /* SG_KERNELS_CONDITIONAL_H */

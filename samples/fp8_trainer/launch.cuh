/* Grid shapes shared by the trainer's elementwise kernels: one thread per
 * four consecutive elements (16-byte loads), 256 threads a block. */
#ifndef TR_LAUNCH_CUH
#define TR_LAUNCH_CUH

#include <stddef.h>

#define TR_BLOCK 256

static inline unsigned int tr_blocks_for(size_t n) {
  return (unsigned int)((n / 4 + TR_BLOCK - 1) / TR_BLOCK);
}

/* Which group of four elements this thread owns (its first element's index
 * is 4 * the result). */
__device__ __forceinline__ size_t tr_quad_index() {
  return (size_t)blockIdx.x * blockDim.x + threadIdx.x;
}

#endif

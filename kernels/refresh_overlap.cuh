/* Programmatic dependent launch between the kernels of one refresh launch
 * that touch disjoint bytes: a split transpose's or cast-transpose's rest
 * (general instance) after its whole part, and the grid transpose after
 * the tiles. Launched with the programmatic attribute (refresh_kernel.cu),
 * such a kernel may start once every block of the kernel before it has
 * begun (each transpose and split cast-transpose lets its dependents start
 * first thing), instead of after that kernel has ended: the launch latency
 * and the first kernel's tail then overlap the second's work. Before it
 * exits, the second waits for the first to end, so its own end still means
 * both have ended, and the stream's next work (which waits for the last
 * kernel only) sees every byte of the launch. Both are no-ops where the
 * kernel was launched without the attribute, and before sm_90, which has
 * none. */
#ifndef SG_KERNELS_REFRESH_OVERLAP_CUH
#define SG_KERNELS_REFRESH_OVERLAP_CUH

/* Lets the stream's next kernel, if launched programmatically, start. */
__device__ __forceinline__ void sg_k_let_dependents_start() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

/* Waits, when it goes out of scope (every return path of a kernel), for
 * the kernel this one was launched programmatically after to end. */
struct sg_k_wait_before_exit {
  __device__ __forceinline__ ~sg_k_wait_before_exit() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
  }
};

#endif /* SG_KERNELS_REFRESH_OVERLAP_CUH */

/* A "stray" launch for the per-thread default stream test: its source is
 * compiled with --default-stream per-thread and launches with no stream
 * argument, as code not written for graphs does. Prefix pt_. */
#ifndef SG_TEST_PER_THREAD_KERNELS_H
#define SG_TEST_PER_THREAD_KERNELS_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* *p += v on the default stream, which this file's build makes the calling
 * thread's per-thread stream (so a capture on cudaStreamPerThread records
 * it). */
cudaError_t pt_add_on_default_stream(int *p, int v);

cudaError_t pt_preload(void);

#ifdef __cplusplus
}
#endif

#endif

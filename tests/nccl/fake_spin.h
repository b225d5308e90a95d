/* The test double's never-ending collective: a kernel spinning on a flag in
 * host-mapped memory, as NCCL's kernels spin on their peers' progress. */
#ifndef SG_FAKE_SPIN_H
#define SG_FAKE_SPIN_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One block that returns when *flag (host-mapped) becomes nonzero, or after
 * max_seconds so that a broken test cannot hold the GPU forever. */
cudaError_t fake_spin_launch(const volatile int *flag, unsigned max_seconds,
                             cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif

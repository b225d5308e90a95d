/* The kernels of conditional regions: conditional.h says what each does. */
#include "conditional.h"

namespace {

__global__ void cond_if_kernel(cudaGraphConditionalHandle handle,
                               const int32_t *flag) {
  cudaGraphSetConditional(handle, *flag != 0 ? 1u : 0u);
}

__global__ void loop_start_kernel(cudaGraphConditionalHandle handle,
                                  uint32_t *index, const int32_t *trip) {
  *index = 0u;
  cudaGraphSetConditional(handle, *trip > 0 ? 1u : 0u);
}

__global__ void loop_step_kernel(cudaGraphConditionalHandle handle,
                                 uint32_t *index, const int32_t *trip) {
  const uint32_t next = *index + 1u;
  *index = next;
  /* 64-bit: a trip count above 2^31 cannot be, one below 0 never runs. */
  cudaGraphSetConditional(
      handle, static_cast<int64_t>(next) < static_cast<int64_t>(*trip) ? 1u : 0u);
}

__global__ void index_reset_kernel(uint32_t *index) { *index = 0u; }

__global__ void index_advance_kernel(uint32_t *index) { *index += 1u; }

cudaError_t launch(const void *kernel, void **args, cudaStream_t stream) {
  return cudaLaunchKernel(kernel, dim3(1), dim3(1), args, 0, stream);
}

}  // namespace

extern "C" cudaError_t sg_k_cond_if(sg_k_cond_handle handle,
                                    const int32_t *flag, cudaStream_t stream) {
  cudaGraphConditionalHandle h = handle;
  void *args[] = {&h, &flag};
  return launch(reinterpret_cast<const void *>(&cond_if_kernel), args, stream);
}

extern "C" cudaError_t sg_k_cond_loop_start(sg_k_cond_handle handle,
                                            uint32_t *index,
                                            const int32_t *trip,
                                            cudaStream_t stream) {
  cudaGraphConditionalHandle h = handle;
  void *args[] = {&h, &index, &trip};
  return launch(reinterpret_cast<const void *>(&loop_start_kernel), args,
                stream);
}

extern "C" cudaError_t sg_k_cond_loop_step(sg_k_cond_handle handle,
                                           uint32_t *index,
                                           const int32_t *trip,
                                           cudaStream_t stream) {
  cudaGraphConditionalHandle h = handle;
  void *args[] = {&h, &index, &trip};
  return launch(reinterpret_cast<const void *>(&loop_step_kernel), args,
                stream);
}

extern "C" cudaError_t sg_k_index_reset(uint32_t *index, cudaStream_t stream) {
  void *args[] = {&index};
  return launch(reinterpret_cast<const void *>(&index_reset_kernel), args,
                stream);
}

extern "C" cudaError_t sg_k_index_advance(uint32_t *index,
                                          cudaStream_t stream) {
  void *args[] = {&index};
  return launch(reinterpret_cast<const void *>(&index_advance_kernel), args,
                stream);
}

extern "C" cudaError_t sg_k_cond_load(void) {
  const void *kernels[] = {
      reinterpret_cast<const void *>(&cond_if_kernel),
      reinterpret_cast<const void *>(&loop_start_kernel),
      reinterpret_cast<const void *>(&loop_step_kernel),
      reinterpret_cast<const void *>(&index_reset_kernel),
      reinterpret_cast<const void *>(&index_advance_kernel)};
  cudaFuncAttributes attributes;
  cudaError_t err = cudaSuccess;
  for (const void *k : kernels) {
    if (err == cudaSuccess) {
      err = cudaFuncGetAttributes(&attributes, k);
    }
  }
  return err;
}

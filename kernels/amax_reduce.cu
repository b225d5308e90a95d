/* Gather and scatter of amax bits around the refresh's amax collective:
 * one thread per descriptor of the table, grid-stride. */
#include "amax_reduce.h"
#include "refresh_table.h"

namespace {

constexpr unsigned kThreads = 256;
constexpr uint32_t kMaxBlocks = 1024;

/* The slot of descriptor d, or -1 when d is outside the span. */
__device__ __forceinline__ int64_t slot_of(const sg_k_desc &d, uint32_t first,
                                           uint32_t span) {
  return d.index >= first && d.index - first < span
             ? static_cast<int64_t>(d.index - first)
             : -1;
}

__device__ __forceinline__ bool selected(const sg_k_desc &d, uint32_t group) {
  return d.amax != nullptr && (group == SG_K_ALL_GROUPS || d.group == group);
}

__device__ __forceinline__ const sg_k_desc *descs_of(const void *table) {
  return reinterpret_cast<const sg_k_desc *>(
      static_cast<const char *>(table) + sg_k_descs_offset());
}

__global__ void gather_kernel(const void *table, uint32_t group,
                              uint32_t first, uint32_t span,
                              uint32_t *buffer) {
  const uint32_t count = static_cast<const sg_k_table *>(table)->count;
  const sg_k_desc *descs = descs_of(table);
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < count;
       i += gridDim.x * blockDim.x) {
    const int64_t slot = slot_of(descs[i], first, span);
    if (slot >= 0) {
      buffer[slot] = selected(descs[i], group)
                         ? __float_as_uint(*descs[i].amax)
                         : 0u;
    }
  }
}

__global__ void scatter_kernel(const void *table, uint32_t group,
                               uint32_t first, uint32_t span,
                               const uint32_t *buffer) {
  const uint32_t count = static_cast<const sg_k_table *>(table)->count;
  const sg_k_desc *descs = descs_of(table);
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < count;
       i += gridDim.x * blockDim.x) {
    const int64_t slot = slot_of(descs[i], first, span);
    if (slot >= 0 && selected(descs[i], group)) {
      *descs[i].amax = __uint_as_float(buffer[slot]);
    }
  }
}

unsigned blocks_for(uint32_t count_hint) {
  const uint32_t blocks = (count_hint + kThreads - 1) / kThreads;
  return blocks < 1 ? 1u : (blocks > kMaxBlocks ? kMaxBlocks : blocks);
}

}  // namespace

extern "C" cudaError_t sg_k_amax_gather(const void *device_table,
                                        uint32_t group, uint32_t first,
                                        uint32_t span, uint32_t *buffer,
                                        uint32_t count_hint,
                                        cudaStream_t stream) {
  if (device_table == nullptr || buffer == nullptr || span == 0) {
    return cudaErrorInvalidValue;
  }
  gather_kernel<<<blocks_for(count_hint), kThreads, 0, stream>>>(
      device_table, group, first, span, buffer);
  return cudaGetLastError();
}

extern "C" cudaError_t sg_k_amax_scatter(const void *device_table,
                                         uint32_t group, uint32_t first,
                                         uint32_t span,
                                         const uint32_t *buffer,
                                         uint32_t count_hint,
                                         cudaStream_t stream) {
  if (device_table == nullptr || buffer == nullptr || span == 0) {
    return cudaErrorInvalidValue;
  }
  scatter_kernel<<<blocks_for(count_hint), kThreads, 0, stream>>>(
      device_table, group, first, span, buffer);
  return cudaGetLastError();
}

extern "C" cudaError_t sg_k_amax_load(void) {
  cudaFuncAttributes a;
  cudaError_t err =
      cudaFuncGetAttributes(&a, reinterpret_cast<const void *>(&gather_kernel));
  if (err == cudaSuccess) {
    err = cudaFuncGetAttributes(
        &a, reinterpret_cast<const void *>(&scatter_kernel));
  }
  return err;
}

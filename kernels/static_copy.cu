/* Batched device-to-device copies: grid.y picks the copy, grid.x blocks
 * stride over its bytes. */
#include "static_copy.h"

namespace {

constexpr unsigned kThreads = 256;
/* About this many bytes per block before the grid stops growing. */
constexpr uint64_t kBytesPerBlock = 64 * 1024;
constexpr uint64_t kBlocksPerSm = 8;

/* Copies n bytes with T-sized moves for the part where d is T-aligned (d and
 * s agree modulo sizeof(T)), bytes for the head and tail. */
template <typename T>
__device__ void copy_as(uint8_t *d, const uint8_t *s, uint64_t n,
                        uint64_t tid, uint64_t threads) {
  const uint64_t size = sizeof(T);
  uint64_t head = (size - (reinterpret_cast<uintptr_t>(d) & (size - 1))) &
                  (size - 1);
  head = head < n ? head : n;
  const uint64_t body = (n - head) / size;
  T *dv = reinterpret_cast<T *>(d + head);
  const T *sv = reinterpret_cast<const T *>(s + head);
  for (uint64_t i = tid; i < body; i += threads) {
    dv[i] = sv[i];
  }
  for (uint64_t i = tid; i < head; i += threads) {
    d[i] = s[i];
  }
  for (uint64_t i = head + body * size + tid; i < n; i += threads) {
    d[i] = s[i];
  }
}

__global__ void copy_batch(const sg_k_copy_batch batch) {
  const sg_k_copy c = batch.items[blockIdx.y];
  uint8_t *d = static_cast<uint8_t *>(c.dst);
  const uint8_t *s = static_cast<const uint8_t *>(c.src);
  const uint64_t threads = static_cast<uint64_t>(gridDim.x) * blockDim.x;
  const uint64_t tid =
      static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const uintptr_t skew =
      reinterpret_cast<uintptr_t>(d) ^ reinterpret_cast<uintptr_t>(s);
  if ((skew & 15) == 0) {
    copy_as<uint4>(d, s, c.bytes, tid, threads);
  } else if ((skew & 3) == 0) {
    copy_as<uint32_t>(d, s, c.bytes, tid, threads);
  } else {
    copy_as<uint8_t>(d, s, c.bytes, tid, threads);
  }
}

}  // namespace

extern "C" cudaError_t sg_k_copy_launch(const sg_k_copy_batch *batch,
                                        int sm_count, cudaStream_t stream) {
  if (batch == nullptr || batch->count == 0 ||
      batch->count > SG_K_COPY_MAX || sm_count < 1) {
    return cudaErrorInvalidValue;
  }
  uint64_t largest = 0;
  for (uint32_t i = 0; i < batch->count; i++) {
    largest = batch->items[i].bytes > largest ? batch->items[i].bytes
                                              : largest;
  }
  uint64_t blocks = (largest + kBytesPerBlock - 1) / kBytesPerBlock;
  const uint64_t cap = static_cast<uint64_t>(sm_count) * kBlocksPerSm;
  blocks = blocks < 1 ? 1 : (blocks > cap ? cap : blocks);
  void *args[] = {const_cast<sg_k_copy_batch *>(batch)};
  return cudaLaunchKernel(reinterpret_cast<const void *>(&copy_batch),
                          dim3(static_cast<unsigned>(blocks), batch->count),
                          dim3(kThreads), args, 0, stream);
}

extern "C" cudaError_t sg_k_copy_load(void) {
  cudaFuncAttributes attributes;
  return cudaFuncGetAttributes(&attributes,
                               reinterpret_cast<const void *>(&copy_batch));
}

/* Block scaling's dequantization (recipe.h): one thread per element, a
 * grid-stride loop over every layer's matrix. */
#include <cuda_bf16.h>
#include <cuda_fp8.h>

#include "launch.cuh"
#include "recipe.h"

__global__ void dequant_blocks_kernel(const uint8_t *codes, const float *grid, uint16_t *dst,
                                      size_t total, uint32_t n, uint32_t blocks) {
  const size_t per_layer = (size_t)n * n;
  for (size_t e = (size_t)blockIdx.x * blockDim.x + threadIdx.x; e < total;
       e += (size_t)gridDim.x * blockDim.x) {
    const size_t l = e / per_layer;
    const uint32_t rc = (uint32_t)(e - l * per_layer);
    const uint32_t r = rc / n, c = rc % n;
    const float scale_inv = grid[(l * blocks + r / 128u) * blocks + c / 128u];
    __nv_fp8_e4m3 code;
    code.__x = codes[e];
    const __nv_bfloat16 v = __float2bfloat16_rn(static_cast<float>(code) * scale_inv);
    dst[e] = *reinterpret_cast<const uint16_t *>(&v);
  }
}

extern "C" cudaError_t tr_k_dequant_blocks(const uint8_t *codes, const float *grid,
                                           uint16_t *dst, uint32_t layers, uint32_t n,
                                           uint32_t blocks, cudaStream_t stream) {
  const size_t total = (size_t)layers * n * n;
  dequant_blocks_kernel<<<tr_blocks_for(total), TR_BLOCK, 0, stream>>>(codes, grid, dst, total,
                                                                       n, blocks);
  return cudaGetLastError();
}

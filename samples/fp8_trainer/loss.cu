/* The MSE loss and its gradient, with a deterministic reduction: per-block
 * partial sums in a fixed tree order, then the last block to finish adds
 * the partials, again in a fixed order. Float atomics would make the loss
 * depend on block timing, and eager and graph runs must agree bit for bit. */
#include <cuda_bf16.h>
#include <cuda_fp8.h>

#include "kernels.h"
#include "launch.cuh"
#include "quant.cuh"

/* The block's sum of `mine`, in a fixed tree order; valid in thread 0. */
__device__ float block_sum(float mine) {
  __shared__ float s[TR_BLOCK];
  s[threadIdx.x] = mine;
  __syncthreads();
  for (unsigned int half = TR_BLOCK / 2; half > 0; half >>= 1) {
    if (threadIdx.x < half) {
      s[threadIdx.x] += s[threadIdx.x + half];
    }
    __syncthreads();
  }
  return s[0];
}

/* Thread 0 publishes the block's partial; true in the block that arrives
 * last, which then sees every partial. */
__device__ bool publish_partial(float sum, tr_k_loss_scratch scratch) {
  __shared__ bool last;
  if (threadIdx.x == 0) {
    scratch.partials[blockIdx.x] = sum;
    __threadfence();
    last = atomicAdd(scratch.arrived, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  return last;
}

/* Run by the last block: the partials in a fixed order, the mean into the
 * step's slot, and the arrival counter reset for the next launch. */
__device__ void finish_loss(tr_k_loss_scratch scratch, float *losses,
                            const uint32_t *step, uint32_t capacity,
                            size_t n) {
  float mine = 0.0f;
  for (unsigned int j = threadIdx.x; j < gridDim.x; j += blockDim.x) {
    mine += __ldcg(scratch.partials + j); /* L2: other blocks wrote them */
  }
  const float total = block_sum(mine);
  if (threadIdx.x == 0) {
    const uint32_t slot = *step;
    if (slot < capacity) {
      losses[slot] = total / (float)n;
    }
    *scratch.arrived = 0u;
  }
}

__global__ void __launch_bounds__(TR_BLOCK)
mse_loss_kernel(const void *y, const float4 *target, tr_k_operand grad,
                tr_k_loss_scratch scratch, float *losses, const uint32_t *step,
                uint32_t capacity, size_t n) {
  const size_t i = tr_quad_index();
  float squares = 0.0f, amax = 0.0f;
  if (i < n / 4) {
    const float4 a = tr_load_bf16x4(y, i), t = target[i];
    const float4 d = make_float4(a.x - t.x, a.y - t.y, a.z - t.z, a.w - t.w);
    squares = (d.x * d.x + d.y * d.y) + (d.z * d.z + d.w * d.w);
    amax = tr_quantize4<__NV_E5M2>(
        grad, 4 * i,
        make_float4(2.0f * d.x, 2.0f * d.y, 2.0f * d.z, 2.0f * d.w));
  }
  tr_amax_commit(grad.amax, amax);
  const float sum = block_sum(squares);
  if (publish_partial(sum, scratch)) {
    finish_loss(scratch, losses, step, capacity, n);
  }
}

extern "C" uint32_t tr_k_loss_blocks(size_t n) { return tr_blocks_for(n); }

extern "C" cudaError_t tr_k_mse_loss(const void *y, const float *target,
                                     tr_k_operand grad,
                                     tr_k_loss_scratch scratch, float *losses,
                                     const uint32_t *step, uint32_t capacity,
                                     size_t n, cudaStream_t stream) {
  mse_loss_kernel<<<tr_blocks_for(n), TR_BLOCK, 0, stream>>>(
      y, reinterpret_cast<const float4 *>(target), grad, scratch, losses, step,
      capacity, n);
  return cudaGetLastError();
}

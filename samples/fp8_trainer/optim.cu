/* The optimizer and the FP8 scale bookkeeping: AdamW over all masters in
 * one launch, and the delayed-scaling update of every tensor's scale in
 * another. Both read the step count (and AdamW the learning rate) from
 * device memory, so a captured graph applies the right values at every
 * replay. */
#include "kernels.h"
#include "launch.cuh"

/* Bias corrections of the moments for the step about to be taken. */
struct corrections {
  float c1, c2, rate;
};

__device__ __forceinline__ void adamw_one(float &w, float g, float &m,
                                          float &v, const tr_k_adamw_hyper &h,
                                          const corrections &c) {
  m = h.beta1 * m + (1.0f - h.beta1) * g;
  v = h.beta2 * v + (1.0f - h.beta2) * g * g;
  const float update = (m * c.c1) / (sqrtf(v * c.c2) + h.eps);
  w -= c.rate * (update + h.weight_decay * w);
}

__global__ void adamw_kernel(float4 *master, const float4 *grad, float4 *m,
                             float4 *v, size_t quads, const uint32_t *step,
                             const float *lr, tr_k_adamw_hyper h) {
  const size_t i = tr_quad_index();
  if (i >= quads) {
    return;
  }
  const float t = (float)(*step + 1u);
  const corrections c = {1.0f / (1.0f - powf(h.beta1, t)),
                         1.0f / (1.0f - powf(h.beta2, t)), *lr};
  float4 w = master[i], mi = m[i], vi = v[i];
  const float4 g = grad[i];
  adamw_one(w.x, g.x, mi.x, vi.x, h, c);
  adamw_one(w.y, g.y, mi.y, vi.y, h, c);
  adamw_one(w.z, g.z, mi.z, vi.z, h, c);
  adamw_one(w.w, g.w, mi.w, vi.w, h, c);
  master[i] = w;
  m[i] = mi;
  v[i] = vi;
}

/* Largest finite value of tensor t's format: W and X are E4M3, G E5M2. */
__device__ float largest_finite(uint32_t t, uint32_t layers) {
  return t < 2u * layers ? 448.0f : 57344.0f;
}

__device__ void update_one(tr_k_fp8_meta meta, uint32_t t, uint32_t slot) {
  float *hist = meta.history + (size_t)t * TR_AMAX_HISTORY;
  const size_t at = (size_t)t * TR_META_STRIDE;
  hist[slot] = meta.amax[at];
  float peak = 0.0f;
  for (int k = 0; k < TR_AMAX_HISTORY; k++) {
    peak = fmaxf(peak, hist[k]);
  }
  if (peak > 0.0f && isfinite(peak)) {
    /* One binade of margin below the largest finite value. */
    meta.scale[at] = largest_finite(t, meta.layers) / peak * 0.5f;
  }
  if (t >= meta.layers) { /* X and G: ours; W's belong to the refresh */
    meta.scale_inv[at] = 1.0f / meta.scale[at];
    meta.amax[at] = 0.0f;
  }
}

__global__ void update_scales_kernel(tr_k_fp8_meta meta, uint32_t *step,
                                     int advance_step) {
  const uint32_t slot = *step % TR_AMAX_HISTORY;
  for (uint32_t t = threadIdx.x; t < 3u * meta.layers; t += blockDim.x) {
    update_one(meta, t, slot);
  }
  __syncthreads(); /* every thread has read *step */
  if (advance_step != 0 && threadIdx.x == 0) {
    *step += 1u;
  }
}

extern "C" cudaError_t tr_k_adamw(float *master, const float *grad, float *m,
                                  float *v, size_t n, const uint32_t *step,
                                  const float *lr, tr_k_adamw_hyper h,
                                  cudaStream_t stream) {
  adamw_kernel<<<tr_blocks_for(n), TR_BLOCK, 0, stream>>>(
      reinterpret_cast<float4 *>(master),
      reinterpret_cast<const float4 *>(grad), reinterpret_cast<float4 *>(m),
      reinterpret_cast<float4 *>(v), n / 4, step, lr, h);
  return cudaGetLastError();
}

extern "C" cudaError_t tr_k_update_scales(tr_k_fp8_meta meta, uint32_t *step,
                                          int advance_step,
                                          cudaStream_t stream) {
  update_scales_kernel<<<1, TR_BLOCK, 0, stream>>>(meta, step, advance_step);
  return cudaGetLastError();
}

/* The trainer's CUDA kernels behind C launchers (prefix tr_k_). Each returns
 * the launch's cudaError_t. None allocates or synchronises, so each can be
 * captured into a graph; every per-step value (step count, learning rate,
 * scales, RNG offsets) is read from device memory, never baked in.
 *
 * Elementwise kernels take n, the element count, a multiple of 4 (all
 * dimensions are multiples of 16), and 16-byte aligned pointers. */
#ifndef TR_KERNELS_H
#define TR_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The plugin's graph-safe RNG as a kernel sees it (see philox.cuh). */
typedef struct tr_rng_stream {
  const uint64_t *seed;        /* device */
  const uint64_t *base_offset; /* device; advanced by rng_end_step */
  uint64_t offset;             /* rng_reserve's answer for this kernel */
} tr_rng_stream;

/* Philox counters a random kernel reserves for n elements: one counter
 * (four 32-bit words) per four elements. */
uint64_t tr_k_rng_counters(size_t n);

/* An FP8 GEMM operand written by a kernel: codes, BF16 copy, the scale
 * applied, and this step's amax (float bits, raised with an integer
 * atomicMax; cleared by tr_k_update_scales). */
typedef struct tr_k_operand {
  uint8_t *q;
  void *bf;
  const float *scale;
  float *amax;
} tr_k_operand;

/* x = N(0, 1) (FP32, the teacher's input), and x as the first layer's
 * E4M3 operand. */
cudaError_t tr_k_draw_inputs(tr_rng_stream rng, float *x, tr_k_operand out,
                             size_t n, cudaStream_t stream);

/* v = tanh(v): the teacher's hidden activation. */
cudaError_t tr_k_tanh(float *v, size_t n, cudaStream_t stream);

/* Forward after a hidden layer's GEMM: a = GELU(y) (y BF16, as the FP8
 * GEMMs write it), dropout with keep probability 1 - p (kept values scaled
 * by 1/(1-p), keep[i] = 1 or 0), written as the next layer's E4M3 operand. */
cudaError_t tr_k_gelu_dropout(const void *y, tr_rng_stream rng, float p,
                              uint8_t *keep, tr_k_operand out, size_t n,
                              cudaStream_t stream);

/* Backward through dropout and GELU: g = dx * keep/(1-p) * GELU'(y) (dx and
 * y BF16), written as the layer's E5M2 gradient operand. */
cudaError_t tr_k_gelu_dropout_backward(const void *dx, const void *y,
                                       const uint8_t *keep, float p,
                                       tr_k_operand out, size_t n,
                                       cudaStream_t stream);

/* Deterministic reduction scratch of the loss kernel. */
typedef struct tr_k_loss_scratch {
  float *partials;       /* tr_k_loss_blocks(n) floats */
  unsigned int *arrived; /* one counter, 0 between launches */
} tr_k_loss_scratch;

uint32_t tr_k_loss_blocks(size_t n);

/* MSE of y (BF16) against target, written to losses[*step] (when *step <
 * capacity), summed in a fixed order (per-block partials, then the last
 * block to finish adds them up: no float atomics). Also the gradient
 * 2*(y - target) of the summed squared error as the last layer's E5M2
 * operand (see tr_k_adamw for why the sum, not the mean). */
cudaError_t tr_k_mse_loss(const void *y, const float *target,
                          tr_k_operand grad, tr_k_loss_scratch scratch,
                          float *losses, const uint32_t *step,
                          uint32_t capacity, size_t n, cudaStream_t stream);

/* AdamW hyper-parameters; the learning rate and the step count live in
 * device memory. */
typedef struct tr_k_adamw_hyper {
  float beta1, beta2, eps, weight_decay;
} tr_k_adamw_hyper;

/* One launch over all n parameters (masters, grads and moments are each one
 * contiguous buffer): decoupled weight decay, bias-corrected moments for
 * step *step + 1, learning rate *lr. The gradients are those of the summed
 * squared error (the mean's times batch*width): Adam's update does not
 * depend on a constant gradient scale, apart from eps. */
cudaError_t tr_k_adamw(float *master, const float *grad, float *m, float *v,
                       size_t n, const uint32_t *step, const float *lr,
                       tr_k_adamw_hyper h, cudaStream_t stream);

/* Per-tensor FP8 metadata of the 3*layers tensors: W (E4M3) at [0, L),
 * X (E4M3) at [L, 2L), G (E5M2) at [2L, 3L). Tensor t's scale, scale_inv
 * and amax sit at index t * TR_META_STRIDE, each in a 16-byte slot of its
 * own: cuBLASLt reads the GEMMs' scales through these pointers, and a slot
 * per tensor keeps every such pointer 16-byte aligned. */
#define TR_META_STRIDE 4

typedef struct tr_k_fp8_meta {
  float *scale;     /* what the next quantization multiplies by */
  float *scale_inv; /* 1/scale for the GEMMs (W's: written by the plugin) */
  float *amax;      /* this step's amax */
  float *history;   /* [3L][TR_AMAX_HISTORY] */
  uint32_t layers;
} tr_k_fp8_meta;

#define TR_AMAX_HISTORY 16

/* Delayed scaling, one single-block launch for every tensor: this step's
 * amax goes into the history (slot *step mod TR_AMAX_HISTORY); the scale
 * becomes largest_finite / max(history) / 2 (one binade of margin), or
 * stays when that max is 0 or not finite; X and G get scale_inv = 1/scale
 * and their amax cleared (W's amax and scale_inv are written by the
 * plugin's refresh). With advance_step, *step += 1 afterwards. */
cudaError_t tr_k_update_scales(tr_k_fp8_meta meta, uint32_t *step,
                               int advance_step, cudaStream_t stream);

/* Fills dst[n] with N(0, std^2) from (seed, stream_id), counter-based:
 * for initialising weights identically in every mode. */
cudaError_t tr_k_init_normal(float *dst, size_t n, float std, uint64_t seed,
                             uint64_t stream_id, cudaStream_t stream);

/* An empty kernel: the launch-overhead ceiling of the benchmark. */
cudaError_t tr_k_empty(cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif

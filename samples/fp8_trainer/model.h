/* The student MLP, its teacher, and every device buffer a step touches.
 *
 * Layer l (0 <= l < L) maps its input X_l [batch, hidden] to
 * Y_l = X_l W_l^T with W_l [hidden, hidden]; hidden layers continue with
 * X_{l+1} = dropout(GELU(Y_l)); the last layer's Y is the prediction, and
 * the loss is its mean squared error against the teacher's targets.
 *
 * All memory is one cudaMalloc made before the first step (a graph bakes
 * addresses in, and nothing may be allocated inside a step), carved into
 * 256-byte aligned buffers (cuBLASLt wants 16). */
#ifndef TR_MODEL_H
#define TR_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "kernels.h"
#include "stepgraph.h"

/* Rank of the teacher's hidden layer: a low-rank teacher that a 16-layer
 * student can fit within a few hundred steps. */
#define TR_TEACHER_RANK 4

typedef struct tr_dims {
  uint32_t layers, hidden, batch;
  uint32_t loss_capacity; /* loss slots: one per step */
} tr_dims;

typedef struct tr_model {
  tr_dims d;
  size_t act;    /* batch * hidden: one activation */
  size_t weight; /* hidden * hidden: one weight */
  /* Parameters, one contiguous buffer each (layer l at l * weight), so that
   * AdamW is one launch. */
  float *master, *grad, *adam_m, *adam_v;
  uint8_t *w, *wt; /* E4M3 W and W^T, written by the plugin's refresh */
  /* Activations: layer l's input operand and output at l * act. */
  uint8_t *xq;
  uint16_t *xbf; /* BF16 bits */
  uint16_t *y;   /* BF16: what the FP8 GEMMs write */
  uint8_t *keep; /* dropout masks of the L-1 hidden layers */
  /* Output gradients: E5M2 one layer at a time (the data-gradient GEMM
   * reads it before the next layer's overwrites it, in stream order); BF16
   * for every layer at l * act, read by the one batched weight-gradient
   * GEMM after the backward pass. */
  uint8_t *gq;
  uint16_t *gbf;
  uint16_t *dx; /* BF16 */
  /* Teacher: inputs, fixed weights A1 [rank, hidden], A2 [hidden, rank],
   * hidden activation, targets. */
  float *x, *a1, *a2, *u, *target;
  float *losses; /* [loss_capacity], slot = the device step counter */
  tr_k_loss_scratch scratch;
  uint32_t *step; /* completed steps, advanced by the step itself */
  float *lr;
  tr_k_fp8_meta meta;
  void *arena;
  size_t arena_bytes;
} tr_model;

/* Allocates and initialises (weights from `seed`, scales 1, moments 0,
 * learning rate `lr`). */
void tr_model_create(tr_model *m, const tr_dims *d, uint64_t seed, float lr);
void tr_model_destroy(tr_model *m);

/* The E4M3 operand of layer l's input X, and the E5M2 one of its output
 * gradient. */
tr_k_operand tr_model_x_operand(const tr_model *m, uint32_t l);
tr_k_operand tr_model_g_operand(const tr_model *m, uint32_t l);

/* Scale-inverse pointers the GEMMs read, per tensor kind. */
const float *tr_model_w_scale_inv(const tr_model *m, uint32_t l);
const float *tr_model_x_scale_inv(const tr_model *m, uint32_t l);
const float *tr_model_g_scale_inv(const tr_model *m, uint32_t l);

/* Fills descs[0..layers) (caller's array) for register_fp8_params: W, W^T,
 * FP32 master, scale, scale_inv, amax of each layer. */
void tr_model_fp8_descs(const tr_model *m, sg_fp8_param_desc *descs);

#endif

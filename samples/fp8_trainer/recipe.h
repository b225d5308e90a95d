/* The trainer's FP8 recipe (--recipe): how the plugin scales the weights it
 * refreshes, and what the step does with them.
 *
 *   delayed  the plugin casts at the scale the trainer derives from earlier
 *            steps' amax (TR_AMAX_HISTORY); the FP8 GEMMs read W, W^T and
 *            W's scale_inv. The 1.0 behaviour.
 *   current  the plugin computes each weight's scale from its master's amax
 *            in the refresh itself (an amax pass, then the cast); the FP8
 *            GEMMs are the same.
 *   block    the plugin scales every 128 x 128 block of W with its own
 *            scale and writes the scale_inv grids of W and W^T. The GEMMs
 *            here run in BF16 on W and W^T dequantized from those codes and
 *            grids by one kernel after the refresh (a block-scaled FP8 GEMM
 *            is cuBLASLt's CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F; this
 *            sample keeps to what it can check), so a wrong code or grid
 *            entry shows in the loss.
 * Every buffer is made before the first step; nothing here allocates or
 * synchronises inside one. */
#ifndef TR_RECIPE_H
#define TR_RECIPE_H

#include <stdbool.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "gemm.h"
#include "model.h"
#include "stepgraph.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tr_recipe {
  uint32_t kind;          /* SG_RECIPE_* */
  uint32_t blocks;        /* block: ceil(hidden / 128), the grids' edge */
  float *grid, *grid_t;   /* block: [layers][blocks][blocks] each */
  uint16_t *w_bf, *wt_bf; /* block: W and W^T dequantized, BF16 bits */
  void *arena;
  tr_gemm forward, dgrad; /* block: the BF16 GEMMs on them */
} tr_recipe;

/* "delayed", "current", "block" and back; false for another name. */
bool tr_parse_recipe(const char *text, uint32_t *kind);
const char *tr_recipe_name(uint32_t kind);

/* The recipe's buffers for model m (none but for block scaling). */
void tr_recipe_create(tr_recipe *r, uint32_t kind, const tr_model *m);
void tr_recipe_destroy(tr_recipe *r);

/* Turns the model's delayed-scaling descriptors into the recipe's. */
void tr_recipe_descs(const tr_recipe *r, const tr_model *m, sg_fp8_param_desc *descs);

/* Block scaling's GEMM plans (nothing for the others), chosen once. */
void tr_recipe_plan(tr_recipe *r, const tr_blas *b, const tr_model *m);

/* After each refresh: block scaling's dequantization of every W and W^T
 * (two launches). Returns the kernel launches it added beyond the refresh's
 * first: that, or current scaling's amax pass. */
uint32_t tr_recipe_after_refresh(const tr_recipe *r, const tr_model *m, cudaStream_t s);

/* Layer l's forward GEMM (Y = X W^T into y) or data-gradient GEMM
 * (dX = dY (W^T)^T into m->dx) when the recipe has its own (block
 * scaling): true when it ran it, false when the caller runs the FP8 one. */
bool tr_recipe_forward(const tr_recipe *r, const tr_blas *b, const tr_model *m, uint32_t l,
                       uint16_t *y, cudaStream_t s);
bool tr_recipe_dgrad(const tr_recipe *r, const tr_blas *b, const tr_model *m, uint32_t l,
                     cudaStream_t s);

/* dst[l][i][j] = BF16(fp8_e4m3(codes[l][i][j]) * grid[l][i/128][j/128]),
 * for `layers` square n x n matrices, grids of `blocks` x `blocks`. */
cudaError_t tr_k_dequant_blocks(const uint8_t *codes, const float *grid, uint16_t *dst,
                                uint32_t layers, uint32_t n, uint32_t blocks,
                                cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif

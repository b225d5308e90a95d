#include "recipe.h"

#include <string.h>

#include "checks.h"

static const char *const recipe_names[] = {"delayed", "current", "block"};

bool tr_parse_recipe(const char *text, uint32_t *kind) {
  for (uint32_t k = 0; k < sizeof recipe_names / sizeof recipe_names[0]; k++) {
    if (strcmp(text, recipe_names[k]) == 0) {
      *kind = k; /* SG_RECIPE_DELAYED, _CURRENT, _BLOCK */
      return true;
    }
  }
  return false;
}

const char *tr_recipe_name(uint32_t kind) { return recipe_names[kind]; }

/* One allocation: the grids, then the BF16 weights, 256-byte aligned. */
void tr_recipe_create(tr_recipe *r, uint32_t kind, const tr_model *m) {
  memset(r, 0, sizeof *r);
  r->kind = kind;
  if (kind != SG_RECIPE_BLOCK) {
    return;
  }
  r->blocks = (m->d.hidden + SG_FP8_BLOCK - 1) / SG_FP8_BLOCK;
  const size_t grid = (size_t)m->d.layers * r->blocks * r->blocks * sizeof(float);
  const size_t grid_bytes = (grid + 255) / 256 * 256;
  const size_t weights = (size_t)m->d.layers * m->weight * sizeof(uint16_t);
  SG_CHECK_CUDA(cudaMalloc(&r->arena, 2 * grid_bytes + 2 * weights));
  char *base = r->arena;
  r->grid = (float *)base;
  r->grid_t = (float *)(base + grid_bytes);
  r->w_bf = (uint16_t *)(base + 2 * grid_bytes);
  r->wt_bf = (uint16_t *)(base + 2 * grid_bytes + weights);
}

void tr_recipe_destroy(tr_recipe *r) {
  if (r->kind == SG_RECIPE_BLOCK) {
    tr_gemm_destroy(&r->dgrad);
    tr_gemm_destroy(&r->forward);
    SG_CHECK_CUDA(cudaFree(r->arena));
  }
  memset(r, 0, sizeof *r);
}

/* Current scaling computes W's scale itself; block scaling keeps its
 * scales in the grids, the layer's one after another. */
void tr_recipe_descs(const tr_recipe *r, const tr_model *m, sg_fp8_param_desc *descs) {
  const size_t per_grid = (size_t)r->blocks * r->blocks;
  for (uint32_t l = 0; l < m->d.layers; l++) {
    sg_fp8_param_desc *d = &descs[l];
    d->recipe = r->kind;
    if (r->kind == SG_RECIPE_DELAYED) {
      continue;
    }
    d->scale = NULL;
    if (r->kind == SG_RECIPE_BLOCK) {
      d->scale_inv = NULL;
      d->amax = NULL;
      d->block_scale_inv = r->grid + l * per_grid;
      d->block_scale_inv_t = r->grid_t + l * per_grid;
    }
  }
}

/* The forward and data-gradient GEMMs of layer l in BF16 with a BF16
 * result, the shapes of the FP8 ones. */
void tr_recipe_plan(tr_recipe *r, const tr_blas *b, const tr_model *m) {
  if (r->kind != SG_RECIPE_BLOCK) {
    return;
  }
  const uint64_t B = m->d.batch, H = m->d.hidden;
  tr_gemm_desc fwd = tr_gemm_xwt("fwd_block", B, H, H, CUDA_R_16BF, CUDA_R_16BF);
  tr_gemm_desc bwd = tr_gemm_xwt("dgrad_blk", B, H, H, CUDA_R_16BF, CUDA_R_16BF);
  fwd.d_type = CUDA_R_16BF;
  bwd.d_type = CUDA_R_16BF;
  tr_gemm_plan(&r->forward, b, &fwd, NULL, NULL);
  tr_gemm_plan(&r->dgrad, b, &bwd, NULL, NULL);
  tr_gemm_print(&r->forward);
  tr_gemm_print(&r->dgrad);
}

uint32_t tr_recipe_after_refresh(const tr_recipe *r, const tr_model *m, cudaStream_t s) {
  if (r->kind == SG_RECIPE_CURRENT) {
    return 1; /* the plugin's amax pass */
  }
  if (r->kind != SG_RECIPE_BLOCK) {
    return 0;
  }
  SG_CHECK_CUDA(tr_k_dequant_blocks(m->w, r->grid, r->w_bf, m->d.layers, m->d.hidden, r->blocks, s));
  SG_CHECK_CUDA(tr_k_dequant_blocks(m->wt, r->grid_t, r->wt_bf, m->d.layers, m->d.hidden, r->blocks,
                              s));
  return 2;
}

bool tr_recipe_forward(const tr_recipe *r, const tr_blas *b, const tr_model *m, uint32_t l,
                       uint16_t *y, cudaStream_t s) {
  if (r->kind != SG_RECIPE_BLOCK) {
    return false;
  }
  tr_gemm_run(&r->forward, b, r->w_bf + (size_t)l * m->weight, m->xbf + (size_t)l * m->act, y,
              s);
  return true;
}

bool tr_recipe_dgrad(const tr_recipe *r, const tr_blas *b, const tr_model *m, uint32_t l,
                     cudaStream_t s) {
  if (r->kind != SG_RECIPE_BLOCK) {
    return false;
  }
  tr_gemm_run(&r->dgrad, b, r->wt_bf + (size_t)l * m->weight, m->gbf + (size_t)l * m->act,
              m->dx, s);
  return true;
}

#include "trainer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"

/* cuBLASLt's recommended workspace on Hopper. */
#define TR_WORKSPACE_BYTES (32u << 20)
#define TR_LEARNING_RATE 1e-3f

static void register_weights(tr_trainer *t) {
  const uint32_t L = t->m.d.layers;
  sg_fp8_param_desc *descs = TR_CALLOC(L, sizeof *descs, "FP8 descriptors");
  tr_model_fp8_descs(&t->m, descs);
  tr_recipe_descs(&t->recipe, &t->m, descs);
  if (t->cfg.dist != NULL) {
    tr_dist_shard_descs(t->cfg.dist, descs, L, t->m.weight);
  }
  CK_SG(t->api, t->session,
        t->api->register_fp8_params(t->session, descs, L, NULL));
  free(descs);
}

/* The learning rate: static buffer 0, filled from the schedule's host
 * slot by every replay and driver step. */
static void register_rate(tr_trainer *t) {
  const sg_static_buffer_desc d = {sizeof d, t->m.lr, sizeof(float)};
  CK_SG(t->api, t->session,
        t->api->register_static_buffers(t->session, &d, 1, NULL));
}

/* Prints a layer-indexed plan set: layer 0's choice, and any layer whose
 * choice differs from it. */
static void print_layer_plans(const tr_gemm *plans, uint32_t layers) {
  tr_gemm_print(&plans[0]);
  for (uint32_t l = 1; l < layers; l++) {
    if (plans[l].algo_id != plans[0].algo_id) {
      printf("  layer %u: ", l);
      tr_gemm_print(&plans[l]);
    }
  }
}

/* Every GEMM's algorithm, chosen here once (before any step). */
static void plan_gemms(tr_trainer *t) {
  const tr_model *m = &t->m;
  const uint32_t L = m->d.layers;
  const uint64_t B = m->d.batch, H = m->d.hidden, R = TR_TEACHER_RANK;
  const tr_gemm_desc fwd =
      tr_gemm_xwt("forward", B, H, H, CUDA_R_8F_E4M3, CUDA_R_8F_E4M3);
  /* dX = dY (W^T)^T: W^T [in, out] plays the weight, dY the input. */
  const tr_gemm_desc bwd =
      tr_gemm_xwt("dgrad", B, H, H, CUDA_R_8F_E5M2, CUDA_R_8F_E4M3);
  t->forward = TR_CALLOC(L, sizeof *t->forward, "GEMM plans");
  t->dgrad = TR_CALLOC(L, sizeof *t->dgrad, "GEMM plans");
  for (uint32_t l = 0; l < L; l++) {
    tr_gemm_plan(&t->forward[l], &t->blas, &fwd, tr_model_w_scale_inv(m, l),
                 tr_model_x_scale_inv(m, l));
    tr_gemm_plan(&t->dgrad[l], &t->blas, &bwd, tr_model_w_scale_inv(m, l),
                 tr_model_g_scale_inv(m, l));
  }
  const tr_gemm_desc wgrad = tr_gemm_wgrad("wgrad", B, H, H, L);
  tr_gemm_plan(&t->wgrad, &t->blas, &wgrad, NULL, NULL);
  const tr_gemm_desc tin =
      tr_gemm_xwt("teach_in", B, R, H, CUDA_R_32F, CUDA_R_32F);
  tr_gemm_plan(&t->teacher_in, &t->blas, &tin, NULL, NULL);
  const tr_gemm_desc tout =
      tr_gemm_xwt("teach_out", B, H, R, CUDA_R_32F, CUDA_R_32F);
  tr_gemm_plan(&t->teacher_out, &t->blas, &tout, NULL, NULL);
  print_layer_plans(t->forward, L);
  print_layer_plans(t->dgrad, L);
  tr_gemm_print(&t->wgrad);
  tr_gemm_print(&t->teacher_in);
  tr_gemm_print(&t->teacher_out);
}

/* W and W^T from the initial masters at scale 1, then scales from their
 * amax, then W and W^T again at those scales: step 0 starts from FP8
 * weights quantized as well as every later step's. */
static void first_refresh(tr_trainer *t) {
  tr_refresh(t, t->stream, SG_REFRESH_CAST_TRANSPOSE);
  SG_CHECK_CUDA(tr_k_update_scales(t->m.meta, t->m.step, 0, t->stream));
  tr_refresh(t, t->stream, SG_REFRESH_CAST_TRANSPOSE);
  SG_CHECK_CUDA(cudaStreamSynchronize(t->stream));
}

void tr_refresh(tr_trainer *t, cudaStream_t stream, uint32_t mode) {
  tr_refresh_group(t, stream, mode, SG_ALL_GROUPS);
}

void tr_refresh_group(tr_trainer *t, cudaStream_t stream, uint32_t mode,
                      uint32_t group) {
  sg_refresh_args r;
  memset(&r, 0, sizeof r);
  r.struct_size = sizeof r;
  r.mode = mode;
  r.group = group;
  /* Delayed scaling's next scales come from amax: the same on every
   * rank. (Current scaling uses the whole master, the same on every rank
   * too; block scaling keeps no amax.) */
  if (t->cfg.dist != NULL && mode != SG_REFRESH_TRANSPOSE &&
      t->cfg.recipe == SG_RECIPE_DELAYED) {
    r.flags = SG_REFRESH_REDUCE_AMAX;
  }
  CK_SG(t->api, t->session,
        t->api->post_optimizer_step(t->session, stream, &r));
  t->launches += tr_recipe_after_refresh(&t->recipe, &t->m, stream);
}

tr_config tr_config_for(const tr_options *o, tr_mode mode,
                        const tr_dist *dist) {
  tr_config c;
  memset(&c, 0, sizeof c);
  c.dims.layers = o->layers;
  c.dims.hidden = o->hidden;
  c.dims.batch = o->batch;
  c.dims.loss_capacity = o->steps;
  c.seed = o->seed;
  c.warmup = o->warmup;
  c.lr_warmup = o->lr_warmup;
  c.refresh_mode = mode == TR_MODE_STALE ? SG_REFRESH_CAST
                                         : SG_REFRESH_CAST_TRANSPOSE;
  c.cond = o->cond;
  c.recipe = o->recipe;
  c.dist = dist;
  return c;
}

void tr_trainer_create(tr_trainer *t, const tr_plugin *p,
                       const tr_config *cfg) {
  memset(t, 0, sizeof *t);
  t->api = p->api;
  t->cfg = *cfg;
  t->session = tr_session_create(
      p, cfg->seed, cfg->warmup,
      cfg->cond.check_transposes ? SG_SESSION_CHECK_TRANSPOSES : 0, cfg->dist);
  t->rng.struct_size = sizeof t->rng;
  CK_SG(t->api, t->session, t->api->rng_device_state(t->session, &t->rng));
  /* Non-blocking: the legacy stream must never join a capture. */
  SG_CHECK_CUDA(cudaStreamCreateWithFlags(&t->stream, cudaStreamNonBlocking));
  /* Rate 0 until a step's copy brings the schedule's (schedule.h). */
  tr_model_create(&t->m, &cfg->dims, cfg->seed, 0.0f);
  tr_schedule_create(&t->schedule, cfg->dims.loss_capacity, cfg->lr_warmup,
                     TR_LEARNING_RATE);
  tr_cond_create(&t->cond, &cfg->cond, &t->m, cfg->dims.loss_capacity);
  tr_recipe_create(&t->recipe, cfg->recipe, &t->m);
  register_weights(t);
  register_rate(t);
  tr_blas_create(&t->blas, TR_WORKSPACE_BYTES);
  plan_gemms(t);
  tr_recipe_plan(&t->recipe, &t->blas, &t->m);
  first_refresh(t);
}

void tr_trainer_destroy(tr_trainer *t) {
  SG_CHECK_CUDA(cudaStreamSynchronize(t->stream));
  t->api->session_destroy(t->session); /* its graphs bake our buffers in */
  tr_gemm_destroy(&t->teacher_out);
  tr_gemm_destroy(&t->teacher_in);
  tr_gemm_destroy(&t->wgrad);
  for (uint32_t l = 0; l < t->m.d.layers; l++) {
    tr_gemm_destroy(&t->dgrad[l]);
    tr_gemm_destroy(&t->forward[l]);
  }
  free(t->dgrad);
  free(t->forward);
  tr_recipe_destroy(&t->recipe);
  tr_blas_destroy(&t->blas);
  tr_cond_destroy(&t->cond);
  tr_model_destroy(&t->m);
  tr_schedule_destroy(&t->schedule);
  SG_CHECK_CUDA(cudaStreamDestroy(t->stream));
}

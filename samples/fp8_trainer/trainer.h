/* One training setup: the plugin session, the model, the GEMM plans, the
 * stream; and the step, as the host enqueues it in every mode. */
#ifndef TR_TRAINER_H
#define TR_TRAINER_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#include "cond_state.h"
#include "dist.h"
#include "gemm.h"
#include "model.h"
#include "options.h"
#include "plugin_host.h"
#include "schedule.h"
#include "recipe.h"

typedef struct tr_config {
  tr_dims dims;
  uint64_t seed;
  uint32_t warmup;       /* the step driver's eager steps */
  uint32_t lr_warmup;    /* the learning-rate schedule's warm-up */
  uint32_t refresh_mode; /* SG_REFRESH_CAST_TRANSPOSE, or CAST for stale */
  tr_cond_options cond;  /* accumulation, step guard, detector, digests */
  uint32_t recipe;       /* SG_RECIPE_* */
  const tr_dist *dist;   /* this rank's, or NULL for a single process */
} tr_config;

/* What the conditional features (cond_step.c) redirect in the step; NULL
 * leaves the plain step's choice. */
typedef struct tr_step_hooks {
  const uint64_t *rng_base;  /* random kernels' base offset (a
                                microbatch's), at offsets from rng_next */
  uint64_t rng_next;
  float *grad;               /* the weight-gradient GEMM's output */
  const uint32_t *loss_slot; /* which loss slot the step writes */
} tr_step_hooks;

typedef struct tr_trainer {
  const sg_api *api;
  sg_session *session;
  sg_rng_device_state rng;
  tr_config cfg;
  tr_model m;
  tr_blas blas;
  tr_gemm *forward, *dgrad; /* [layers]: each layer's own FP8 scales */
  tr_gemm wgrad, teacher_in, teacher_out;
  cudaStream_t stream;
  uint32_t launches; /* kernel launches of the last enqueued step */
  tr_schedule schedule; /* the learning rate, a host static source */
  tr_cond cond;      /* the conditional features' state (cond_step.h) */
  tr_step_hooks hooks;
  tr_recipe recipe;
} tr_trainer;

/* The configuration of a run of `mode` with the options' shapes and seed
 * (stale: the refresh casts W only, W^T goes stale), on rank `dist` (NULL:
 * a single process). */
tr_config tr_config_for(const tr_options *o, tr_mode mode,
                        const tr_dist *dist);

/* Session, model, registration of every FP8 weight, GEMM plans (each
 * algorithm chosen here, once), and the first refresh so that W and W^T
 * exist before step 0. Exits on any failure. */
void tr_trainer_create(tr_trainer *t, const tr_plugin *p,
                       const tr_config *cfg);
void tr_trainer_destroy(tr_trainer *t);

/* Enqueues one training step on `stream`: teacher, forward, loss, backward,
 * AdamW, the plugin's post-optimizer-step refresh, the scale update, and
 * the plugin's RNG end-of-step. Nothing allocates or synchronises, so the
 * same call is what eager runs and what a capture records. */
void tr_step_enqueue(tr_trainer *t, cudaStream_t stream);

/* The step's parts: one microbatch (teacher to weight gradients), the
 * optimizer step (AdamW, refresh, scales and the step counter), the end
 * of the step (the plugin's RNG end-of-step). */
void tr_step_microbatch(tr_trainer *t, cudaStream_t stream);
void tr_step_optimizer(tr_trainer *t, cudaStream_t stream);
void tr_step_end(tr_trainer *t, cudaStream_t stream);

/* The plugin's post-optimizer-step refresh of every registered weight in
 * `mode` (SG_REFRESH_*) on `stream`, or of one group; with ranks the cast
 * modes reduce amax across them. Exits on failure. */
void tr_refresh(tr_trainer *t, cudaStream_t stream, uint32_t mode);
void tr_refresh_group(tr_trainer *t, cudaStream_t stream, uint32_t mode,
                      uint32_t group);

#endif

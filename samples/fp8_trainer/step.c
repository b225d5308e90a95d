/* The training step's parts: one microbatch (forward, loss, backward), the
 * optimizer with the FP8 refresh, the end of the step. step_enqueue.c puts
 * them together. */
#include "checks.h"
#include "dist_step.h"
#include "trainer.h"

/* Dropout probability of the hidden layers: small, because its noise
 * compounds over 15 layers and sets the floor the loss can reach. */
#define TR_DROPOUT 0.02f

static const tr_k_adamw_hyper adamw = {0.9f, 0.999f, 1e-8f, 0.01f};

/* Philox counters for one random kernel of this step, from the plugin (or,
 * inside a microbatch, from the microbatch's block: cond_step.c). */
static tr_rng_stream reserve(tr_trainer *t, size_t n) {
  tr_step_hooks *h = &t->hooks;
  if (h->rng_base != NULL) {
    const tr_rng_stream r = {t->rng.seed, h->rng_base, h->rng_next};
    h->rng_next += tr_k_rng_counters(n);
    return r;
  }
  tr_rng_stream r = {t->rng.seed, t->rng.base_offset, 0};
  CK_SG(t->api, t->session,
        t->api->rng_reserve(t->session, tr_k_rng_counters(n), &r.offset));
  return r;
}

/* Fresh inputs (also layer 0's operand) and the teacher's targets. */
static void teacher(tr_trainer *t, cudaStream_t s) {
  tr_model *m = &t->m;
  const size_t hidden_act = (size_t)m->d.batch * TR_TEACHER_RANK;
  SG_CHECK_CUDA(tr_k_draw_inputs(reserve(t, m->act), m->x,
                                 tr_model_x_operand(m, 0), m->act, s));
  tr_gemm_run(&t->teacher_in, &t->blas, m->a1, m->x, m->u, s);
  SG_CHECK_CUDA(tr_k_tanh(m->u, hidden_act, s));
  tr_gemm_run(&t->teacher_out, &t->blas, m->a2, m->u, m->target, s);
  t->launches += 4;
}

static void forward(tr_trainer *t, cudaStream_t s) {
  tr_model *m = &t->m;
  for (uint32_t l = 0; l < m->d.layers; l++) {
    uint16_t *y = m->y + (size_t)l * m->act;
    if (!tr_recipe_forward(&t->recipe, &t->blas, m, l, y, s)) {
      tr_gemm_run(&t->forward[l], &t->blas, m->w + (size_t)l * m->weight,
                  m->xq + (size_t)l * m->act, y, s);
    }
    t->launches++;
    if (l + 1 < m->d.layers) {
      SG_CHECK_CUDA(tr_k_gelu_dropout(y, reserve(t, m->act), TR_DROPOUT,
                                      m->keep + (size_t)l * m->act,
                                      tr_model_x_operand(m, l + 1), m->act, s));
      t->launches++;
    }
  }
}

/* The loss into this step's slot, and the last layer's output gradient. */
static void loss(tr_trainer *t, cudaStream_t s) {
  tr_model *m = &t->m;
  const uint32_t last = m->d.layers - 1;
  const uint32_t *slot = t->hooks.loss_slot != NULL ? t->hooks.loss_slot
                                                    : m->step;
  SG_CHECK_CUDA(tr_k_mse_loss(m->y + (size_t)last * m->act, m->target,
                              tr_model_g_operand(m, last), m->scratch,
                              m->losses, slot, m->d.loss_capacity, m->act,
                              s));
  t->launches++;
}

/* From layer l's output gradient to layer l-1's: the data gradient through
 * W^T (FP8), then back through dropout and GELU. */
static void backward_layer(tr_trainer *t, uint32_t l, cudaStream_t s) {
  tr_model *m = &t->m;
  if (!tr_recipe_dgrad(&t->recipe, &t->blas, m, l, s)) {
    tr_gemm_run(&t->dgrad[l], &t->blas, m->wt + (size_t)l * m->weight, m->gq,
                m->dx, s);
  }
  SG_CHECK_CUDA(tr_k_gelu_dropout_backward(
      m->dx, m->y + (size_t)(l - 1) * m->act, m->keep + (size_t)(l - 1) * m->act,
      TR_DROPOUT, tr_model_g_operand(m, l - 1), m->act, s));
  t->launches += 2;
}

/* Every layer's weight gradient (BF16 in, FP32 out) in one batched GEMM. */
static void weight_gradients(tr_trainer *t, cudaStream_t s) {
  tr_model *m = &t->m;
  tr_gemm_run(&t->wgrad, &t->blas, m->xbf, m->gbf,
              t->hooks.grad != NULL ? t->hooks.grad : m->grad, s);
  t->launches++;
}

void tr_step_optimizer(tr_trainer *t, cudaStream_t s) {
  tr_model *m = &t->m;
  if (t->cfg.dist != NULL) { /* once per step, after every microbatch */
    tr_dist_reduce_gradients(t, s);
  }
  if (t->cfg.dist != NULL && t->cfg.dist->shard) {
    tr_dist_sharded_optimizer(t, s, &adamw);
  } else {
    SG_CHECK_CUDA(tr_k_adamw(m->master, m->grad, m->adam_m, m->adam_v,
                       (size_t)m->d.layers * m->weight, m->step, m->lr,
                       adamw, s));
    tr_refresh(t, s, t->cfg.refresh_mode);
  }
  SG_CHECK_CUDA(tr_k_update_scales(m->meta, m->step, 1, s));
  t->launches += 3;
}

void tr_step_end(tr_trainer *t, cudaStream_t s) {
  CK_SG(t->api, t->session, t->api->rng_end_step(t->session, s));
  t->launches++;
}

void tr_step_microbatch(tr_trainer *t, cudaStream_t stream) {
  teacher(t, stream);
  forward(t, stream);
  loss(t, stream);
  for (uint32_t l = t->m.d.layers - 1; l > 0; l--) {
    backward_layer(t, l, stream);
  }
  weight_gradients(t, stream);
}

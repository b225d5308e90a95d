#include "model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"

#define TR_ALIGN 256u

/* Hands out aligned pieces of one allocation. With base NULL it only
 * measures, so that one function describes the layout for both passes. */
typedef struct arena {
  char *base;
  size_t used;
} arena;

static void *take(arena *a, size_t bytes) {
  void *p = a->base != NULL ? a->base + a->used : NULL;
  a->used += (bytes + TR_ALIGN - 1) / TR_ALIGN * TR_ALIGN;
  return p;
}

static void carve_parameters(tr_model *m, arena *a) {
  const size_t n = (size_t)m->d.layers * m->weight;
  m->master = take(a, n * sizeof(float));
  m->grad = take(a, n * sizeof(float));
  m->adam_m = take(a, n * sizeof(float));
  m->adam_v = take(a, n * sizeof(float));
  m->w = take(a, n);
  m->wt = take(a, n);
}

static void carve_activations(tr_model *m, arena *a) {
  const size_t n = (size_t)m->d.layers * m->act;
  m->xq = take(a, n);
  m->xbf = take(a, n * sizeof(uint16_t));
  m->y = take(a, n * sizeof(uint16_t));
  m->keep = take(a, (size_t)(m->d.layers - 1) * m->act);
  m->gq = take(a, m->act);
  m->gbf = take(a, n * sizeof(uint16_t));
  m->dx = take(a, m->act * sizeof(uint16_t));
}

static void carve_teacher_and_state(tr_model *m, arena *a) {
  const size_t rank_act = (size_t)m->d.batch * TR_TEACHER_RANK;
  const size_t rank_w = (size_t)m->d.hidden * TR_TEACHER_RANK;
  const size_t tensors = 3u * (size_t)m->d.layers;
  const size_t slots = tensors * TR_META_STRIDE;
  m->x = take(a, m->act * sizeof(float));
  m->a1 = take(a, rank_w * sizeof(float));
  m->a2 = take(a, rank_w * sizeof(float));
  m->u = take(a, rank_act * sizeof(float));
  m->target = take(a, m->act * sizeof(float));
  m->losses = take(a, m->d.loss_capacity * sizeof(float));
  m->scratch.partials = take(a, tr_k_loss_blocks(m->act) * sizeof(float));
  m->scratch.arrived = take(a, sizeof(unsigned int));
  m->step = take(a, sizeof(uint32_t));
  m->lr = take(a, sizeof(float));
  m->meta.scale = take(a, slots * sizeof(float));
  m->meta.scale_inv = take(a, slots * sizeof(float));
  m->meta.amax = take(a, slots * sizeof(float));
  m->meta.history = take(a, tensors * TR_AMAX_HISTORY * sizeof(float));
  m->meta.layers = m->d.layers;
}

static size_t carve(tr_model *m, char *base) {
  arena a = {base, 0};
  carve_parameters(m, &a);
  carve_activations(m, &a);
  carve_teacher_and_state(m, &a);
  return a.used;
}

/* dst[0..n) = value: setup only (synchronous). */
static void fill(float *dst, size_t n, float value) {
  float *host = TR_CALLOC(n, sizeof(float), "host staging buffer");
  for (size_t i = 0; i < n; i++) {
    host[i] = value;
  }
  SG_CHECK_CUDA(
      cudaMemcpy(dst, host, n * sizeof(float), cudaMemcpyHostToDevice));
  free(host);
}

/* He initialisation for the hidden layers; the last layer starts 10x
 * smaller so that the first loss is about the targets' variance (the
 * student starts near "predict 0" instead of adding its own noise). */
static void initialise(tr_model *m, uint64_t seed, float lr) {
  const uint32_t L = m->d.layers;
  const float he = sqrtf(2.0f / (float)m->d.hidden);
  const size_t hidden_n = (size_t)(L - 1) * m->weight;
  SG_CHECK_CUDA(tr_k_init_normal(m->master, hidden_n, he, seed, 1, NULL));
  SG_CHECK_CUDA(tr_k_init_normal(m->master + hidden_n, m->weight, 0.1f * he,
                                 seed, 2, NULL));
  const size_t rank_w = (size_t)m->d.hidden * TR_TEACHER_RANK;
  SG_CHECK_CUDA(tr_k_init_normal(
      m->a1, rank_w, 1.0f / sqrtf((float)m->d.hidden), seed, 3, NULL));
  SG_CHECK_CUDA(tr_k_init_normal(m->a2, rank_w, 1.0f / sqrtf(TR_TEACHER_RANK),
                                 seed, 4, NULL));
  fill(m->meta.scale, 3u * L * TR_META_STRIDE, 1.0f);
  fill(m->meta.scale_inv, 3u * L * TR_META_STRIDE, 1.0f);
  fill(m->lr, 1, lr);
}

void tr_model_create(tr_model *m, const tr_dims *d, uint64_t seed, float lr) {
  memset(m, 0, sizeof *m);
  m->d = *d;
  m->act = (size_t)d->batch * d->hidden;
  m->weight = (size_t)d->hidden * d->hidden;
  m->arena_bytes = carve(m, NULL);
  SG_CHECK_CUDA(cudaMalloc(&m->arena, m->arena_bytes));
  carve(m, m->arena);
  /* Zero: moments, amax, histories, counters, step, loss slots. */
  SG_CHECK_CUDA(cudaMemset(m->arena, 0, m->arena_bytes));
  initialise(m, seed, lr);
  SG_CHECK_CUDA(cudaDeviceSynchronize());
}

void tr_model_destroy(tr_model *m) {
  SG_CHECK_CUDA(cudaFree(m->arena));
  memset(m, 0, sizeof *m);
}

/* Tensor t's slot in the metadata arrays. */
static size_t slot(uint32_t t) { return (size_t)t * TR_META_STRIDE; }

tr_k_operand tr_model_x_operand(const tr_model *m, uint32_t l) {
  const size_t t = slot(m->d.layers + l);
  tr_k_operand o = {m->xq + (size_t)l * m->act, m->xbf + (size_t)l * m->act,
                    m->meta.scale + t, m->meta.amax + t};
  return o;
}

tr_k_operand tr_model_g_operand(const tr_model *m, uint32_t l) {
  const size_t t = slot(2u * m->d.layers + l);
  tr_k_operand o = {m->gq, m->gbf + (size_t)l * m->act, m->meta.scale + t,
                    m->meta.amax + t};
  return o;
}

const float *tr_model_w_scale_inv(const tr_model *m, uint32_t l) {
  return m->meta.scale_inv + slot(l);
}

const float *tr_model_x_scale_inv(const tr_model *m, uint32_t l) {
  return m->meta.scale_inv + slot(m->d.layers + l);
}

const float *tr_model_g_scale_inv(const tr_model *m, uint32_t l) {
  return m->meta.scale_inv + slot(2u * m->d.layers + l);
}

void tr_model_fp8_descs(const tr_model *m, sg_fp8_param_desc *descs) {
  const uint64_t h = m->d.hidden;
  for (uint32_t l = 0; l < m->d.layers; l++) {
    sg_fp8_param_desc *p = &descs[l];
    const size_t off = (size_t)l * m->weight;
    memset(p, 0, sizeof *p);
    p->struct_size = sizeof *p;
    p->format = SG_FP8_E4M3;
    p->master_dtype = SG_DTYPE_FP32;
    p->rows = p->cols = h;
    p->data = m->w + off;
    p->ld_data = h;
    p->transpose = m->wt + off;
    p->ld_transpose = h;
    p->master = m->master + off;
    p->ld_master = h;
    p->scale = m->meta.scale + slot(l);
    p->scale_inv = m->meta.scale_inv + slot(l);
    p->amax = m->meta.amax + slot(l);
  }
}

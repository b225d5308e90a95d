#include "cond_state.h"

#include <stdlib.h>
#include <string.h>

#include "checks.h"
#include "kernels.h"

#define TR_COND_ALIGN 256u

static void *take(char *base, size_t *used, size_t bytes) {
  void *p = base != NULL ? base + *used : NULL;
  *used += (bytes + TR_COND_ALIGN - 1) / TR_COND_ALIGN * TR_COND_ALIGN;
  return p;
}

/* The layout, measured (base NULL) or carved. */
static size_t carve(tr_cond *c, char *base) {
  size_t used = 0;
  const uint32_t entries = 1 + c->o.schedule_count;
  c->trip = take(base, &used, sizeof *c->trip);
  c->iter = take(base, &used, sizeof *c->iter);
  c->finite = take(base, &used, sizeof *c->finite);
  c->mb_base = take(base, &used, sizeof *c->mb_base);
  c->slots = take(base, &used, c->max_n * sizeof *c->slots);
  c->sched_step = take(base, &used, entries * sizeof *c->sched_step);
  c->sched_n = take(base, &used, entries * sizeof *c->sched_n);
  c->faults = take(base, &used, (c->o.fault_count + 1) * sizeof *c->faults);
  c->grad_mb = take(base, &used, c->grads * sizeof *c->grad_mb);
  c->digests = take(base, &used, 2 * (size_t)c->steps * sizeof *c->digests);
  return used;
}

static void upload(void *dst, const void *src, size_t bytes) {
  SG_CHECK_CUDA(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
}

/* Schedule (entry 0: from step 0, --accumulate's count), the unrolled
 * copies' indices 0..max_n-1, the fault steps. */
static void fill(tr_cond *c) {
  const uint32_t entries = 1 + c->o.schedule_count;
  uint32_t steps[1 + TR_MAX_SCHEDULE], *slots = TR_CALLOC(c->max_n, 4, "slots");
  int32_t counts[1 + TR_MAX_SCHEDULE];
  steps[0] = 0;
  counts[0] = (int32_t)tr_cond_microbatches(&c->o, 0);
  for (uint32_t k = 0; k < c->o.schedule_count; k++) {
    steps[1 + k] = c->o.schedule_step[k];
    counts[1 + k] = (int32_t)c->o.schedule_n[k];
  }
  for (uint32_t i = 0; i < c->max_n; i++) {
    slots[i] = i;
  }
  upload(c->sched_step, steps, entries * sizeof *steps);
  upload(c->sched_n, counts, entries * sizeof *counts);
  upload(c->slots, slots, c->max_n * sizeof *slots);
  upload(c->faults, c->o.faults, c->o.fault_count * sizeof *c->faults);
  free(slots);
}

void tr_cond_create(tr_cond *c, const tr_cond_options *o, const tr_model *m,
                    uint32_t steps) {
  memset(c, 0, sizeof *c);
  c->o = *o;
  c->active = tr_cond_active(o);
  if (!c->active) {
    return;
  }
  c->loops = o->accumulate > 0 || o->schedule_count > 0;
  c->max_n = tr_cond_max_microbatches(o);
  c->per_mb = (uint64_t)m->d.layers * tr_k_rng_counters(m->act);
  c->steps = steps;
  c->grads = (size_t)m->d.layers * m->weight;
  const size_t bytes = carve(c, NULL);
  SG_CHECK_CUDA(cudaMalloc(&c->arena, bytes));
  SG_CHECK_CUDA(cudaMemset(c->arena, 0, bytes));
  carve(c, c->arena);
  fill(c);
  SG_CHECK_CUDA(cudaDeviceSynchronize());
}

void tr_cond_destroy(tr_cond *c) {
  if (c->arena != NULL) {
    SG_CHECK_CUDA(cudaFree(c->arena));
  }
  memset(c, 0, sizeof *c);
}

#include "cond_step.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"
#include "cond_kernels.h"

/* One microbatch: its RNG block, the microbatch itself with its weight
 * gradients into grad_mb, then grad (=|+=) grad_mb. */
static void microbatch(tr_trainer *t, cudaStream_t s, const uint32_t *index,
                       uint64_t block) {
  tr_cond *c = &t->cond;
  SG_CHECK_CUDA(tr_k_microbatch_rng(t->rng.base_offset, block, index, c->per_mb,
                              c->mb_base, s));
  t->hooks.rng_base = c->mb_base;
  t->hooks.rng_next = 0;
  t->hooks.grad = c->grad_mb;
  tr_step_microbatch(t, s);
  if (t->hooks.rng_next != c->per_mb) {
    tr_die(__FILE__, __LINE__, "microbatch", "RNG", "a microbatch drew a "
           "different number of counters than its block holds");
  }
  t->hooks.rng_base = NULL;
  t->hooks.grad = NULL;
  SG_CHECK_CUDA(tr_k_accumulate(t->m.grad, c->grad_mb, c->grads, index, s));
  t->launches += 2;
}

/* Microbatches through the plugin's loop (one body, any trip count) or
 * unrolled (max_n copies, the count fixed). */
static void microbatches(tr_trainer *t, cudaStream_t s) {
  tr_cond *c = &t->cond;
  uint64_t block = 0;
  CK_SG(t->api, t->session,
        t->api->rng_reserve(t->session, c->per_mb * c->max_n, &block));
  if (c->o.unroll) {
    for (uint32_t i = 0; i < c->max_n; i++) {
      microbatch(t, s, &c->slots[i], block);
    }
    return;
  }
  SG_CHECK_CUDA(tr_k_schedule(c->iter, c->sched_step, c->sched_n,
                        1 + c->o.schedule_count, c->trip, s));
  const uint32_t *index = NULL;
  uint32_t again = 0;
  CK_SG(t->api, t->session,
        t->api->loop_begin(t->session, s, c->trip, &index, &again));
  while (again) {
    microbatch(t, s, index, block);
    CK_SG(t->api, t->session, t->api->loop_next(t->session, s, &again));
  }
  t->launches += 1;
}

static void digest(tr_trainer *t, cudaStream_t s, uint32_t phase) {
  tr_cond *c = &t->cond;
  if (c->o.dump_digests == NULL) {
    return;
  }
  const tr_model *m = &t->m;
  const size_t n = c->grads;
  const tr_k_region regions[TR_DIGEST_REGIONS] = {
      {m->master, n * sizeof(float)}, {m->adam_m, n * sizeof(float)},
      {m->adam_v, n * sizeof(float)}, {m->w, n},
      {m->wt, n},                     {m->step, sizeof *m->step}};
  SG_CHECK_CUDA(tr_k_digest(regions, c->iter, phase, c->digests, 2 * c->steps, s));
  t->launches++;
}

/* The optimizer step, guarded on finite gradients when asked: a step with
 * a NaN or inf leaves masters, W, W^T, Adam state and the step counter as
 * they were. */
static void update(tr_trainer *t, cudaStream_t s) {
  tr_cond *c = &t->cond;
  digest(t, s, 0);
  if (!c->o.skip_nonfinite) {
    tr_step_optimizer(t, s);
    digest(t, s, 1);
    return;
  }
  SG_CHECK_CUDA(tr_k_arm_and_inject(t->m.grad, c->iter, c->faults,
                              c->o.fault_count, c->finite, s));
  SG_CHECK_CUDA(tr_k_all_finite(t->m.grad, c->grads, c->finite, s));
  uint32_t run = 0;
  CK_SG(t->api, t->session, t->api->guard_begin(t->session, s, c->finite,
                                                &run));
  if (run) {
    tr_step_optimizer(t, s);
  }
  CK_SG(t->api, t->session, t->api->guard_end(t->session, s));
  digest(t, s, 1);
  t->launches += 2;
}

void tr_cond_step(tr_trainer *t, cudaStream_t stream) {
  tr_cond *c = &t->cond;
  t->hooks.loss_slot = c->iter;
  if (c->loops) {
    microbatches(t, stream);
  } else {
    tr_step_microbatch(t, stream);
  }
  update(t, stream);
  tr_step_end(t, stream);
  SG_CHECK_CUDA(tr_k_advance(c->iter, stream));
  t->launches++;
}

void tr_cond_eager_start(tr_trainer *t, cudaStream_t stream) {
  CK_SG(t->api, t->session, t->api->check_transposes(t->session, stream));
}

static void print_detector(tr_trainer *t) {
  sg_transpose_report r;
  memset(&r, 0, sizeof r);
  r.struct_size = sizeof r;
  CK_SG(t->api, t->session,
        t->api->transpose_report(t->session, t->stream, &r));
  if (!r.enabled) {
    return;
  }
  if (r.first_stale_param == UINT32_MAX) {
    printf("transpose check: %llu steps checked, no stale transpose\n",
           (unsigned long long)r.checks);
    return;
  }
  printf("transpose check: %llu steps checked; first stale: layer %u "
         "(group %u) at step %llu; %u of %u layers stale\n",
         (unsigned long long)r.checks, r.first_stale_param,
         r.first_stale_group, (unsigned long long)r.first_stale_check,
         r.stale_params, t->m.d.layers);
}

static void dump_digests(const tr_cond *c) {
  const size_t bytes = 2 * (size_t)c->steps * sizeof(uint64_t);
  uint64_t *host = TR_CALLOC(2 * (size_t)c->steps, sizeof(uint64_t),
                             "digests");
  SG_CHECK_CUDA(cudaMemcpy(host, c->digests, bytes, cudaMemcpyDeviceToHost));
  FILE *f = fopen(c->o.dump_digests, "wb");
  if (f == NULL || fwrite(host, 1, bytes, f) != bytes || fclose(f) != 0) {
    tr_die(__FILE__, __LINE__, "writing", c->o.dump_digests, strerror(errno));
  }
  free(host);
}

void tr_cond_report(tr_trainer *t) {
  sg_stats st;
  memset(&st, 0, sizeof st);
  st.struct_size = sizeof st;
  SG_CHECK_CUDA(cudaStreamSynchronize(t->stream));
  CK_SG(t->api, t->session, t->api->get_stats(t->session, &st));
  if (t->cond.active) {
    printf("stepgraph: %llu capture(s), %llu conditional node(s), %llu "
           "guard(s) opened (%llu skipped eagerly), %llu loop(s) opened\n",
           (unsigned long long)st.captures,
           (unsigned long long)st.conditional_nodes,
           (unsigned long long)st.guards,
           (unsigned long long)st.guards_skipped,
           (unsigned long long)st.loops);
  }
  print_detector(t);
  if (t->cond.o.dump_digests != NULL) {
    dump_digests(&t->cond);
  }
}

/* The device state of the trainer's conditional features: the loop's trip
 * count and its schedule, the step clock, the unrolled copies' indices,
 * the fault schedule and the finite flag, one microbatch's gradients, the
 * microbatch RNG base, and the digests. One allocation, made before the
 * first step. */
#ifndef TR_COND_STATE_H
#define TR_COND_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cond_options.h"
#include "model.h"

typedef struct tr_cond {
  tr_cond_options o;
  bool active;     /* the step is cond_step.c's */
  bool loops;      /* microbatches, through the loop or unrolled */
  uint32_t max_n;  /* the most microbatches of a step */
  uint64_t per_mb; /* Philox counters one microbatch draws */
  uint32_t steps;  /* digest pairs */
  size_t grads;    /* gradient elements */
  /* Device: */
  int32_t *trip;        /* this step's microbatches: the loop's count */
  uint32_t *iter;       /* steps run: the schedule's clock, the loss slot */
  uint32_t *slots;      /* [max_n] = 0, 1, ...: unrolled copies' indices */
  uint32_t *sched_step; /* [1 + schedule_count] */
  int32_t *sched_n;
  uint32_t *faults;     /* [fault_count] */
  int32_t *finite;      /* the step guard's flag */
  uint64_t *mb_base;    /* this microbatch's RNG base offset */
  float *grad_mb;       /* one microbatch's weight gradients */
  uint64_t *digests;    /* [2 * steps] */
  void *arena;
} tr_cond;

/* Nothing is allocated when the options use no conditional feature. */
void tr_cond_create(tr_cond *c, const tr_cond_options *o, const tr_model *m,
                    uint32_t steps);
void tr_cond_destroy(tr_cond *c);

#endif

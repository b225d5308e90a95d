/* The learning-rate schedule: computed on the host, handed to the step as a
 * host static source (the pattern "per-step scalars live in a small static
 * buffer", docs/HOST_CHECKLIST.md). The step's kernels read the rate from
 * the model's lr, a registered static buffer that the plugin fills before
 * every replay and every driver step from step i's page-locked slot; eager
 * steps fill it themselves from the same slot. The model starts with a rate
 * of 0 on the device, so a step that missed its copy would not train. */
#ifndef TR_SCHEDULE_H
#define TR_SCHEDULE_H

#include <stdint.h>

#include <cuda_runtime_api.h>

typedef struct tr_schedule {
  float *slots;    /* page-locked, [steps]: each step in flight keeps its
                      own value until its copy has run */
  uint32_t steps;
  uint32_t warmup; /* linear warm-up steps; 0: constant */
  float peak;
} tr_schedule;

/* Fills one slot per step with tr_schedule_rate. Exits on failure. */
void tr_schedule_create(tr_schedule *s, uint32_t steps, uint32_t warmup,
                        float peak);
void tr_schedule_destroy(tr_schedule *s);

/* Step i's rate: peak * (i + 1) / warmup during the warm-up, then peak. */
float tr_schedule_rate(const tr_schedule *s, uint32_t step);

/* Step i's slot: the host source of the lr static buffer. */
const void *tr_schedule_source(const tr_schedule *s, uint32_t step);

/* An eager step's own copy of its slot into the device rate. */
void tr_schedule_copy(const tr_schedule *s, uint32_t step, float *lr,
                      cudaStream_t stream);

#endif

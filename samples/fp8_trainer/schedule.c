#include "schedule.h"

#include "checks.h"

float tr_schedule_rate(const tr_schedule *s, uint32_t step) {
  if (step >= s->warmup) {
    return s->peak;
  }
  return s->peak * (float)(step + 1) / (float)s->warmup;
}

void tr_schedule_create(tr_schedule *s, uint32_t steps, uint32_t warmup,
                        float peak) {
  s->steps = steps;
  s->warmup = warmup;
  s->peak = peak;
  SG_CHECK_CUDA(cudaMallocHost((void **)&s->slots, steps * sizeof(float)));
  for (uint32_t i = 0; i < steps; i++) {
    s->slots[i] = tr_schedule_rate(s, i);
  }
}

void tr_schedule_destroy(tr_schedule *s) { SG_CHECK_CUDA(cudaFreeHost(s->slots)); }

const void *tr_schedule_source(const tr_schedule *s, uint32_t step) {
  return &s->slots[step];
}

void tr_schedule_copy(const tr_schedule *s, uint32_t step, float *lr,
                      cudaStream_t stream) {
  SG_CHECK_CUDA(cudaMemcpyAsync(lr, &s->slots[step], sizeof(float),
                          cudaMemcpyHostToDevice, stream));
}

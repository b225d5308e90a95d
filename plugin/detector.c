#include "detector.h"

#include <string.h>

#include "cuda_check.h"
#include "transpose_check.h"

static void clear_findings(sg_findings *f) {
  f->checks = 0;
  f->stale_params = 0;
  f->first_check = UINT64_MAX;
  f->first_param = UINT32_MAX;
}

sg_status sg_detector_open(sg_detector *d, sg_diag *diag, bool enabled,
                           bool with_device, uint32_t capacity,
                           cudaStream_t aux) {
  d->diag = diag;
  d->enabled = enabled;
  d->capacity = capacity;
  d->aux = aux;
  clear_findings(&d->found);
  if (!enabled || !with_device) {
    return SG_OK;
  }
  const size_t bytes = sg_k_check_state_bytes(capacity);
  sg_status st = SG_CUDA(diag, cudaMalloc(&d->state, bytes));
  if (st == SG_OK) {
    st = SG_CUDA(diag, cudaMallocHost(&d->image, bytes));
  }
  if (st == SG_OK) {
    sg_k_check_state_init(d->image, capacity);
    st = SG_CUDA(diag, cudaMemcpyAsync(d->state, d->image, bytes,
                                       cudaMemcpyHostToDevice, aux));
  }
  if (st == SG_OK) {
    st = SG_CUDA(diag, cudaStreamSynchronize(aux));
  }
  return st;
}

void sg_detector_close(sg_detector *d) {
  if (d->image != NULL) {
    (void)SG_CUDA(d->diag, cudaFreeHost(d->image));
  }
  if (d->state != NULL) {
    (void)SG_CUDA(d->diag, cudaFree(d->state));
  }
}

sg_status sg_detector_check(sg_detector *d, const void *table,
                            const sg_k_param *params, uint32_t count,
                            int sm_count, cudaStream_t stream) {
  if (d->state == NULL || count == 0) {
    return SG_OK;
  }
  return SG_CUDA(d->diag, sg_k_check_launch(table, d->state, params, count,
                                            sm_count, stream));
}

/* The findings of the host image of the block, for `count` parameters. */
static void summarise(sg_detector *d, uint32_t count) {
  const sg_k_check_header *h = d->image;
  const uint64_t *counters = (const uint64_t *)(h + 1);
  d->found.checks = h->checks;
  d->found.stale_params = 0;
  for (uint32_t i = 0; i < count; i++) {
    d->found.stale_params += counters[i] != 0;
  }
  if (h->first != SG_K_CHECK_NONE) {
    d->found.first_check = h->first >> SG_K_CHECK_INDEX_BITS;
    d->found.first_param =
        (uint32_t)(h->first & ((1ull << SG_K_CHECK_INDEX_BITS) - 1));
  }
}

/* The first finding, once: the host may never ask for a report. */
static void log_first(sg_detector *d, const sg_k_param *params) {
  if (d->logged || d->found.first_param == UINT32_MAX) {
    return;
  }
  d->logged = true;
  sg_log(&d->diag->log, SG_LOG_WARN,
         "stale FP8 transpose: registered param %u (group %u) had a Wt "
         "that is not transpose(W) at check %llu (%llu param(s) stale so "
         "far): a refresh of Wt is missing after the optimizer step",
         d->found.first_param, params[d->found.first_param].group,
         (unsigned long long)d->found.first_check,
         (unsigned long long)d->found.stale_params);
}

sg_status sg_detector_read(sg_detector *d, cudaStream_t stream,
                           const sg_k_param *params, uint32_t count,
                           uint64_t *mismatches, uint32_t n) {
  if (d->state == NULL) {
    clear_findings(&d->found);
    if (mismatches != NULL) {
      memset(mismatches, 0, (size_t)n * sizeof *mismatches);
    }
    return SG_OK;
  }
  /* The block is written by checks on `stream`: read it after them. */
  const size_t bytes = sg_k_check_state_bytes(count);
  sg_status st = SG_CUDA(d->diag, cudaStreamSynchronize(stream));
  if (st == SG_OK) {
    st = SG_CUDA(d->diag, cudaMemcpyAsync(d->image, d->state, bytes,
                                          cudaMemcpyDeviceToHost, d->aux));
  }
  if (st == SG_OK) {
    st = SG_CUDA(d->diag, cudaStreamSynchronize(d->aux));
  }
  if (st != SG_OK) {
    return st;
  }
  summarise(d, count);
  log_first(d, params);
  if (mismatches != NULL) {
    const uint64_t *counters = (const uint64_t *)((char *)d->image +
                                                  sizeof(sg_k_check_header));
    const uint32_t k = n < count ? n : count;
    memcpy(mismatches, counters, (size_t)k * sizeof *mismatches);
    memset(mismatches + k, 0, (size_t)(n - k) * sizeof *mismatches);
  }
  return SG_OK;
}

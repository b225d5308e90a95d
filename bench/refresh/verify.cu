/* bench_verify: download one tensor's inputs and outputs, run the CPU
 * reference on the inputs and count differing output bytes. */
#include "verify.h"

#include <stdlib.h>
#include <string.h>

#include "sg_cuda_check.h"
#include "fp8_reference.h"

typedef struct host_tensor {
  uint8_t *w, *wt, *master;
  float scalars[3]; /* scale, scale_inv, amax */
} host_tensor;

static void download(const sg_k_param *p, size_t master_bytes, host_tensor *h) {
  const size_t n = p->rows * p->cols;
  h->w = static_cast<uint8_t *>(malloc(n));
  h->wt = static_cast<uint8_t *>(malloc(n));
  h->master = static_cast<uint8_t *>(malloc(master_bytes));
  if (h->w == NULL || h->wt == NULL || h->master == NULL) {
    fprintf(stderr, "bench_verify: out of host memory\n");
    exit(1);
  }
  SG_CHECK_CUDA(cudaMemcpy(h->w, p->w, n, cudaMemcpyDeviceToHost));
  SG_CHECK_CUDA(cudaMemcpy(h->wt, p->wt, n, cudaMemcpyDeviceToHost));
  SG_CHECK_CUDA(cudaMemcpy(h->master, p->master, master_bytes, cudaMemcpyDeviceToHost));
  SG_CHECK_CUDA(cudaMemcpy(h->scalars, p->scale, sizeof h->scalars, cudaMemcpyDeviceToHost));
}

static void release(host_tensor *h) {
  free(h->w);
  free(h->wt);
  free(h->master);
}

/* The parameter `p` with its pointers moved to host copy h. */
static sg_k_param on_host(const sg_k_param *p, host_tensor *h) {
  sg_k_param q = *p;
  q.w = h->w;
  q.wt = h->wt;
  q.master = h->master;
  q.scale = &h->scalars[0];
  q.scale_inv = &h->scalars[1];
  q.amax = &h->scalars[2];
  return q;
}

static uint64_t count_diffs(const uint8_t *a, const uint8_t *b, size_t n) {
  uint64_t d = 0;
  for (size_t i = 0; i < n; i++) {
    d += a[i] != b[i];
  }
  return d;
}

static uint64_t verify_tensor(const sg_k_param *p, uint32_t mode) {
  const size_t n = p->rows * p->cols;
  const size_t master_bytes = n * (p->master_dtype == SG_K_MASTER_FP32 ? 4 : 2);
  host_tensor got, want;
  download(p, master_bytes, &got);
  download(p, master_bytes, &want);
  const sg_k_param q = on_host(p, &want);
  sg_ref_refresh(&q, mode);
  uint64_t diffs = count_diffs(got.w, want.w, n) + count_diffs(got.wt, want.wt, n);
  if (mode != SG_K_MODE_TRANSPOSE) {
    diffs += count_diffs(reinterpret_cast<const uint8_t *>(got.scalars + 1),
                         reinterpret_cast<const uint8_t *>(want.scalars + 1), 8);
  }
  release(&got);
  release(&want);
  return diffs;
}

uint64_t bench_verify(const bench_set *set, uint32_t mode, uint32_t master_dtype) {
  const uint32_t sample[3] = {0, set->count / 2, set->count - 1};
  uint64_t diffs = 0;
  for (int k = 0; k < 3; k++) {
    const sg_k_param p = bench_set_param(set, master_dtype, 0, sample[k]);
    diffs += verify_tensor(&p, mode);
  }
  return diffs;
}

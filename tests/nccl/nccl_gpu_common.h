/* Helpers of the multi-GPU session tests on one GPU (test_nccl_faults with
 * the NCCL test double, test_nccl_real with real NCCL): sessions on a
 * communicator, a key captured around one counter increment, a set of FP8
 * parameters in device memory and their amax. Header-only, on top of the
 * engine tests' gpu_common.h. */
#ifndef SG_NCCL_GPU_COMMON_H
#define SG_NCCL_GPU_COMMON_H

#include <math.h>

#include "clock.h"
#include "gpu_common.h"

/* A session on device 0 with `comm` and `table` (NULL: the plugin loads
 * NCCL), its agreement bound and timeout action. */
static inline sg_session *nt_session(sg_nccl_comm comm,
                                     const sg_nccl_functions *table,
                                     uint32_t timeout_ms, uint32_t action) {
  sg_session_config cfg = gt_config();
  cfg.nccl_comm = comm;
  cfg.nccl = table;
  cfg.nccl_timeout_ms = timeout_ms;
  cfg.nccl_on_timeout = action;
  cfg.warmup_steps = 1;
  return gt_session(&cfg);
}

/* A device int, 0. */
static inline int *nt_counter(void) {
  int *c = NULL;
  SG_CHECK_CUDA(cudaMalloc((void **)&c, sizeof(int)));
  SG_CHECK_CUDA(cudaMemset(c, 0, sizeof(int)));
  return c;
}

/* pre_capture, capture_begin, one increment of *counter recorded, then
 * capture_end's status. */
static inline sg_status nt_capture_add(sg_session *s, uint64_t key,
                                       cudaStream_t st, int *counter) {
  sg_capture_args c = gt_capture_args(key, st, SG_CAPTURE_THREAD_LOCAL);
  GT_OK(s, gt_api->pre_capture(s, (sg_stream)st));
  GT_OK(s, gt_api->capture_begin(s, &c));
  SG_CHECK_CUDA(tk_add_int(counter, 1, st));
  return gt_api->capture_end(s, &c);
}

static inline sg_graph_info nt_graph_info(sg_session *s, uint64_t key) {
  sg_graph_info gi;
  memset(&gi, 0, sizeof gi);
  gi.struct_size = sizeof gi;
  GT_OK(s, gt_api->graph_info(s, key, &gi));
  return gi;
}

static inline int nt_has(const char *text, const char *needle) {
  return strstr(text, needle) != NULL;
}
#define NT_DETAIL_HAS(s, needle)                                          \
  ck_assert_msg(nt_has(sg_test_detail(gt_api, (s)), (needle)),            \
                "detail \"%s\" lacks \"%s\"", sg_test_detail(gt_api, (s)), \
                (needle))

/* --- FP8 parameters --------------------------------------------------------- */

#define NT_PARAMS 3u
#define NT_ROWS 32u
#define NT_COLS 64u
#define NT_ELEMS (NT_ROWS * NT_COLS)

/* NT_PARAMS E4M3 parameters with FP32 masters, parameter p in group p, its
 * master's largest magnitude (p + 1) * 0.75, scale 1. */
typedef struct nt_params {
  uint8_t *w, *wt;   /* [NT_PARAMS][NT_ELEMS] */
  float *master;     /* [NT_PARAMS][NT_ELEMS] */
  float *scale, *scale_inv, *amax; /* [NT_PARAMS] */
} nt_params;

static inline void nt_params_create(nt_params *p) {
  const size_t n = (size_t)NT_PARAMS * NT_ELEMS;
  SG_CHECK_CUDA(cudaMalloc((void **)&p->w, n));
  SG_CHECK_CUDA(cudaMalloc((void **)&p->wt, n));
  SG_CHECK_CUDA(cudaMalloc((void **)&p->master, n * sizeof(float)));
  SG_CHECK_CUDA(cudaMalloc((void **)&p->scale, NT_PARAMS * sizeof(float)));
  SG_CHECK_CUDA(cudaMalloc((void **)&p->scale_inv, NT_PARAMS * sizeof(float)));
  SG_CHECK_CUDA(cudaMalloc((void **)&p->amax, NT_PARAMS * sizeof(float)));
  float *host = calloc(n, sizeof(float));
  ck_assert_ptr_nonnull(host);
  for (size_t i = 0; i < n; i++) {
    const size_t param = i / NT_ELEMS, at = i % NT_ELEMS;
    host[i] = (float)(param + 1) * 0.75f * sinf((float)at * 0.37f + 0.1f);
  }
  for (uint32_t k = 0; k < NT_PARAMS; k++) { /* the exact peak */
    host[(size_t)k * NT_ELEMS + 5] = -(float)(k + 1) * 0.75f;
  }
  SG_CHECK_CUDA(cudaMemcpy(p->master, host, n * sizeof(float),
                          cudaMemcpyHostToDevice));
  const float ones[NT_PARAMS] = {1.0f, 1.0f, 1.0f};
  SG_CHECK_CUDA(cudaMemcpy(p->scale, ones, sizeof ones, cudaMemcpyHostToDevice));
  SG_CHECK_CUDA(cudaMemset(p->amax, 0, NT_PARAMS * sizeof(float)));
  SG_CHECK_CUDA(cudaDeviceSynchronize()); /* before non-blocking streams */
  free(host);
}

static inline void nt_params_destroy(nt_params *p) {
  SG_CHECK_CUDA(cudaFree(p->w));
  SG_CHECK_CUDA(cudaFree(p->wt));
  SG_CHECK_CUDA(cudaFree(p->master));
  SG_CHECK_CUDA(cudaFree(p->scale));
  SG_CHECK_CUDA(cudaFree(p->scale_inv));
  SG_CHECK_CUDA(cudaFree(p->amax));
}

static inline void nt_params_register(sg_session *s, const nt_params *p) {
  sg_fp8_param_desc d[NT_PARAMS];
  memset(d, 0, sizeof d);
  for (uint32_t k = 0; k < NT_PARAMS; k++) {
    const size_t off = (size_t)k * NT_ELEMS;
    d[k].struct_size = sizeof d[k];
    d[k].format = SG_FP8_E4M3;
    d[k].master_dtype = SG_DTYPE_FP32;
    d[k].rows = NT_ROWS;
    d[k].cols = NT_COLS;
    d[k].data = p->w + off;
    d[k].ld_data = NT_COLS;
    d[k].transpose = p->wt + off;
    d[k].ld_transpose = NT_ROWS;
    d[k].master = p->master + off;
    d[k].ld_master = NT_COLS;
    d[k].scale = p->scale + k;
    d[k].scale_inv = p->scale_inv + k;
    d[k].amax = p->amax + k;
    d[k].group = k;
  }
  GT_OK(s, gt_api->register_fp8_params(s, d, NT_PARAMS, NULL));
}

/* The amax values, after `st`'s work. */
static inline void nt_read_amax(const nt_params *p, cudaStream_t st,
                                float out[NT_PARAMS]) {
  SG_CHECK_CUDA(cudaStreamSynchronize(st));
  SG_CHECK_CUDA(cudaMemcpy(out, p->amax, NT_PARAMS * sizeof(float),
                          cudaMemcpyDeviceToHost));
}

static inline sg_refresh_args nt_refresh(uint32_t mode, uint32_t group,
                                         uint32_t flags) {
  sg_refresh_args a;
  memset(&a, 0, sizeof a);
  a.struct_size = sizeof a;
  a.mode = mode;
  a.group = group;
  a.flags = flags;
  return a;
}

#endif

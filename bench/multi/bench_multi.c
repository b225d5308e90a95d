/* bench_multi: what a multi-GPU session adds, on one GPU with a
 * communicator of one rank (real NCCL).
 *
 *   bench_multi [--plugin path/to/libstepgraph.so.1] [--csv out.csv]
 *
 * 1. The agreement after a capture: capture_end's host time for a
 *    10-kernel step, in a session without a communicator and in one with,
 *    median over 100 captures (each key invalidated, so every capture
 *    instantiates); the difference is the agreement.
 * 2. The refresh (cast-transpose) with and without SG_REFRESH_REDUCE_AMAX,
 *    eagerly and replayed in a graph, GPU time per refresh (events around
 *    each), median over 50, for a small set (16 x 256x256, the trainer's)
 *    and a large one (96 x 1024x1024), FP32 masters.
 * Prints tables; --csv writes section,variant,n,metric,value,unit. */
#define _POSIX_C_SOURCE 200809L
#include <nccl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_kernels.h"
#include "bench_stats.h"
#include "nccl_table.h"
#include "sg_cuda_check.h"
#include "sg_load.h"

#define NC(call)                                                          \
  do {                                                                    \
    ncclResult_t nc_r_ = (call);                                          \
    if (nc_r_ != ncclSuccess) {                                           \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,       \
              ncclGetErrorString(nc_r_));                                 \
      exit(1);                                                            \
    }                                                                     \
  } while (0)

static const sg_api *api;

#define SG(s, call) BS_SG(api, (s), call)

#define CAPTURES 100
#define STEP_KERNELS 10
#define REFRESHES 50

static cudaStream_t stream;
static float *target;
static ncclComm_t comm;
static sg_nccl_functions table;

/* --- Sessions ------------------------------------------------------------- */

static sg_session *new_session(int with_comm, uint32_t params) {
  sg_session_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.struct_size = sizeof cfg;
  cfg.param_capacity = params;
  if (with_comm) {
    cfg.nccl_comm = comm;
    cfg.nccl = &table;
  }
  sg_session *s = NULL;
  SG(NULL, api->session_create(&cfg, &s));
  return s;
}

/* --- 1. The agreement ----------------------------------------------------- */

static double capture_end_us(int with_comm) {
  sg_session *s = new_session(with_comm, 0);
  SG(s, api->pre_capture(s, (sg_stream)stream));
  double us[CAPTURES];
  sg_capture_args a;
  memset(&a, 0, sizeof a);
  a.struct_size = sizeof a;
  a.key = 1;
  a.stream = (sg_stream)stream;
  for (int i = 0; i < CAPTURES; i++) {
    SG(s, api->capture_begin(s, &a));
    for (int k = 0; k < STEP_KERNELS; k++) {
      SG_CHECK_CUDA(bk_tiny(target, 1.0f, stream));
    }
    const double start = bs_now_us();
    SG(s, api->capture_end(s, &a));
    us[i] = bs_now_us() - start;
    SG(s, api->invalidate(s, 1));
  }
  api->session_destroy(s);
  return bs_quantile(us, CAPTURES, 0.5);
}

static void bench_agreement(void) {
  const double plain = capture_end_us(0), agreed = capture_end_us(1);
  bs_record("agreement", "no communicator", STEP_KERNELS, "capture_end",
            plain, "us");
  bs_record("agreement", "1-rank communicator", STEP_KERNELS, "capture_end",
            agreed, "us");
  bs_record("agreement", "difference", STEP_KERNELS, "agreement",
            agreed - plain, "us");
  printf("\n| capture_end, %d-kernel step (median of %d) | us |\n|---|---|\n",
         STEP_KERNELS, CAPTURES);
  printf("| no communicator | %.1f |\n| 1-rank communicator (with the "
         "agreement) | %.1f |\n| the agreement adds | %.1f |\n",
         plain, agreed, agreed - plain);
}

/* --- 2. The refresh with and without the amax reduction ------------------- */

typedef struct param_set {
  const char *name;
  uint32_t count;
  uint64_t side;
  uint8_t *w, *wt;
  float *master, *meta; /* meta: scale, scale_inv, amax, 16-byte slots */
} param_set;

static void set_create(param_set *p, sg_session *s) {
  const size_t n = (size_t)p->count * p->side * p->side;
  SG_CHECK_CUDA(cudaMalloc((void **)&p->w, n));
  SG_CHECK_CUDA(cudaMalloc((void **)&p->wt, n));
  SG_CHECK_CUDA(cudaMalloc((void **)&p->master, n * sizeof(float)));
  SG_CHECK_CUDA(cudaMalloc((void **)&p->meta, (size_t)p->count * 12 * sizeof(float)));
  SG_CHECK_CUDA(cudaMemset(p->master, 0x3c, n * sizeof(float))); /* ~0.0115 */
  SG_CHECK_CUDA(cudaMemset(p->meta, 0x3f, (size_t)p->count * 12 * sizeof(float)));
  SG_CHECK_CUDA(cudaDeviceSynchronize());
  sg_fp8_param_desc *d = calloc(p->count, sizeof *d);
  for (uint32_t k = 0; k < p->count; k++) {
    const size_t off = (size_t)k * p->side * p->side;
    d[k].struct_size = sizeof d[k];
    d[k].format = SG_FP8_E4M3;
    d[k].master_dtype = SG_DTYPE_FP32;
    d[k].rows = d[k].cols = p->side;
    d[k].data = p->w + off;
    d[k].ld_data = d[k].ld_transpose = d[k].ld_master = p->side;
    d[k].transpose = p->wt + off;
    d[k].master = p->master + off;
    d[k].scale = p->meta + 12u * k;
    d[k].scale_inv = p->meta + 12u * k + 4;
    d[k].amax = p->meta + 12u * k + 8;
  }
  SG(s, api->register_fp8_params(s, d, p->count, NULL));
  free(d);
}

static void set_destroy(param_set *p) {
  SG_CHECK_CUDA(cudaFree(p->w));
  SG_CHECK_CUDA(cudaFree(p->wt));
  SG_CHECK_CUDA(cudaFree(p->master));
  SG_CHECK_CUDA(cudaFree(p->meta));
}

static void refresh(sg_session *s, uint32_t flags) {
  sg_refresh_args a;
  memset(&a, 0, sizeof a);
  a.struct_size = sizeof a;
  a.mode = SG_REFRESH_CAST_TRANSPOSE;
  a.group = SG_ALL_GROUPS;
  a.flags = flags;
  SG(s, api->post_optimizer_step(s, (sg_stream)stream, &a));
}

/* Median GPU us of one refresh, eagerly or as the replay of a graph that
 * holds just it. */
static double refresh_us(sg_session *s, uint32_t flags, int graphed,
                         uint64_t key) {
  sg_replay_args r;
  memset(&r, 0, sizeof r);
  r.struct_size = sizeof r;
  r.key = key;
  r.stream = (sg_stream)stream;
  refresh(s, flags); /* warm-up: NCCL runs the collective eagerly first */
  if (graphed) {
    sg_capture_args c;
    memset(&c, 0, sizeof c);
    c.struct_size = sizeof c;
    c.key = key;
    c.stream = (sg_stream)stream;
    SG(s, api->pre_capture(s, (sg_stream)stream));
    SG(s, api->capture_begin(s, &c));
    refresh(s, flags);
    SG(s, api->capture_end(s, &c));
  }
  cudaEvent_t ev[REFRESHES + 1];
  for (int i = 0; i <= REFRESHES; i++) {
    SG_CHECK_CUDA(cudaEventCreate(&ev[i]));
  }
  for (int i = 0; i < REFRESHES; i++) {
    SG_CHECK_CUDA(cudaEventRecord(ev[i], stream));
    if (graphed) {
      SG(s, api->replay(s, &r));
    } else {
      refresh(s, flags);
    }
  }
  SG_CHECK_CUDA(cudaEventRecord(ev[REFRESHES], stream));
  SG_CHECK_CUDA(cudaEventSynchronize(ev[REFRESHES]));
  double us[REFRESHES];
  for (int i = 0; i < REFRESHES; i++) {
    float ms = 0;
    SG_CHECK_CUDA(cudaEventElapsedTime(&ms, ev[i], ev[i + 1]));
    us[i] = (double)ms * 1e3;
  }
  for (int i = 0; i <= REFRESHES; i++) {
    SG_CHECK_CUDA(cudaEventDestroy(ev[i]));
  }
  return bs_quantile(us, REFRESHES, 0.5);
}

static void bench_refresh_set(param_set *p) {
  sg_session *s = new_session(1, p->count);
  set_create(p, s);
  const char *variants[] = {"eager", "graph"};
  for (int graphed = 0; graphed < 2; graphed++) {
    const double plain = refresh_us(s, 0, graphed, 10 + graphed);
    const double reduced =
        refresh_us(s, SG_REFRESH_REDUCE_AMAX, graphed, 20 + graphed);
    const int n = (int)p->count;
    bs_record(p->name, variants[graphed], n, "refresh", plain, "us");
    bs_record(p->name, variants[graphed], n, "refresh+amax_reduction",
              reduced, "us");
    bs_record(p->name, variants[graphed], n, "amax_reduction",
              reduced - plain, "us");
    printf("| %s | %s | %.1f | %.1f | %+.1f |\n", p->name, variants[graphed],
           plain, reduced, reduced - plain);
  }
  api->session_destroy(s);
  set_destroy(p);
}

static void bench_refresh(void) {
  printf("\n| set | run | refresh us | with amax reduction us | difference "
         "|\n|---|---|---|---|---|\n");
  param_set small = {"16x256x256", 16, 256, NULL, NULL, NULL, NULL};
  param_set large = {"96x1024x1024", 96, 1024, NULL, NULL, NULL, NULL};
  bench_refresh_set(&small);
  bench_refresh_set(&large);
}

int main(int argc, char **argv) {
  const char *csv = NULL;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "--csv") == 0) {
      csv = argv[i + 1];
    } else if (strcmp(argv[i], "--plugin") == 0) {
      setenv("STEPGRAPH_PLUGIN", argv[i + 1], 1);
    } else {
      fprintf(stderr, "usage: bench_multi [--plugin PATH] [--csv FILE]\n");
      return 2;
    }
  }
  api = sg_test_load().api;
  SG_CHECK_CUDA(cudaSetDevice(0));
  SG_CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  SG_CHECK_CUDA(cudaMalloc((void **)&target, sizeof(float)));
  const int dev = 0;
  NC(ncclCommInitAll(&comm, 1, &dev));
  table = sg_real_nccl_table();
  int version = 0;
  NC(ncclGetVersion(&version));
  printf("bench_multi: one rank of NCCL %d on GPU 0\n", version);
  bench_agreement();
  bench_refresh();
  NC(ncclCommDestroy(comm)); /* after every session */
  if (csv != NULL) {
    bs_write_csv(csv);
  }
  return 0;
}

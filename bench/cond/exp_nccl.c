/* Q1, Q2: an NCCL collective inside a guard and inside a loop, on a
 * communicator of one rank (NCCL refuses two ranks on one GPU; one rank
 * runs the collective paths all the same). NCCL is loaded with dlopen: a
 * machine without it gets "skipped" as the answer. */
#include <dlfcn.h>
#include <nccl.h>
#include <stdio.h>
#include <string.h>

#include "experiments.h"
#include "gpu_kernels.h"
#include "sg_load.h"

#define COUNT 1024

typedef struct nccl {
  ncclResult_t (*get_unique_id)(ncclUniqueId *);
  ncclResult_t (*comm_init_rank)(ncclComm_t *, int, ncclUniqueId, int);
  ncclResult_t (*all_reduce)(const void *, void *, size_t, ncclDataType_t,
                             ncclRedOp_t, ncclComm_t, cudaStream_t);
  ncclResult_t (*get_version)(int *);
  ncclComm_t comm;
  int version;
} nccl;

static int load(xp *x, nccl *n) {
  static const char *const names[] = {
      "libnccl.so.2", "/usr/local/cuda/lib64/libnccl.so.2",
      "/usr/local/cuda-13.0/lib64/libnccl.so.2"};
  void *lib = NULL;
  for (size_t i = 0; i < 3 && lib == NULL; i++) {
    lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
  }
  if (lib == NULL) {
    snprintf(x->answer, XP_ANSWER, "skipped: NCCL unavailable (%s)",
             dlerror());
    return 0;
  }
  *(void **)&n->get_unique_id = dlsym(lib, "ncclGetUniqueId");
  *(void **)&n->comm_init_rank = dlsym(lib, "ncclCommInitRank");
  *(void **)&n->all_reduce = dlsym(lib, "ncclAllReduce");
  *(void **)&n->get_version = dlsym(lib, "ncclGetVersion");
  if (!n->get_unique_id || !n->comm_init_rank || !n->all_reduce ||
      !n->get_version) {
    snprintf(x->answer, XP_ANSWER, "skipped: NCCL lacks a symbol");
    return 0;
  }
  ncclUniqueId id;
  XP_CUDA(x, cudaSetDevice(0));
  if (n->get_unique_id(&id) != ncclSuccess ||
      n->comm_init_rank(&n->comm, 1, id, 0) != ncclSuccess) {
    snprintf(x->answer, XP_ANSWER, "skipped: a 1-rank communicator could "
             "not be made");
    return 0;
  }
  n->get_version(&n->version);
  printf("  NCCL %d, 1-rank communicator\n", n->version);
  return 1;
}

static void all_reduce(xp *x, nccl *n, const int *send, int *recv,
                       size_t count) {
  const ncclResult_t r =
      n->all_reduce(send, recv, count, ncclInt32, ncclSum, n->comm, x->st);
  if (r != ncclSuccess) {
    printf("  ncclAllReduce returned %d\n", (int)r);
  }
}

/* Buffers: send = 0..COUNT-1 + base, recv = -1. */
static void fill(xp *x, int *send, int *recv, int base) {
  int host[COUNT];
  for (int i = 0; i < COUNT; i++) {
    host[i] = base + i;
  }
  XP_CUDA(x, cudaMemcpy(send, host, sizeof host, cudaMemcpyHostToDevice));
  XP_CUDA(x, cudaMemset(recv, 0xff, sizeof host));
  XP_CUDA(x, cudaDeviceSynchronize());
}

/* NCCL, a session, send/recv buffers and one device int; the collective
 * warmed up eagerly (NCCL's rule before capture). 0: skipped (answered). */
static int prepare(xp *x, nccl *n, int **send, int **recv, int **word) {
  memset(n, 0, sizeof *n);
  if (!load(x, n)) {
    return 0;
  }
  xp_open(x, SG_LOG_WARN);
  XP_CUDA(x, cudaMalloc((void **)send, COUNT * sizeof(int)));
  XP_CUDA(x, cudaMalloc((void **)recv, COUNT * sizeof(int)));
  XP_CUDA(x, cudaMalloc((void **)word, sizeof(int)));
  fill(x, *send, *recv, 0);
  all_reduce(x, n, *send, *recv, COUNT);
  XP_CUDA(x, cudaStreamSynchronize(x->st));
  return 1;
}

void xp_nccl_guard(xp *x) {
  nccl n;
  int *send = NULL, *recv = NULL, *flag = NULL;
  if (!prepare(x, &n, &send, &recv, &flag)) {
    return;
  }
  sg_capture_args ca = xp_capture_args(x, 1);
  uint32_t run = 0;
  XP_SG(x, x->api->capture_begin(x->s, &ca));
  XP_SG(x, x->api->guard_begin(x->s, (sg_stream)x->st, flag, &run));
  all_reduce(x, &n, send, recv, COUNT);
  XP_SG(x, x->api->guard_end(x->s, (sg_stream)x->st));
  const sg_status st = x->api->capture_end(x->s, &ca);
  if (st != SG_OK) {
    snprintf(x->answer, XP_ANSWER, "refused at capture_end (%s): %s; the "
             "plugin then runs the key eagerly",
             x->api->status_string(st), sg_test_detail(x->api, x->s));
    return;
  }
  int ok = 1;
  for (int taken = 1; taken >= 0; taken--) {
    fill(x, send, recv, 100 * (taken + 1));
    XP_CUDA(x, tk_set_int(flag, taken, x->st));
    const sg_status rs = xp_replay(x, 1);
    const int got = xp_read_int(x, recv + 5);
    printf("  guard %s: replay %s, recv[5] = %d (expected %d)\n",
           taken ? "taken" : "skipped", x->api->status_string(rs), got,
           taken ? 100 * (taken + 1) + 5 : -1);
    ok &= rs == SG_OK && got == (taken ? 100 * (taken + 1) + 5 : -1);
  }
  snprintf(x->answer, XP_ANSWER, ok ? "supported: captured, instantiated and "
           "replayed right, taken and skipped (NCCL %d)"
           : "captured but WRONG at replay (see above; NCCL %d)", n.version);
}

void xp_nccl_loop(xp *x) {
  nccl n;
  int *send = NULL, *recv = NULL, *trip = NULL;
  if (!prepare(x, &n, &send, &recv, &trip)) {
    return;
  }
  sg_capture_args ca = xp_capture_args(x, 2);
  const uint32_t *index = NULL;
  uint32_t again = 0;
  XP_SG(x, x->api->capture_begin(x->s, &ca));
  XP_SG(x, x->api->loop_begin(x->s, (sg_stream)x->st, trip, &index, &again));
  XP_CUDA(x, tk_add_int(send, 1, x->st)); /* send[0] += 1 each iteration */
  all_reduce(x, &n, send, recv, 1);
  XP_SG(x, x->api->loop_next(x->s, (sg_stream)x->st, &again));
  const sg_status st = x->api->capture_end(x->s, &ca);
  if (st != SG_OK) {
    snprintf(x->answer, XP_ANSWER, "refused at capture_end (%s): %s",
             x->api->status_string(st), sg_test_detail(x->api, x->s));
    return;
  }
  int ok = 1;
  const int trips[] = {3, 5};
  for (int k = 0; k < 2; k++) {
    fill(x, send, recv, 0);
    XP_CUDA(x, tk_set_int(trip, trips[k], x->st));
    const sg_status rs = xp_replay(x, 2);
    const int got = xp_read_int(x, recv);
    printf("  %d iterations: replay %s, recv[0] = %d (expected %d)\n",
           trips[k], x->api->status_string(rs), got, trips[k]);
    ok &= rs == SG_OK && got == trips[k];
  }
  snprintf(x->answer, XP_ANSWER, ok ? "supported: replayed right for 3 and 5 "
           "iterations (NCCL %d)" : "captured but WRONG at replay (NCCL %d)",
           n.version);
}

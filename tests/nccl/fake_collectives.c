#include "fake_collectives.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "fake_spin.h"

#define SPIN_MAX_SECONDS 30u

fake_peers peers;

#define SLOTS 64u

/* One enqueued all-reduce: its arguments and its pinned staging, kept in a
 * ring so that a graph that captured it finds its own when replayed (a
 * test makes far fewer than SLOTS between a capture and its replays). */
typedef struct slot {
  size_t count;
  int32_t datatype, op;
  void *staging; /* FAKE_MAX_ELEMS * 8 bytes, pinned */
} slot;

static slot slots[SLOTS];
static uint32_t next_slot;
static volatile int *abort_flag;     /* host-mapped */
static const volatile int *flag_dev; /* its device address */

static int32_t cuda_failed(cudaError_t err, const char *what) {
  fprintf(stderr, "fake collective: %s: %s\n", what, cudaGetErrorName(err));
  return FAKE_INVALID_USAGE;
}

/* The reduction itself, on the host between the two copies. */
static void combine(void *user) {
  const slot *a = user;
  peers.seen_count = a->count;
  if (a->datatype == 5 && a->op == 0) { /* ncclUint64, ncclSum */
    uint64_t *v = a->staging;
    for (size_t i = 0; i < a->count; i++) {
      peers.seen[i] = v[i];
      v[i] += peers.sum_u64[i];
    }
  } else if (a->datatype == 3 && a->op == 2) { /* ncclUint32, ncclMax */
    uint32_t *v = a->staging;
    for (size_t i = 0; i < a->count; i++) {
      peers.seen[i] = v[i];
      v[i] = v[i] > peers.max_u32[i] ? v[i] : peers.max_u32[i];
    }
  }
}

static size_t elem_bytes(int32_t datatype) {
  return datatype == 5 ? 8u : datatype == 3 ? 4u : 0u;
}

static int32_t reduce(const void *send, void *recv, size_t count,
                      int32_t datatype, int32_t op, sg_stream stream) {
  const size_t bytes = count * elem_bytes(datatype);
  if (bytes == 0 || count > FAKE_MAX_ELEMS) {
    return FAKE_INVALID_ARGUMENT;
  }
  cudaStream_t s = (cudaStream_t)stream;
  slot *a = &slots[next_slot++ % SLOTS];
  a->count = count;
  a->datatype = datatype;
  a->op = op;
  cudaError_t err =
      cudaMemcpyAsync(a->staging, send, bytes, cudaMemcpyDeviceToHost, s);
  if (err == cudaSuccess) {
    err = cudaLaunchHostFunc(s, combine, a);
  }
  if (err == cudaSuccess) {
    err = cudaMemcpyAsync(recv, a->staging, bytes, cudaMemcpyHostToDevice, s);
  }
  return err == cudaSuccess ? FAKE_SUCCESS : cuda_failed(err, "reduce");
}

static int32_t hang(const void *send, void *recv, size_t count,
                    int32_t datatype, int32_t op, sg_stream stream) {
  (void)send, (void)recv, (void)count, (void)datatype, (void)op;
  cudaError_t err =
      fake_spin_launch(flag_dev, SPIN_MAX_SECONDS, (cudaStream_t)stream);
  return err == cudaSuccess ? FAKE_SUCCESS : cuda_failed(err, "spin");
}

static void release_on_abort(void) { fake_collectives_release(); }

static void allocate_once(void) {
  if (abort_flag != NULL) {
    return;
  }
  cudaError_t err = cudaHostAlloc((void **)&abort_flag, sizeof *abort_flag,
                                  cudaHostAllocMapped);
  if (err == cudaSuccess) {
    err = cudaHostGetDevicePointer((void **)&flag_dev, (void *)abort_flag, 0);
  }
  for (uint32_t i = 0; i < SLOTS && err == cudaSuccess; i++) {
    err = cudaMallocHost(&slots[i].staging, FAKE_MAX_ELEMS * sizeof(uint64_t));
  }
  if (err != cudaSuccess) {
    cuda_failed(err, "pinned memory");
    exit(1);
  }
}

void fake_collectives_reduce(void) {
  allocate_once();
  memset(&peers, 0, sizeof peers);
  fake.collective = reduce;
  fake.on_abort = NULL;
}

void fake_collectives_hang(void) {
  allocate_once();
  *abort_flag = 0;
  fake.collective = hang;
  fake.on_abort = release_on_abort;
}

void fake_collectives_release(void) {
  if (abort_flag != NULL) {
    *abort_flag = 1;
  }
}

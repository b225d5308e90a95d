/* bench_cond: what stepgraph's conditional regions and stale-transpose
 * detector cost (ABI 1.1).
 *
 *   bench_cond [--plugin path/to/libstepgraph.so.1] [--csv out.csv]
 *              [--reps N] [--no-detector]
 *
 * 1. N = 1, 4, 16, 64 microbatches a step: the plugin's WHILE loop (one
 *    graph for every N) against N unrolled copies in a graph and eager
 *    launches: nodes, capture ms, instantiate ms, executable memory, step
 *    time (goal: WHILE within 2% of unrolled, capture + instantiate
 *    constant in N).
 * 2. The step guard's cost on a taken and a skipped step, graph and eager.
 * 3. The detector's check on the GPT parameter set against a transpose
 *    refresh of it.
 * Prints tables; --csv writes every number as section,variant,n,metric,
 * value,unit. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <string.h>

#include "bench_cond.h"
#include "sg_load.h"

static void allocate(bc *b) {
  BC_CUDA(cudaStreamCreateWithFlags(&b->stream, cudaStreamNonBlocking));
  float **bufs[] = {&b->acc, &b->work, &b->w};
  for (size_t i = 0; i < 3; i++) {
    BC_CUDA(cudaMalloc((void **)bufs[i], BC_ELEMS * sizeof(float)));
    BC_CUDA(cudaMemset(*bufs[i], 0, BC_ELEMS * sizeof(float)));
  }
  const size_t inputs = (size_t)BC_SLICES * BC_ELEMS * sizeof(float);
  BC_CUDA(cudaMalloc((void **)&b->inputs, inputs));
  BC_CUDA(cudaMemset(b->inputs, 0, inputs));
  uint32_t slots[BC_MAX_N];
  for (uint32_t i = 0; i < BC_MAX_N; i++) {
    slots[i] = i;
  }
  BC_CUDA(cudaMalloc((void **)&b->slots, sizeof slots));
  BC_CUDA(cudaMemcpy(b->slots, slots, sizeof slots, cudaMemcpyHostToDevice));
  BC_CUDA(cudaMalloc((void **)&b->trip, sizeof *b->trip));
  BC_CUDA(cudaMalloc((void **)&b->flag, sizeof *b->flag));
  BC_CUDA(cudaDeviceSynchronize());
}

int main(int argc, char **argv) {
  const char *csv = NULL;
  bc b;
  memset(&b, 0, sizeof b);
  b.reps = 50;
  int detector = 1;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--csv") == 0 && i + 1 < argc) {
      csv = argv[++i];
    } else if (strcmp(argv[i], "--plugin") == 0 && i + 1 < argc) {
      setenv("STEPGRAPH_PLUGIN", argv[++i], 1);
    } else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
      b.reps = atoi(argv[++i]);
    } else if (strcmp(argv[i], "--no-detector") == 0) {
      detector = 0;
    } else {
      fprintf(stderr, "usage: %s [--plugin libstepgraph.so.1] [--csv "
              "out.csv] [--reps N] [--no-detector]\n", argv[0]);
      return 2;
    }
  }
  b.reps = b.reps < 5 ? 5 : b.reps;
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    fprintf(stderr, "bench_cond: no usable GPU\n");
    return 1;
  }
  b.api = sg_test_load().api;
  allocate(&b);
  b.s = bc_session(&b, 0);
  struct cudaDeviceProp prop;
  BC_CUDA(cudaGetDeviceProperties(&prop, 0));
  printf("bench_cond on %s\n", prop.name);
  bc_loop_section(&b);
  bc_guard_section(&b);
  if (detector) {
    bc_detector_section(&b);
  }
  if (csv != NULL) {
    bc_write_csv(csv);
  }
  b.api->session_destroy(b.s);
  return 0;
}

/* bench_cond: what stepgraph's conditional regions and stale-transpose
 * detector cost (ABI 1.1).
 *
 *   bench_cond [--plugin path/to/libstepgraph.so.1] [--csv out.csv]
 *              [--reps N] [--no-detector] [--body-mib LIST|none]
 *
 * 1. N = 1, 4, 16, 64 microbatches a step: the plugin's WHILE loop (one
 *    graph for every N) against N unrolled copies in a graph and eager
 *    launches: nodes, capture ms, instantiate ms, executable memory, step
 *    time (goal: WHILE within 2% of unrolled, capture + instantiate
 *    constant in N). Then the same for larger microbatches: buffers of
 *    each --body-mib size (default 12,56,240: about 0.1, 0.5 and 2 ms a
 *    microbatch on an H200), WHILE against unrolled only, so the table
 *    shows from which microbatch duration on the 2% goal holds.
 * 2. The step guard's cost on a taken and a skipped step, graph and eager.
 * 3. The detector's check on the GPT parameter set against a transpose
 *    refresh of it.
 * Prints tables; --csv writes every number as section,variant,n,metric,
 * value,unit. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <string.h>

#include "bench_cond.h"
#include "sg_load.h"

/* The most floats a buffer needs: 1 MiB or the largest --body-mib. */
static size_t max_elems(const bc *b) {
  size_t most = BC_ELEMS;
  for (int i = 0; i < b->bodies; i++) {
    const size_t n = (size_t)(b->body_mib[i] * 1024.0 * 1024.0) / sizeof(float);
    most = n > most ? n : most;
  }
  return most;
}

static float *zeroed(size_t floats) {
  float *p = NULL;
  BC_CUDA(cudaMalloc((void **)&p, floats * sizeof(float)));
  BC_CUDA(cudaMemset(p, 0, floats * sizeof(float)));
  return p;
}

static void allocate(bc *b) {
  BC_CUDA(cudaStreamCreateWithFlags(&b->stream, cudaStreamNonBlocking));
  const size_t n = max_elems(b);
  b->elems = BC_ELEMS;
  b->acc = zeroed(n);
  b->w = zeroed(n);
  b->work = zeroed((size_t)BC_WORK * n);
  b->inputs = zeroed((size_t)BC_SLICES * n);
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

/* "12,56,240" into b->body_mib; "none" for none. 0 when malformed. */
static int parse_bodies(bc *b, const char *list) {
  b->bodies = 0;
  if (strcmp(list, "none") == 0) {
    return 1;
  }
  for (const char *p = list; *p != '\0' && b->bodies < BC_MAX_BODIES;) {
    char *end = NULL;
    const double mib = strtod(p, &end);
    if (end == p || mib <= 0.0 || (*end != ',' && *end != '\0')) {
      return 0;
    }
    b->body_mib[b->bodies++] = mib;
    p = *end == ',' ? end + 1 : end;
  }
  return 1;
}

int main(int argc, char **argv) {
  const char *csv = NULL;
  bc b;
  memset(&b, 0, sizeof b);
  b.reps = 50;
  int detector = 1;
  parse_bodies(&b, "12,56,240");
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--csv") == 0 && i + 1 < argc) {
      csv = argv[++i];
    } else if (strcmp(argv[i], "--plugin") == 0 && i + 1 < argc) {
      setenv("STEPGRAPH_PLUGIN", argv[++i], 1);
    } else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
      b.reps = atoi(argv[++i]);
    } else if (strcmp(argv[i], "--no-detector") == 0) {
      detector = 0;
    } else if (strcmp(argv[i], "--body-mib") == 0 && i + 1 < argc &&
               parse_bodies(&b, argv[i + 1])) {
      i++;
    } else {
      fprintf(stderr, "usage: %s [--plugin libstepgraph.so.1] [--csv "
              "out.csv] [--reps N] [--no-detector] [--body-mib "
              "LIST|none]\n", argv[0]);
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
  bc_loop_bodies_section(&b);
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

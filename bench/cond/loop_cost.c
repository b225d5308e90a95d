/* bench_loop_cost: what one iteration of a WHILE node costs, and whether
 * another place for the loop's bookkeeping (the step kernel after the
 * microbatch, in the plugin) makes it cheaper. Plain CUDA graphs.
 *
 *   bench_loop_cost [--reps N] [--csv out.csv]
 *
 * (a) A body of only the bookkeeping: µs per iteration = (T(trip N) −
 *     T(trip 0)) / N, for every variant (loop_cost.h, lc_variant).
 * (b) A body of k = 1, 4, 16 chained kernels of one block, 1 MiB and 16 MiB
 *     (v[i] += 1, the first also counting the index it read): µs per
 *     iteration = (WHILE − unrolled) / N against the k·N kernels in a row.
 * (c) The unrolled graph plus one one-thread kernel a microbatch, against
 *     the unrolled graph: what one more node costs, without a conditional.
 * N = 1, 4, 16, 64. Every graph is first launched once from zeroed state
 * and what its kernels wrote (the index each microbatch read, the count of
 * touches, the final index) compared with what N iterations give: a cell
 * reads WRONG when it differs, "refused" when CUDA would not build or
 * instantiate the variant (the reason follows the table). Times: GPU time
 * of one launch, median of --reps (at least 50) after one warm-up
 * (bc_step_us). */
#define _POSIX_C_SOURCE 200809L
#include <string.h>

#include "bench_cond.h"
#include "loop_cost.h"

static const int counts[] = {1, 4, 16, 64};
#define COUNTS 4
static const int ks[] = {1, 4, 16};
#define KS 3
static const struct {
  const char *name;
  size_t n;
} sizes[] = {{"tiny", 256}, {"1MiB", 256u * 1024u}, {"16MiB", 4u << 20}};
#define SIZES 3
#define ROWS (LC_VARIANTS + 1) /* + the unrolled graph's extra kernel */

typedef struct seen {
  uint32_t hist[LC_HIST + 1], index, scratch;
  float first, last;
} seen;

static cudaGraphExec_t instantiate(cudaGraph_t g) {
  cudaGraphExec_t e = NULL;
  BC_CUDA(cudaGraphInstantiate(&e, g, 0));
  BC_CUDA(cudaGraphDestroy(g));
  return e;
}

/* The WHILE graph of v, instantiated; NULL (and why) when CUDA refuses. */
static cudaGraphExec_t while_exec(const lc_dev *d, lc_variant v, int k,
                                  cudaError_t *why) {
  cudaGraph_t g = NULL;
  cudaGraphExec_t e = NULL;
  *why = v == LC_TAIL_PROGRAMMATIC && d->major < 9
             ? cudaErrorNotSupported
             : lc_while_graph(d, v, k, &g);
  if (*why == cudaSuccess) {
    *why = cudaGraphInstantiate(&e, g, 0);
    (void)cudaGetLastError();
    BC_CUDA(cudaGraphDestroy(g));
  }
  return *why == cudaSuccess ? e : NULL;
}

static void set_trip(const lc_dev *d, int trip) {
  BC_CUDA(cudaMemcpyAsync(d->trip, &trip, sizeof trip, cudaMemcpyHostToDevice,
                          d->stream));
}

static void launch(const bc *b, void *exec) {
  BC_CUDA(cudaGraphLaunch(*(cudaGraphExec_t *)exec, b->stream));
}

/* One launch from zeroed counters and buffer. */
static seen launch_once(const lc_dev *d, cudaGraphExec_t e, int trip) {
  seen s;
  BC_CUDA(cudaMemsetAsync(d->v, 0, d->n * sizeof(float), d->stream));
  BC_CUDA(cudaMemsetAsync(d->hist, 0, sizeof s.hist, d->stream));
  BC_CUDA(cudaMemsetAsync(d->scratch, 0, sizeof s.scratch, d->stream));
  BC_CUDA(cudaMemsetAsync(d->index, 0x5a, sizeof s.index, d->stream));
  set_trip(d, trip);
  BC_CUDA(cudaGraphLaunch(e, d->stream));
  BC_CUDA(cudaStreamSynchronize(d->stream));
  BC_CUDA(cudaMemcpy(s.hist, d->hist, sizeof s.hist, cudaMemcpyDeviceToHost));
  BC_CUDA(cudaMemcpy(&s.index, d->index, sizeof s.index,
                     cudaMemcpyDeviceToHost));
  BC_CUDA(cudaMemcpy(&s.scratch, d->scratch, sizeof s.scratch,
                     cudaMemcpyDeviceToHost));
  BC_CUDA(cudaMemcpy(&s.first, d->v, sizeof s.first, cudaMemcpyDeviceToHost));
  BC_CUDA(cudaMemcpy(&s.last, d->v + d->n - 1, sizeof s.last,
                     cudaMemcpyDeviceToHost));
  return s;
}

/* Microbatch i read index i once, for i < trip, and nothing else; every
 * element was touched k times a microbatch. */
static int microbatches_right(const seen *s, int k, int trip) {
  int ok = s->first == (float)(k * trip) && s->last == (float)(k * trip);
  for (uint32_t j = 0; j <= LC_HIST; j++) {
    ok &= s->hist[j] == (k > 0 && (int)j < trip ? 1u : 0u);
  }
  return ok;
}

static int while_right(const lc_dev *d, cudaGraphExec_t e, lc_variant v,
                       int k, int trip) {
  const seen s = launch_once(d, e, trip);
  return microbatches_right(&s, k, trip) &&
         s.index == lc_final_index(v, trip);
}

static int unrolled_right(const lc_dev *d, cudaGraphExec_t e, int k,
                          int trip, int extra) {
  const seen s = launch_once(d, e, trip);
  return microbatches_right(&s, k, trip) &&
         s.scratch == (extra ? (uint32_t)trip : 0u);
}

static double timed(const bc *b, const lc_dev *d, cudaGraphExec_t e,
                    int trip) {
  set_trip(d, trip);
  return bc_step_us(b, launch, &e);
}

/* A table's cells: µs per iteration, or WRONG, or refused. */
typedef struct cell {
  double us;
  int right;
  cudaError_t refused;
} cell;

static void print_row(const char *body, int k, const char *variant,
                      const cell *cells) {
  printf("| %-5s | %2d | %-24s |", body, k, variant);
  for (int c = 0; c < COUNTS; c++) {
    if (cells[c].refused != cudaSuccess) {
      printf(" %8s |", "refused");
    } else if (cells[c].right) {
      printf(" %+8.2f |", cells[c].us);
    } else {
      printf(" %8s |", "WRONG");
    }
  }
  printf("\n");
}

/* After a table: why CUDA refused a variant. */
static void refusals(const cudaError_t *why) {
  for (int v = 0; v < LC_VARIANTS; v++) {
    if (why[v] != cudaSuccess) {
      printf("  %s refused: %s (%s)\n", lc_variant_names[v],
             cudaGetErrorName(why[v]), cudaGetErrorString(why[v]));
    }
  }
}

static void header(const char *what) {
  printf("\n%s\n| %-5s | %2s | %-24s |", what, "body", "k", "variant");
  for (int c = 0; c < COUNTS; c++) {
    printf("   N=%-4d |", counts[c]);
  }
  printf("\n|-------|----|--------------------------|----------|----------|"
         "----------|----------|\n");
}

static char labels[SIZES][KS][ROWS][64];

static const char *label(int s, int kk, int r) {
  char *l = labels[s][kk][r];
  snprintf(l, sizeof labels[s][kk][r], "%s k=%d %s", sizes[s].name, ks[kk],
           r < LC_VARIANTS ? lc_variant_names[r] : "unrolled + 1 kernel");
  return l;
}

static void record(const char *variant, int n, const cell *c, double step) {
  bc_record("loop_cost", variant, n, "per_iteration", c->us, "us");
  bc_record("loop_cost", variant, n, "step", step, "us");
  bc_record("loop_cost", variant, n, "correct", c->right, "bool");
}

/* (a): the bookkeeping alone. */
static void pure_iteration(const bc *b, lc_dev *d) {
  header("(a) WHILE body of only the loop's bookkeeping: us per iteration "
         "= (T(N) - T(trip 0)) / N");
  d->n = 1;
  cudaError_t why[LC_VARIANTS];
  for (int v = 0; v < LC_VARIANTS; v++) {
    cudaGraphExec_t e = while_exec(d, (lc_variant)v, 0, &why[v]);
    cell cells[COUNTS];
    memset(cells, 0, sizeof cells);
    for (int c = 0; c < COUNTS && e != NULL; c++) {
      const int n = counts[c];
      cells[c].right = while_right(d, e, (lc_variant)v, 0, 0) &&
                       while_right(d, e, (lc_variant)v, 0, n);
      const double t0 = timed(b, d, e, 0), t = timed(b, d, e, n);
      cells[c].us = (t - t0) / n;
      record(lc_variant_names[v], n, &cells[c], t);
    }
    for (int c = 0; c < COUNTS; c++) {
      cells[c].refused = why[v];
    }
    print_row("-", 0, lc_variant_names[v], cells);
    if (e != NULL) {
      BC_CUDA(cudaGraphExecDestroy(e));
    }
  }
  refusals(why);
}

/* (b) and (c) for one body size and k, N = counts. */
static void chained(const bc *b, const lc_dev *d, int s, int kk) {
  const int k = ks[kk];
  cudaGraphExec_t w[LC_VARIANTS];
  cudaError_t why[LC_VARIANTS];
  for (int v = 0; v < LC_VARIANTS; v++) {
    w[v] = while_exec(d, (lc_variant)v, k, &why[v]);
  }
  cell cells[ROWS][COUNTS];
  memset(cells, 0, sizeof cells);
  double unrolled_us[COUNTS];
  for (int c = 0; c < COUNTS; c++) {
    const int n = counts[c];
    cudaGraphExec_t u = instantiate(lc_unrolled_graph(d, k, n, 0));
    cudaGraphExec_t u1 = instantiate(lc_unrolled_graph(d, k, n, 1));
    const int u_right = unrolled_right(d, u, k, n, 0);
    const double tu = timed(b, d, u, n);
    unrolled_us[c] = tu;
    for (int v = 0; v < LC_VARIANTS; v++) {
      cells[v][c].refused = why[v];
      if (w[v] == NULL) {
        continue;
      }
      cells[v][c].right =
          u_right && while_right(d, w[v], (lc_variant)v, k, n);
      const double t = timed(b, d, w[v], n);
      cells[v][c].us = (t - tu) / n;
      record(label(s, kk, v), n, &cells[v][c], t);
    }
    cells[LC_VARIANTS][c].right = u_right && unrolled_right(d, u1, k, n, 1);
    const double t1 = timed(b, d, u1, n);
    cells[LC_VARIANTS][c].us = (t1 - tu) / n;
    record(label(s, kk, LC_VARIANTS), n, &cells[LC_VARIANTS][c], t1);
    bc_record("loop_cost", label(s, kk, LC_VARIANTS), n, "unrolled_step", tu,
              "us");
    BC_CUDA(cudaGraphExecDestroy(u));
    BC_CUDA(cudaGraphExecDestroy(u1));
  }
  printf("| %-5s | %2d | %-24s |", sizes[s].name, k, "(unrolled: us a step)");
  for (int c = 0; c < COUNTS; c++) {
    printf(" %8.1f |", unrolled_us[c]);
  }
  printf("\n");
  for (int r = 0; r < ROWS; r++) {
    print_row(sizes[s].name, k,
              r < LC_VARIANTS ? lc_variant_names[r] : "unrolled + 1 kernel",
              cells[r]);
  }
  refusals(why);
  for (int v = 0; v < LC_VARIANTS; v++) {
    if (w[v] != NULL) {
      BC_CUDA(cudaGraphExecDestroy(w[v]));
    }
  }
}

static void allocate(lc_dev *d) {
  BC_CUDA(cudaStreamCreateWithFlags(&d->stream, cudaStreamNonBlocking));
  BC_CUDA(cudaMalloc((void **)&d->v, sizes[SIZES - 1].n * sizeof(float)));
  BC_CUDA(cudaMalloc((void **)&d->hist, (LC_HIST + 1) * sizeof *d->hist));
  uint32_t *words[] = {NULL, NULL, NULL};
  for (int i = 0; i < 3; i++) {
    BC_CUDA(cudaMalloc((void **)&words[i], sizeof *words[i]));
  }
  d->index = words[0], d->it = words[1], d->scratch = words[2];
  BC_CUDA(cudaMalloc((void **)&d->trip, sizeof *d->trip));
  uint32_t slots[LC_HIST];
  for (uint32_t i = 0; i < LC_HIST; i++) {
    slots[i] = i;
  }
  BC_CUDA(cudaMalloc((void **)&d->slots, sizeof slots));
  BC_CUDA(cudaMemcpy(d->slots, slots, sizeof slots, cudaMemcpyHostToDevice));
}

int main(int argc, char **argv) {
  const char *csv = NULL;
  bc b;
  memset(&b, 0, sizeof b);
  b.reps = 50;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--csv") == 0 && i + 1 < argc) {
      csv = argv[++i];
    } else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
      b.reps = atoi(argv[++i]);
    } else {
      fprintf(stderr, "usage: %s [--reps N] [--csv out.csv]\n", argv[0]);
      return 2;
    }
  }
  b.reps = b.reps < 50 ? 50 : b.reps;
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    fprintf(stderr, "bench_loop_cost: no usable GPU\n");
    return 1;
  }
  lc_dev d;
  memset(&d, 0, sizeof d);
  allocate(&d);
  b.stream = d.stream;
  struct cudaDeviceProp prop;
  BC_CUDA(cudaGetDeviceProperties(&prop, 0));
  d.major = prop.major;
  printf("bench_loop_cost on %s: GPU time a launch, median of %d\n",
         prop.name, b.reps);
  pure_iteration(&b, &d);
  header("(b) WHILE vs the same kernels unrolled, (c) unrolled + one "
         "kernel a microbatch vs unrolled: us per iteration = (T - "
         "T(unrolled)) / N");
  for (int s = 0; s < SIZES; s++) {
    d.n = sizes[s].n;
    for (int kk = 0; kk < KS; kk++) {
      chained(&b, &d, s, kk);
    }
  }
  if (csv != NULL) {
    bc_write_csv(csv);
  }
  return 0;
}

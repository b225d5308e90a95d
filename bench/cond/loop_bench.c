/* Section 1: N microbatches a step through the plugin's WHILE loop, as N
 * unrolled copies in a graph, and eagerly (the host launching every kernel,
 * and the plugin's eager loop, which reads the trip count with a sync):
 * nodes, capture and instantiate time, the executable's device memory and
 * the step time. One WHILE graph, captured once, is replayed for every N.
 * Then larger microbatches (bc_loop_bodies_section): WHILE against
 * unrolled for each body size, to show where the 2% goal holds. */
#include "bench_cond.h"
#include "cond_kernels.h"

static const int counts[] = {1, 4, 16, 64};

static void loop_step(const bc *b, void *ctx) {
  (void)ctx;
  const uint32_t *index = NULL;
  uint32_t again = 0;
  BC_SG(b, b->api->loop_begin(b->s, (sg_stream)b->stream, b->trip, &index,
                              &again));
  while (again) {
    bc_microbatch(b, index);
    BC_SG(b, b->api->loop_next(b->s, (sg_stream)b->stream, &again));
  }
  bc_update(b);
}

static void unrolled_step(const bc *b, void *ctx) {
  const int n = *(const int *)ctx;
  for (int i = 0; i < n; i++) {
    bc_microbatch(b, &b->slots[i]);
  }
  bc_update(b);
}

static void row(const char *variant, int n, const bc_graph *g, double us,
                double unrolled_us) {
  char nodes[32] = "-", cap[32] = "-", inst[32] = "-", mib[32] = "-";
  if (g != NULL) {
    snprintf(nodes, sizeof nodes, "%llu (%llu)", (unsigned long long)g->nodes,
             (unsigned long long)g->conditionals);
    snprintf(cap, sizeof cap, "%.3f", g->capture_ms);
    snprintf(inst, sizeof inst, "%.3f", g->instantiate_ms);
    snprintf(mib, sizeof mib, "%.1f", g->mib);
    bc_record("loop", variant, n, "nodes", (double)g->nodes, "nodes");
    bc_record("loop", variant, n, "capture", g->capture_ms, "ms");
    bc_record("loop", variant, n, "instantiate", g->instantiate_ms, "ms");
    bc_record("loop", variant, n, "graph_memory", g->mib, "MiB");
  }
  bc_record("loop", variant, n, "step", us, "us");
  printf("| %3d | %-18s | %10s | %10s | %14s | %9s | %10.1f | %+8.2f%% |\n", n,
         variant, nodes, cap, inst, mib, us,
         100.0 * (us - unrolled_us) / unrolled_us);
}

/* The replays of `once` (the WHILE graph, any trip count) and of
 * `unrolled` (captured here for n) with *trip = n. */
typedef struct pair {
  bc_graph unrolled;
  double t_loop, t_unrolled;
} pair;

static pair loop_vs_unrolled(const bc *b, int n, uint64_t once,
                             uint64_t unrolled) {
  pair p;
  BC_CUDA(ck_set(b->trip, n, b->stream));
  p.unrolled = bc_capture(b, unrolled, unrolled_step, &n);
  p.t_unrolled = bc_step_us(b, bc_replay, &unrolled);
  p.t_loop = bc_step_us(b, bc_replay, &once);
  return p;
}

void bc_loop_section(bc *b) {
  printf("\nMicrobatch loop: %d kernels a microbatch (1 MiB each), then one "
         "update; GPU time a step, median of %d\n",
         BC_WORK + 1, b->reps);
  printf("| %3s | %-18s | %10s | %10s | %14s | %9s | %10s | %9s |\n", "N",
         "variant", "nodes(cond)", "capture ms", "instantiate ms",
         "exec MiB", "step us", "vs unroll");
  printf("|-----|--------------------|------------|------------|------------"
         "----|-----------|------------|-----------|\n");
  uint64_t once = 999;
  BC_CUDA(ck_set(b->trip, 1, b->stream));
  (void)bc_capture(b, once, loop_step, NULL); /* replayed for every N */
  double worst = 0.0;
  for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
    int n = counts[k];
    BC_CUDA(ck_set(b->trip, n, b->stream));
    const bc_graph g_loop = bc_capture(b, 1000 + (uint64_t)n, loop_step, NULL);
    const pair p = loop_vs_unrolled(b, n, once, 2000 + (uint64_t)n);
    const double t_unrolled = p.t_unrolled, t_loop = p.t_loop;
    const double t_eager = bc_step_us(b, unrolled_step, &n);
    const double t_eager_loop = bc_step_us(b, loop_step, NULL);
    row("WHILE graph", n, &g_loop, t_loop, t_unrolled);
    row("unrolled graph", n, &p.unrolled, t_unrolled, t_unrolled);
    row("eager", n, NULL, t_eager, t_unrolled);
    row("eager, plugin loop", n, NULL, t_eager_loop, t_unrolled);
    const double off = 100.0 * (t_loop - t_unrolled) / t_unrolled;
    worst = off > worst ? off : worst;
  }
  bc_record("loop", "WHILE graph", 0, "worst_vs_unrolled", worst, "percent");
  printf("WHILE step time vs unrolled: at most %+.2f%% (goal: within 2%%); "
         "one WHILE graph served every N without re-capture\n", worst);
}

static void body_row(double mib, double micro_us, int n, const pair *p,
                     char *variant) {
  const double off = 100.0 * (p->t_loop - p->t_unrolled) / p->t_unrolled;
  bc_record("loop_body", variant, n, "while_step", p->t_loop, "us");
  bc_record("loop_body", variant, n, "unrolled_step", p->t_unrolled, "us");
  bc_record("loop_body", variant, n, "vs_unrolled", off, "percent");
  printf("| %8.1f | %10.1f | %3d | %12.1f | %12.1f | %+8.2f%% | %+10.2f |\n",
         mib, micro_us, n, p->t_loop, p->t_unrolled, off,
         (p->t_loop - p->t_unrolled) / n);
}

/* One body size: the WHILE graph captured once, unrolled per N. */
static void body_size(bc *b, int which) {
  const double mib = b->body_mib[which];
  b->elems = (size_t)(mib * 1024.0 * 1024.0) / sizeof(float);
  static char variants[BC_MAX_BODIES][32]; /* bc_record keeps the pointer */
  snprintf(variants[which], sizeof variants[which], "%g MiB buffers", mib);
  const uint64_t base = 5000 + 100 * (uint64_t)which, once = base;
  BC_CUDA(ck_set(b->trip, 1, b->stream));
  (void)bc_capture(b, once, loop_step, NULL);
  pair p[sizeof counts / sizeof counts[0]];
  const size_t last = sizeof counts / sizeof counts[0] - 1;
  for (size_t k = 0; k <= last; k++) {
    p[k] = loop_vs_unrolled(b, counts[k], once, base + 1 + k);
  }
  /* A microbatch's time: what the unrolled step grows by, a microbatch. */
  const double micro_us = (p[last].t_unrolled - p[0].t_unrolled) /
                          (counts[last] - counts[0]);
  bc_record("loop_body", variants[which], 0, "microbatch", micro_us, "us");
  double worst = 0.0;
  for (size_t k = 0; k <= last; k++) {
    body_row(mib, micro_us, counts[k], &p[k], variants[which]);
    const double off =
        100.0 * (p[k].t_loop - p[k].t_unrolled) / p[k].t_unrolled;
    worst = off > worst ? off : worst;
  }
  bc_record("loop_body", variants[which], 0, "worst_vs_unrolled", worst,
            "percent");
  printf("| microbatch %.0f us (%g MiB buffers): WHILE vs unrolled at most "
         "%+.2f%%, goal of 2%% %s |\n", micro_us, mib, worst,
         worst <= 2.0 ? "met" : "NOT met");
}

void bc_loop_bodies_section(bc *b) {
  if (b->bodies == 0) {
    return;
  }
  printf("\nMicrobatch loop, larger microbatches: the same %d kernels over "
         "larger buffers (%d + 2 of them, so the data outgrows L2); GPU time "
         "a step, median of %d\n", BC_WORK + 1, BC_WORK + BC_SLICES, b->reps);
  printf("| %8s | %10s | %3s | %12s | %12s | %9s | %10s |\n", "MiB/buf",
         "micro us", "N", "WHILE us", "unrolled us", "vs unroll",
         "us/iter");
  printf("|----------|------------|-----|--------------|--------------|"
         "-----------|------------|\n");
  for (int i = 0; i < b->bodies; i++) {
    body_size(b, i);
  }
  b->elems = BC_ELEMS;
}

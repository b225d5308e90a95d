/* Section 1: N microbatches a step through the plugin's WHILE loop, as N
 * unrolled copies in a graph, and eagerly (the host launching every kernel,
 * and the plugin's eager loop, which reads the trip count with a sync):
 * nodes, capture and instantiate time, the executable's device memory and
 * the step time. One WHILE graph, captured once, is replayed for every N. */
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
    const bc_graph g_unrolled =
        bc_capture(b, 2000 + (uint64_t)n, unrolled_step, &n);
    uint64_t unrolled_key = 2000 + (uint64_t)n;
    const double t_unrolled = bc_step_us(b, bc_replay, &unrolled_key);
    const double t_loop = bc_step_us(b, bc_replay, &once);
    const double t_eager = bc_step_us(b, unrolled_step, &n);
    const double t_eager_loop = bc_step_us(b, loop_step, NULL);
    row("WHILE graph", n, &g_loop, t_loop, t_unrolled);
    row("unrolled graph", n, &g_unrolled, t_unrolled, t_unrolled);
    row("eager", n, NULL, t_eager, t_unrolled);
    row("eager, plugin loop", n, NULL, t_eager_loop, t_unrolled);
    const double off = 100.0 * (t_loop - t_unrolled) / t_unrolled;
    worst = off > worst ? off : worst;
  }
  bc_record("loop", "WHILE graph", 0, "worst_vs_unrolled", worst, "percent");
  printf("WHILE step time vs unrolled: at most %+.2f%% (goal: within 2%%); "
         "one WHILE graph served every N without re-capture\n", worst);
}

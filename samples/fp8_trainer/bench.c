#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"
#include "kernels.h"
#include "run.h"
#include "trainer.h"


typedef struct ceiling {
  double eager_ms, graph_ms; /* medians per batch of `kernels` launches */
} ceiling;

/* A fresh trainer run in `mode`; the trainer is gone afterwards, so that
 * the next run's memory is measured on its own. */
static void run_mode(const tr_plugin *p, const tr_options *o,
                     const tr_dist *dist, tr_mode mode, tr_run_result *r) {
  const tr_config cfg = tr_config_for(o, mode, dist);
  tr_trainer t;
  tr_trainer_create(&t, p, &cfg);
  tr_run(&t, mode, o, r);
  tr_trainer_destroy(&t);
}

static void launch_empties(uint32_t kernels, cudaStream_t s) {
  for (uint32_t k = 0; k < kernels; k++) {
    SG_CHECK_CUDA(tr_k_empty(s));
  }
}

/* Median time of `reps` batches of `kernels` empty kernels (one launch of
 * `exec` instead, when given), events between batches, the first `cold`
 * batches left out. */
static double time_batches(uint32_t reps, uint32_t cold, cudaStream_t s,
                           uint32_t kernels, cudaGraphExec_t exec) {
  cudaEvent_t *ev = TR_CALLOC(reps + 1u, sizeof *ev, "bench timings");
  double *ms = TR_CALLOC(reps, sizeof *ms, "bench timings");
  for (uint32_t i = 0; i <= reps; i++) {
    SG_CHECK_CUDA(cudaEventCreate(&ev[i]));
  }
  for (uint32_t i = 0; i < reps; i++) {
    SG_CHECK_CUDA(cudaEventRecord(ev[i], s));
    if (exec != NULL) {
      SG_CHECK_CUDA(cudaGraphLaunch(exec, s));
    } else {
      launch_empties(kernels, s);
    }
  }
  SG_CHECK_CUDA(cudaEventRecord(ev[reps], s));
  SG_CHECK_CUDA(cudaStreamSynchronize(s));
  for (uint32_t i = 0; i < reps; i++) {
    float t = 0.0f;
    SG_CHECK_CUDA(cudaEventElapsedTime(&t, ev[i], ev[i + 1]));
    ms[i] = t;
  }
  for (uint32_t i = 0; i <= reps; i++) {
    SG_CHECK_CUDA(cudaEventDestroy(ev[i]));
  }
  const double median = tr_median(ms + cold, reps - cold);
  free(ev);
  free(ms);
  return median;
}

/* `kernels` empty kernels per step, eagerly and as one graph. */
static ceiling measure_ceiling(uint32_t kernels, uint32_t reps,
                               uint32_t cold) {
  cudaStream_t s;
  SG_CHECK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  SG_CHECK_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  launch_empties(kernels, s);
  SG_CHECK_CUDA(cudaStreamEndCapture(s, &graph));
  SG_CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  SG_CHECK_CUDA(cudaGraphUpload(exec, s));
  ceiling c;
  c.eager_ms = time_batches(reps, cold, s, kernels, NULL);
  c.graph_ms = time_batches(reps, cold, s, kernels, exec);
  SG_CHECK_CUDA(cudaGraphExecDestroy(exec));
  SG_CHECK_CUDA(cudaGraphDestroy(graph));
  SG_CHECK_CUDA(cudaStreamDestroy(s));
  return c;
}

static void print_bench(const tr_options *o, const tr_run_result *e,
                        const tr_run_result *g, const ceiling *c,
                        bool identical) {
  const double mem_ratio = (double)g->mem_graph / (double)e->mem_eager;
  printf("\n| config | eager ms/step | graph ms/step | speedup | ceiling "
         "(%u empty kernels: eager / graph ms) | MiB eager | MiB graph | "
         "graph/eager memory | losses identical |\n",
         e->launches);
  printf("|---|---|---|---|---|---|---|---|---|\n");
  printf("| %ux%u, batch %u | %.4f | %.4f | %.2fx | %.2fx (%.4f / %.4f) | "
         "%.1f | %.1f | %.3fx | %s |\n",
         o->layers, o->hidden, o->batch, e->eager_ms, g->graph_ms,
         e->eager_ms / g->graph_ms, c->eager_ms / c->graph_ms, c->eager_ms,
         c->graph_ms, e->mem_eager / TR_MIB, g->mem_graph / TR_MIB, mem_ratio,
         identical ? "yes" : "NO");
  printf("csv,%u,%u,%u,%u,%.6f,%.6f,%u,%llu,%.6f,%.6f,%zu,%zu,%d\n", o->layers,
         o->hidden, o->batch, o->steps, e->eager_ms, g->graph_ms, e->launches,
         (unsigned long long)g->graph_nodes, c->eager_ms, c->graph_ms,
         e->mem_eager, g->mem_graph, identical);
}

int tr_bench(const tr_plugin *p, const tr_options *o, const tr_dist *dist) {
  printf("fp8_trainer --bench: %u layers, hidden %u, batch %u, %u steps "
         "(%u warm-up)\n",
         o->layers, o->hidden, o->batch, o->steps, o->warmup);
  tr_run_result e, g;
  run_mode(p, o, dist, TR_MODE_EAGER, &e);
  run_mode(p, o, dist, TR_MODE_GRAPH, &g);
  if (g.graph_nodes == 0) {
    fprintf(stderr, "fp8_trainer: no graph was captured: %s\n", g.fallback);
    return TR_EXIT_FAILURE;
  }
  const bool identical =
      memcmp(e.losses, g.losses, o->steps * sizeof(float)) == 0;
  const ceiling c = measure_ceiling(e.launches, o->steps - o->warmup, 2);
  print_bench(o, &e, &g, &c, identical);
  tr_run_free(&e);
  tr_run_free(&g);
  return identical ? 0 : TR_EXIT_FAILURE;
}

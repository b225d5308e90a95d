#include "report.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"


void tr_print_losses(const tr_run_result *r, uint32_t every) {
  if (every == 0) {
    return;
  }
  for (uint32_t i = 0; i < r->steps; i++) {
    if (i % every == 0 || i + 1 == r->steps) {
      printf("step %6u  loss %.6f\n", i, (double)r->losses[i]);
    }
  }
}

static void row(const char *run, uint32_t samples, double ms,
                uint32_t launches, const char *nodes, const char *speedup,
                const char *memory) {
  char time[32] = "-";
  if (ms >= 0.0) {
    snprintf(time, sizeof time, "%.4f", ms);
  }
  printf("| %-16s | %7u | %10s | %8u | %11s | %7s | %-17s |\n", run, samples,
         time, launches, nodes, speedup, memory);
}

static void graph_row(const tr_run_result *r) {
  char nodes[32], speedup[32] = "-", memory[64];
  snprintf(nodes, sizeof nodes, "%llu", (unsigned long long)r->graph_nodes);
  if (r->eager_ms > 0.0 && r->graph_ms > 0.0) {
    snprintf(speedup, sizeof speedup, "%.2fx", r->eager_ms / r->graph_ms);
  }
  snprintf(memory, sizeof memory, "%.1f (%.3fx)", r->mem_graph / TR_MIB,
           (double)r->mem_graph / (double)r->mem_eager);
  char name[32];
  snprintf(name, sizeof name, "%s (replays)", tr_mode_name(r->mode));
  row(name, r->graph_samples, r->graph_ms, 1, nodes, speedup, memory);
}

static bool loss_check(const tr_run_result *r) {
  const double first = r->losses[0], last = r->losses[r->steps - 1];
  const double ratio = last / first;
  printf("loss: step 0 %.6f -> step %u %.6f = %.1f%% of the first ", first, r->steps - 1,
         last, 100.0 * ratio);
  if (r->steps < TR_LOSS_CHECK_MIN_STEPS) {
    printf("(not checked: the check needs >= %u steps)\n", TR_LOSS_CHECK_MIN_STEPS);
    return true;
  }
  const bool pass = ratio <= TR_LOSS_CHECK_RATIO;
  printf("(check: <= %.0f%%): %s%s\n", 100.0 * TR_LOSS_CHECK_RATIO, pass ? "PASS" : "FAIL",
         !pass && r->mode == TR_MODE_STALE
             ? " (expected: stale W^T, the failure the refresh prevents)"
             : "");
  return pass;
}

bool tr_print_table(const tr_run_result *r) {
  printf("\n| %-16s | %7s | %10s | %8s | %11s | %7s | %-17s |\n", "run",
         "steps", "ms/step", "launches", "graph nodes", "speedup",
         "MiB in use");
  printf("|%s|%s|%s|%s|%s|%s|%s|\n", "------------------", "---------",
         "------------", "----------", "-------------", "---------",
         "-------------------");
  char memory[32];
  snprintf(memory, sizeof memory, "%.1f", r->mem_eager / TR_MIB);
  const char *eager_name = r->mode == TR_MODE_EAGER ? "eager" : "eager (warm-up)";
  row(eager_name, r->eager_samples, r->eager_ms, r->launches, "-", "1.00x",
      memory);
  if (r->graph_nodes > 0) {
    graph_row(r);
  }
  if (r->fallback[0] != '\0') {
    printf("graphs not used: %s\n", r->fallback);
  }
  printf("ms/step: median of the steps counted, timed with CUDA events; "
         "launches: per step (a replay is 1)\n");
  return loss_check(r);
}

static void write_file(const char *path, const void *data, size_t bytes) {
  FILE *f = fopen(path, "wb");
  if (f == NULL || fwrite(data, 1, bytes, f) != bytes || fclose(f) != 0) {
    tr_die(__FILE__, __LINE__, "writing", path, strerror(errno));
  }
}

void tr_dump_losses(const char *path, const tr_run_result *r) {
  write_file(path, r->losses, r->steps * sizeof(float));
}

void tr_dump_weights(const char *path, const tr_trainer *t) {
  const size_t n = (size_t)t->m.d.layers * t->m.weight;
  float *host = TR_CALLOC(n, sizeof(float), "weights");
  SG_CHECK_CUDA(
      cudaMemcpy(host, t->m.master, n * sizeof(float), cudaMemcpyDeviceToHost));
  write_file(path, host, n * sizeof(float));
  free(host);
}

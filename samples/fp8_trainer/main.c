/* fp8_trainer: a sample host program that trains an FP8 MLP and hands its
 * step to stepgraph, loaded with dlopen through abi/stepgraph.h alone.
 *
 *   fp8_trainer [--mode eager|graph|driver|stale] [--steps N] ... (--help)
 *
 * Every mode runs the same step code (step.c) from the same seed, so the
 * eager, graph and driver modes produce bit-identical losses and weights;
 * stale mode shows what happens when W^T is not refreshed. */
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "dist_step.h"
#include "checks.h"
#include "cond_step.h"
#include "options.h"
#include "plugin_host.h"
#include "ranks.h"
#include "report.h"
#include "run.h"
#include "trainer.h"

/* A dump's file: with ranks, each rank writes "<path>.rank<r>". */
static const char *dump_path(const char *path, const tr_dist *dist,
                             char *buf, size_t cap) {
  if (dist == NULL) {
    return path;
  }
  snprintf(buf, cap, "%s.rank%u", path, dist->rank);
  return buf;
}

static int train(const tr_plugin *p, const tr_options *o,
                 const tr_dist *dist) {
  printf("fp8_trainer: mode %s, recipe %s, %u layers, hidden %u, batch %u, "
         "%u steps, seed %llu, plugin %s\n",
         tr_mode_name(o->mode), tr_recipe_name(o->recipe), o->layers,
         o->hidden, o->batch, o->steps,
         (unsigned long long)o->seed, p->path);
  const tr_config cfg = tr_config_for(o, o->mode, dist);
  char path[4200];
  tr_trainer t;
  tr_trainer_create(&t, p, &cfg);
  tr_run_result r;
  tr_run(&t, o->mode, o, &r);
  tr_print_losses(&r, o->print_every);
  const bool pass = tr_print_table(&r);
  if (o->dump_losses != NULL) {
    tr_dump_losses(dump_path(o->dump_losses, dist, path, sizeof path), &r);
  }
  if (o->dump_weights != NULL) {
    if (dist != NULL) {
      tr_dist_gather_masters(&t);
    }
    tr_dump_weights(dump_path(o->dump_weights, dist, path, sizeof path), &t);
  }
  tr_cond_report(&t);
  tr_run_free(&r);
  tr_trainer_destroy(&t);
  /* Stale mode exists to show the failure: its failed check is expected. */
  return pass || o->mode == TR_MODE_STALE ? 0 : TR_EXIT_LOSS;
}

/* One process's run, alone or as one rank. */
static int run(const tr_plugin *p, const tr_options *o, const tr_dist *dist) {
  return o->bench ? tr_bench(p, o, dist) : train(p, o, dist);
}

int main(int argc, char **argv) {
  tr_options o;
  if (!tr_parse_options(argc, argv, &o)) {
    return TR_EXIT_USAGE;
  }
  tr_plugin p;
  if (!tr_plugin_load(&p, o.plugin)) {
    return TR_EXIT_FAILURE;
  }
  if (tr_ranks_requested(&o)) {
    return tr_ranks_run(&p, &o, run); /* each rank checks its own GPU */
  }
  if (!tr_gpu_usable(0)) {
    return TR_EXIT_NO_GPU;
  }
  return run(&p, &o, NULL);
}

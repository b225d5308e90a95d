/* The trainer's command line. */
#ifndef TR_OPTIONS_H
#define TR_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

#include "cond_options.h"

typedef enum tr_mode {
  TR_MODE_EAGER,  /* the host launches every kernel of every step */
  TR_MODE_GRAPH,  /* capture_begin/capture_end around one step, then replay */
  TR_MODE_DRIVER, /* the plugin's step driver runs the step callback */
  TR_MODE_STALE   /* graph, but the refresh casts W only: Wt goes stale */
} tr_mode;

typedef struct tr_options {
  tr_mode mode;
  uint32_t steps;       /* training steps, warm-up included */
  uint32_t warmup;      /* eager steps before capture (graph modes) */
  uint32_t lr_warmup;   /* learning-rate warm-up steps; 0: constant */
  uint32_t print_every; /* loss line every k steps; 0: none */
  uint32_t layers, hidden, batch;
  uint64_t seed;
  const char *plugin;       /* NULL: STEPGRAPH_PLUGIN, then the build's */
  const char *dump_losses;  /* NULL: none */
  const char *dump_weights; /* NULL: none */
  uint32_t recipe;          /* SG_RECIPE_* of the weights (recipe.h) */
  bool bench;
  tr_cond_options cond; /* accumulation, step guard, detector */
  /* Data-parallel ranks (ranks.h): --ranks N forks N processes, one GPU
   * each; 0 with RANK/WORLD_SIZE set: one rank of a job started from
   * outside, meeting at the --rendezvous file. */
  uint32_t ranks;
  bool shard_optimizer;   /* each rank owns 1/N of every master */
  uint32_t buckets;       /* parameter groups of the all-gather */
  const char *rendezvous; /* NULL: none */
} tr_options;

/* Fills *o from argv. On bad input prints the reason and the usage to
 * stderr and returns false; --help prints the usage to stdout and exits 0. */
bool tr_parse_options(int argc, char **argv, tr_options *o);

const char *tr_mode_name(tr_mode mode);

#endif

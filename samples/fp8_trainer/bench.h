/* --bench: in one process, the configuration run eagerly and as a graph
 * (fresh model each, same seed), and the speedup ceiling for this step: as
 * many empty kernels as one eager step launches, launched eagerly and as a
 * graph. Prints a table row and a "csv," line. */
#ifndef TR_BENCH_H
#define TR_BENCH_H

#include "dist.h"
#include "options.h"
#include "plugin_host.h"

/* dist: this rank's (the configuration runs with its collectives), or
 * NULL. */
int tr_bench(const tr_plugin *p, const tr_options *o, const tr_dist *dist);

#endif

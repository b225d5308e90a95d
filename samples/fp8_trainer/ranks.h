/* Starting the ranks of a data-parallel run without MPI, and running one
 * rank's body: with --ranks N this process forks N children, one GPU
 * each, after making NCCL's unique id (the parent touches no CUDA: a
 * forked child could not use it); with RANK/WORLD_SIZE/LOCAL_RANK in the
 * environment this process is one rank and meets the others at the
 * --rendezvous file. Either way each rank makes its communicator, runs the
 * body, and destroys its sessions before the communicator. */
#ifndef TR_RANKS_H
#define TR_RANKS_H

#include <stdbool.h>

#include "dist.h"
#include "options.h"
#include "plugin_host.h"

/* One rank's work (training or the benchmark); returns the exit status. */
typedef int (*tr_rank_fn)(const tr_plugin *p, const tr_options *o,
                          const tr_dist *dist);

/* --ranks N, or RANK and WORLD_SIZE set. */
bool tr_ranks_requested(const tr_options *o);

/* Runs `body` on every rank (forked children, or this process alone) and
 * returns the exit status: 0 when every rank succeeded, else the first
 * failing rank's (the others are then stopped: they would wait in a
 * collective for it). */
int tr_ranks_run(const tr_plugin *p, const tr_options *o, tr_rank_fn body);

#endif

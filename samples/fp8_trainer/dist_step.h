/* The collectives of a data-parallel step, enqueued on the step's stream
 * like everything else in it, so that the same calls run eagerly and are
 * captured into the step's graph:
 *  - unsharded: one all-reduce (sum) of every gradient;
 *  - sharded (--shard-optimizer): a reduce-scatter of every layer's
 *    gradient, AdamW on the rank's shard of each master, the plugin's
 *    refresh in cast mode over that shard with the amax reduced across
 *    ranks, then per bucket an all-gather of W followed, as soon as that
 *    bucket's all-gather is done, by the plugin's transpose refresh of the
 *    bucket's group on a forked stream (the next all-gather overlaps it);
 *    the fork joins back before the step goes on. */
#ifndef TR_DIST_STEP_H
#define TR_DIST_STEP_H

#include "kernels.h"
#include "trainer.h"

void tr_dist_reduce_gradients(tr_trainer *t, cudaStream_t s);

/* AdamW (hyper-parameters h) and the refreshes of the sharded optimizer. */
void tr_dist_sharded_optimizer(tr_trainer *t, cudaStream_t s,
                               const tr_k_adamw_hyper *h);

/* Before the final weights are dumped: every rank gets every shard of the
 * masters (the sharded optimizer updates only its own). Synchronous. */
void tr_dist_gather_masters(tr_trainer *t);

#endif

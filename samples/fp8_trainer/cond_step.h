/* The step with stepgraph's conditional features (ABI 1.1), enqueued the
 * same way eagerly, captured and driven:
 *
 *   schedule -> trip count
 *   loop i < trip (plugin's WHILE; or N unrolled copies):
 *     microbatch i (its own RNG block, picked by the index) and
 *     gradient accumulation
 *   [skip-nonfinite] inject faults, finite flag, digest,
 *     guard(finite) { AdamW, refresh, scales + step counter }, digest
 *   RNG end-of-step, step clock += 1
 *
 * The work after the loop runs once, at one fixed point of the step. */
#ifndef TR_COND_STEP_H
#define TR_COND_STEP_H

#include "trainer.h"

/* The step above (t->cond.active). */
void tr_cond_step(tr_trainer *t, cudaStream_t stream);

/* The start of an eager step the host runs itself: the plugin's
 * stale-transpose check (nothing with the detector off). */
void tr_cond_eager_start(tr_trainer *t, cudaStream_t stream);

/* After the run: the plugin's counters for guards, loops and the graph, the
 * detector's findings, and the digests file. */
void tr_cond_report(tr_trainer *t);

#endif

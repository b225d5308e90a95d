/* One training step, enqueued the same way in every mode: the plain
 * microbatch-optimizer-end sequence (step.c), or, with the conditional
 * features on, the loop and guard around the same parts (cond_step.c). */
#include "cond_step.h"
#include "trainer.h"

void tr_step_enqueue(tr_trainer *t, cudaStream_t stream) {
  t->launches = 0;
  if (t->cond.active) {
    tr_cond_step(t, stream);
    return;
  }
  tr_step_microbatch(t, stream);
  tr_step_optimizer(t, stream);
  tr_step_end(t, stream);
}

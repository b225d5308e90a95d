/* Section 2: the step guard around one microbatch and the update: its cost
 * on a taken step and what a skipped step saves, in a graph (an IF node,
 * decided on the device) and eagerly (guard_begin reads the flag: one
 * stream synchronisation). */
#include "bench_cond.h"
#include "cond_kernels.h"

static void plain_step(const bc *b, void *ctx) {
  (void)ctx;
  bc_microbatch(b, &b->slots[0]);
  bc_update(b);
}

static void guarded_step(const bc *b, void *ctx) {
  (void)ctx;
  uint32_t run = 0;
  BC_SG(b, b->api->guard_begin(b->s, (sg_stream)b->stream, b->flag, &run));
  if (run) {
    plain_step(b, NULL);
  }
  BC_SG(b, b->api->guard_end(b->s, (sg_stream)b->stream));
}

static void row(const char *variant, double us, double plain_us) {
  bc_record("guard", variant, 0, "step", us, "us");
  printf("| %-28s | %10.2f | %+10.2f |\n", variant, us, us - plain_us);
}

void bc_guard_section(bc *b) {
  printf("\nStep guard: one microbatch and the update inside the guard; "
         "GPU time a step, median of %d\n", b->reps);
  printf("| %-28s | %10s | %10s |\n", "variant", "step us", "vs no guard");
  printf("|------------------------------|------------|------------|\n");
  uint64_t plain = 3000, guarded = 3001;
  (void)bc_capture(b, plain, plain_step, NULL);
  BC_CUDA(ck_set(b->flag, 1, b->stream));
  (void)bc_capture(b, guarded, guarded_step, NULL);
  const double g_plain = bc_step_us(b, bc_replay, &plain);
  const double g_taken = bc_step_us(b, bc_replay, &guarded);
  BC_CUDA(ck_set(b->flag, 0, b->stream));
  const double g_skipped = bc_step_us(b, bc_replay, &guarded);
  const double e_plain = bc_step_us(b, plain_step, NULL);
  BC_CUDA(ck_set(b->flag, 1, b->stream));
  const double e_taken = bc_step_us(b, guarded_step, NULL);
  BC_CUDA(ck_set(b->flag, 0, b->stream));
  const double e_skipped = bc_step_us(b, guarded_step, NULL);
  row("graph, no guard", g_plain, g_plain);
  row("graph, guard taken", g_taken, g_plain);
  row("graph, guard skipped", g_skipped, g_plain);
  row("eager, no guard", e_plain, e_plain);
  row("eager, guard taken (a sync)", e_taken, e_plain);
  row("eager, guard skipped", e_skipped, e_plain);
}

/* The trainer's options for stepgraph's conditional features (ABI 1.1):
 * gradient accumulation through the plugin's microbatch loop (or unrolled,
 * for comparison) with a count that may change during the run, the
 * non-finite step guard with a deterministic fault schedule, the
 * stale-transpose detector, and per-step state digests for tests. */
#ifndef TR_COND_OPTIONS_H
#define TR_COND_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define TR_MAX_MICROBATCHES 1024u
#define TR_MAX_SCHEDULE 64u

typedef struct tr_cond_options {
  uint32_t accumulate; /* microbatches per step; 0: the plain step */
  bool unroll;         /* N copies of the microbatch instead of the loop */
  /* --accumulate-schedule: from step schedule_step[k] on, schedule_n[k]
   * microbatches (steps ascending; before the first: `accumulate`). */
  uint32_t schedule_step[TR_MAX_SCHEDULE], schedule_n[TR_MAX_SCHEDULE];
  uint32_t schedule_count;
  bool skip_nonfinite; /* guard the optimizer step on finite gradients */
  /* --inject-nonfinite: steps whose gradient gets a NaN. */
  uint32_t faults[TR_MAX_SCHEDULE];
  uint32_t fault_count;
  bool check_transposes;    /* the plugin's stale-transpose detector */
  const char *dump_digests; /* per step, two uint64 digests of the state */
} tr_cond_options;

/* Option codes, after options.c's own. */
enum {
  TR_OPT_ACCUMULATE = 512,
  TR_OPT_UNROLL,
  TR_OPT_SCHEDULE,
  TR_OPT_SKIP,
  TR_OPT_INJECT,
  TR_OPT_CHECK,
  TR_OPT_DIGESTS
};

/* getopt_long entries of these options, for options.c's table. */
#define TR_COND_LONG_OPTIONS                                          \
  {"accumulate", required_argument, NULL, TR_OPT_ACCUMULATE},         \
      {"unroll", no_argument, NULL, TR_OPT_UNROLL},                   \
      {"accumulate-schedule", required_argument, NULL, TR_OPT_SCHEDULE}, \
      {"skip-nonfinite", no_argument, NULL, TR_OPT_SKIP},             \
      {"inject-nonfinite", required_argument, NULL, TR_OPT_INJECT},   \
      {"check-transposes", no_argument, NULL, TR_OPT_CHECK},          \
      {"dump-digests", required_argument, NULL, TR_OPT_DIGESTS}

void tr_cond_usage(FILE *to);

/* One of the options above into *c; false (reason on stderr) on a bad
 * value or an unknown code. */
bool tr_cond_apply(int opt, const char *arg, tr_cond_options *c);

/* The combination is sound; false with the reason on stderr. */
bool tr_cond_check(const tr_cond_options *c);

/* Whether the step uses any of them (the detector alone does not change
 * the step). */
bool tr_cond_active(const tr_cond_options *c);

/* Microbatches at step `step` (>= 1 when accumulating). */
uint32_t tr_cond_microbatches(const tr_cond_options *c, uint32_t step);

/* The most microbatches any step has. */
uint32_t tr_cond_max_microbatches(const tr_cond_options *c);

#endif

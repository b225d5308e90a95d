#include "cond_options.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

void tr_cond_usage(FILE *to) {
  fprintf(to,
    "  --accumulate N     N microbatches per step (1..%u) through the\n"
    "                     plugin's loop: one captured body, any N\n"
    "  --unroll           the N microbatches as N copies instead (compare)\n"
    "  --accumulate-schedule STEP:N,...  from STEP on, N microbatches\n"
    "                     (steps ascending; no re-capture; not with --unroll)\n"
    "  --skip-nonfinite   skip the optimizer step and the refresh when a\n"
    "                     gradient is not finite (the plugin's step guard)\n"
    "  --inject-nonfinite STEP,...  put a NaN in the gradient at these steps\n"
    "  --check-transposes the plugin's stale-transpose detector\n"
    "  --dump-digests F   write two uint64 digests of masters, W, W^T, Adam\n"
    "                     state and step counter per step (before and after\n"
    "                     the optimizer step) to F\n",
    TR_MAX_MICROBATCHES);
}

static bool fail(const char *what, const char *text) {
  fprintf(stderr, "fp8_trainer: %s '%s'\n", what, text);
  return false;
}

/* A whole number in [lo, hi] at *p, which moves past it. */
static bool number(const char **p, uint32_t lo, uint32_t hi, uint32_t *out) {
  char *end = NULL;
  errno = 0;
  if (**p < '0' || **p > '9') {
    return false;
  }
  const unsigned long v = strtoul(*p, &end, 10);
  if (errno != 0 || v < lo || v > hi) {
    return false;
  }
  *p = end;
  *out = (uint32_t)v;
  return true;
}

static bool parse_schedule(const char *text, tr_cond_options *c) {
  const char *p = text;
  c->schedule_count = 0;
  for (;;) {
    uint32_t step = 0, n = 0;
    const uint32_t k = c->schedule_count;
    if (k == TR_MAX_SCHEDULE || !number(&p, 0, UINT32_MAX - 1, &step) ||
        *p++ != ':' || !number(&p, 1, TR_MAX_MICROBATCHES, &n) ||
        (k > 0 && step <= c->schedule_step[k - 1])) {
      return fail("--accumulate-schedule wants ascending STEP:N pairs "
                  "(N in 1..1024, at most 64), not", text);
    }
    c->schedule_step[k] = step;
    c->schedule_n[k] = n;
    c->schedule_count++;
    if (*p == '\0') {
      return true;
    }
    if (*p++ != ',') {
      return fail("--accumulate-schedule: expected ',' in", text);
    }
  }
}

static bool parse_faults(const char *text, tr_cond_options *c) {
  const char *p = text;
  c->fault_count = 0;
  for (;;) {
    if (c->fault_count == TR_MAX_SCHEDULE ||
        !number(&p, 0, UINT32_MAX - 1, &c->faults[c->fault_count])) {
      return fail("--inject-nonfinite wants up to 64 step numbers, not", text);
    }
    c->fault_count++;
    if (*p == '\0') {
      return true;
    }
    if (*p++ != ',') {
      return fail("--inject-nonfinite: expected ',' in", text);
    }
  }
}

bool tr_cond_apply(int opt, const char *arg, tr_cond_options *c) {
  const char *p = arg;
  switch (opt) {
    case TR_OPT_ACCUMULATE:
      return (number(&p, 1, TR_MAX_MICROBATCHES, &c->accumulate) &&
              *p == '\0') ||
             fail("--accumulate wants a whole number in 1..1024, not", arg);
    case TR_OPT_UNROLL: c->unroll = true; return true;
    case TR_OPT_SCHEDULE: return parse_schedule(arg, c);
    case TR_OPT_SKIP: c->skip_nonfinite = true; return true;
    case TR_OPT_INJECT: return parse_faults(arg, c);
    case TR_OPT_CHECK: c->check_transposes = true; return true;
    case TR_OPT_DIGESTS: c->dump_digests = arg; return true;
    default: return false;
  }
}

bool tr_cond_check(const tr_cond_options *c) {
  if (c->unroll && c->accumulate == 0) {
    fprintf(stderr, "fp8_trainer: --unroll needs --accumulate N\n");
    return false;
  }
  if (c->unroll && c->schedule_count > 0) {
    fprintf(stderr, "fp8_trainer: --accumulate-schedule needs the loop, not "
                    "--unroll (an unrolled graph bakes N in)\n");
    return false;
  }
  if (c->fault_count > 0 && !c->skip_nonfinite) {
    fprintf(stderr, "fp8_trainer: --inject-nonfinite needs "
                    "--skip-nonfinite (a NaN step would ruin the run)\n");
    return false;
  }
  return true;
}

bool tr_cond_active(const tr_cond_options *c) {
  return c->accumulate > 0 || c->schedule_count > 0 || c->skip_nonfinite ||
         c->dump_digests != NULL;
}

uint32_t tr_cond_microbatches(const tr_cond_options *c, uint32_t step) {
  uint32_t n = c->accumulate > 0 ? c->accumulate : 1;
  for (uint32_t k = 0; k < c->schedule_count && c->schedule_step[k] <= step;
       k++) {
    n = c->schedule_n[k];
  }
  return n;
}

uint32_t tr_cond_max_microbatches(const tr_cond_options *c) {
  uint32_t n = c->accumulate > 0 ? c->accumulate : 1;
  for (uint32_t k = 0; k < c->schedule_count; k++) {
    n = c->schedule_n[k] > n ? c->schedule_n[k] : n;
  }
  return n;
}

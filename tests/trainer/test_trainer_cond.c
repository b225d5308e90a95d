/* fp8_trainer's conditional features (GPU), run as a user runs them and
 * compared through their dumps:
 *  - --accumulate 4 eagerly, as a graph (the plugin's WHILE loop), through
 *    the driver and unrolled: bit-identical losses and final weights;
 *  - --accumulate-schedule changing N twice: graph == eager, one capture;
 *  - --skip-nonfinite with injected NaNs: eager == graph == driver == graph
 *    under STEPGRAPH_DISABLE, and the state digests show exactly the
 *    injected steps left it untouched;
 *  - the graph's node count does not grow with N through the loop, and
 *    does unrolled;
 *  - --check-transposes: in stale mode the detector names layer 0 at step
 *    1 (the first step after the first refresh), in the other modes
 *    nothing. */
#define _XOPEN_SOURCE 700 /* mkdtemp, posix_spawn */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sg_gpu_test.h"
#include "sg_run_suite.h"
#include "spawn.h"

#define STEPS "400" /* the trainer's loss check needs ~350 */
#define FAULTS "3,20,21,77"
static const uint32_t faults[] = {3, 20, 21, 77};

enum {
  ACC_EAGER, ACC_GRAPH, ACC_DRIVER, ACC_UNROLL,
  SCHED_EAGER, SCHED_GRAPH,
  SKIP_EAGER, SKIP_GRAPH, SKIP_DRIVER, SKIP_DISABLED,
  ACC2, ACC16, UNROLL2, UNROLL16,
  STALE, STALE_NO_WARMUP, GRAPH_CHECK, EAGER_CHECK, DRIVER_CHECK,
  RUNS
};

/* Each run's own arguments (NULL-terminated), after the common ones; a
 * trailing "--dump-digests" gets its file's path. */
static const char *const run_args[RUNS][12] = {
    [ACC_EAGER] = {"--mode", "eager", "--accumulate", "4"},
    [ACC_GRAPH] = {"--mode", "graph", "--accumulate", "4"},
    [ACC_DRIVER] = {"--mode", "driver", "--accumulate", "4"},
    [ACC_UNROLL] = {"--mode", "graph", "--accumulate", "4", "--unroll"},
    [SCHED_EAGER] = {"--mode", "eager", "--accumulate-schedule",
                     "0:1,40:4,80:2"},
    [SCHED_GRAPH] = {"--mode", "graph", "--accumulate-schedule",
                     "0:1,40:4,80:2"},
    [SKIP_EAGER] = {"--mode", "eager", "--skip-nonfinite",
                    "--inject-nonfinite", FAULTS, "--dump-digests", NULL},
    [SKIP_GRAPH] = {"--mode", "graph", "--skip-nonfinite",
                    "--inject-nonfinite", FAULTS, "--dump-digests", NULL},
    [SKIP_DRIVER] = {"--mode", "driver", "--skip-nonfinite",
                     "--inject-nonfinite", FAULTS, "--dump-digests", NULL},
    [SKIP_DISABLED] = {"--mode", "graph", "--skip-nonfinite",
                       "--inject-nonfinite", FAULTS, "--dump-digests", NULL},
    [ACC2] = {"--mode", "graph", "--accumulate", "2"},
    [ACC16] = {"--mode", "graph", "--accumulate", "16"},
    [UNROLL2] = {"--mode", "graph", "--accumulate", "2", "--unroll"},
    [UNROLL16] = {"--mode", "graph", "--accumulate", "16", "--unroll"},
    [STALE] = {"--mode", "stale", "--check-transposes"},
    [STALE_NO_WARMUP] = {"--mode", "stale", "--check-transposes", "--warmup",
                         "0"},
    [GRAPH_CHECK] = {"--mode", "graph", "--check-transposes"},
    [EAGER_CHECK] = {"--mode", "eager", "--check-transposes"},
    [DRIVER_CHECK] = {"--mode", "driver", "--check-transposes"},
};

/* The environment a run adds (graphs off: the fallback path). */
static const char *const run_env[RUNS] = {
    [SKIP_DISABLED] = "STEPGRAPH_DISABLE=1",
};

typedef struct cond_run {
  bool done;
  float *losses, *weights;
  uint64_t *digests;
  size_t steps, weight_count, digest_count;
  char *out;
} cond_run;

static char dir[] = "/tmp/sg_trainer_cond_XXXXXX";
static cond_run runs[RUNS];

static void dump_path(char *buf, size_t cap, int i, const char *what) {
  snprintf(buf, cap, "%s/%d.%s", dir, i, what);
}

/* Runs the trainer for run i once; later calls reuse what it left. */
static const cond_run *get(int i) {
  cond_run *r = &runs[i];
  if (r->done) {
    return r;
  }
  char losses[4200], weights[4200], digests[4200];
  dump_path(losses, sizeof losses, i, "losses");
  dump_path(weights, sizeof weights, i, "weights");
  dump_path(digests, sizeof digests, i, "digests");
  const char *args[32] = {"--steps", STEPS, "--warmup", "5", "--print-every",
                          "0", "--dump-losses", losses, "--dump-weights",
                          weights};
  size_t n = 10;
  for (size_t k = 0; run_args[i][k] != NULL; k++) {
    args[n++] = run_args[i][k];
  }
  const bool digested = strcmp(args[n - 1], "--dump-digests") == 0;
  if (digested) {
    args[n++] = digests;
  }
  args[n] = NULL;
  trainer_result t = run_trainer(dir, args, run_env[i]);
  ck_assert_msg(t.exited && t.code == 0,
                "fp8_trainer run %d: %s %d\nstdout:\n%s\nstderr:\n%s", i,
                t.exited ? "exit" : "signal", t.code, t.out, t.err);
  r->losses = read_dump(losses, sizeof(float), &r->steps);
  r->weights = read_dump(weights, sizeof(float), &r->weight_count);
  if (digested) {
    r->digests = read_dump(digests, sizeof(uint64_t), &r->digest_count);
  }
  r->out = t.out;
  free(t.err);
  r->done = true;
  return r;
}

static void expect_identical(int want, int i) {
  const cond_run *a = get(want), *b = get(i);
  ck_assert_uint_eq(b->steps, a->steps);
  const size_t d = first_difference(a->losses, b->losses, a->steps,
                                    sizeof(float));
  ck_assert_msg(d == a->steps, "run %d's loss differs from run %d's at step "
                "%zu (%.9g vs %.9g)", i, want, d, (double)b->losses[d],
                (double)a->losses[d]);
  ck_assert_uint_eq(b->weight_count, a->weight_count);
  const size_t w = first_difference(a->weights, b->weights, a->weight_count,
                                    sizeof(float));
  ck_assert_msg(w == a->weight_count, "run %d's final weight %zu differs "
                "from run %d's", i, w, want);
  ck_assert_uint_eq(b->digest_count, a->digest_count);
  if (a->digest_count == 0) {
    return;
  }
  const size_t g = first_difference(a->digests, b->digests, a->digest_count,
                                    sizeof(uint64_t));
  ck_assert_msg(g == a->digest_count, "run %d's state digest %zu (step %zu) "
                "differs from run %d's", i, g, g / 2, want);
}

static void expect_said(int i, const char *needle) {
  ck_assert_msg(strstr(get(i)->out, needle) != NULL,
                "run %d did not say \"%s\":\n%s", i, needle, get(i)->out);
}

/* The graph row's node count in the trainer's table. */
static unsigned long long graph_nodes(int i) {
  const char *row = strstr(get(i)->out, "| graph (replays)");
  ck_assert_msg(row != NULL, "run %d replayed no graph:\n%s", i, get(i)->out);
  unsigned long long nodes = 0;
  const char *p = row;
  for (int bar = 0; bar < 4 && p != NULL; bar++) { /* to the nodes column */
    p = strchr(p + 1, '|');
  }
  ck_assert(p != NULL && sscanf(p + 1, "%llu", &nodes) == 1);
  return nodes;
}

START_TEST(accumulation_agrees_eager_graph_driver_and_unrolled) {
  expect_identical(ACC_EAGER, ACC_GRAPH);
  expect_identical(ACC_EAGER, ACC_DRIVER);
  expect_identical(ACC_EAGER, ACC_UNROLL);
  expect_said(ACC_GRAPH, "1 capture(s), 1 conditional node(s)");
  expect_said(ACC_UNROLL, "0 conditional node(s)");
}
END_TEST

START_TEST(a_changing_count_agrees_and_needs_no_recapture) {
  expect_identical(SCHED_EAGER, SCHED_GRAPH);
  expect_said(SCHED_GRAPH, "1 capture(s), 1 conditional node(s)");
  /* The schedule changed the training: not the same as 1 microbatch. */
  const cond_run *s = get(SCHED_EAGER), *a = get(ACC_EAGER);
  ck_assert_uint_lt(first_difference(s->losses, a->losses, s->steps,
                                     sizeof(float)),
                    s->steps);
}
END_TEST

static bool is_fault(size_t step) {
  for (size_t k = 0; k < sizeof faults / sizeof faults[0]; k++) {
    if (faults[k] == step) {
      return true;
    }
  }
  return false;
}

START_TEST(skipped_steps_leave_the_state_untouched_in_every_mode) {
  expect_identical(SKIP_EAGER, SKIP_GRAPH);
  expect_identical(SKIP_EAGER, SKIP_DRIVER);
  expect_identical(SKIP_EAGER, SKIP_DISABLED);
  expect_said(SKIP_DISABLED, "graphs not used");
  const cond_run *r = get(SKIP_EAGER);
  ck_assert_uint_eq(r->digest_count, 2 * r->steps);
  for (size_t k = 0; k < r->steps; k++) {
    const bool same = r->digests[2 * k] == r->digests[2 * k + 1];
    ck_assert_msg(same == is_fault(k),
                  "step %zu: the optimizer step %s the state", k,
                  same ? "left untouched" : "changed");
    ck_assert_msg(r->digests[2 * k] != 0, "step %zu has no digest", k);
  }
  expect_said(SKIP_EAGER, "(4 skipped eagerly)");
  expect_said(SKIP_GRAPH, "1 conditional node(s)");
}
END_TEST

START_TEST(the_loop_graph_does_not_grow_with_microbatches) {
  const unsigned long long acc2 = graph_nodes(ACC2), acc16 = graph_nodes(ACC16);
  const unsigned long long un2 = graph_nodes(UNROLL2),
                           un16 = graph_nodes(UNROLL16);
  printf("graph nodes: loop N=2 %llu, N=16 %llu; unrolled N=2 %llu, "
         "N=16 %llu\n", acc2, acc16, un2, un16);
  ck_assert_uint_eq(acc2, acc16);
  ck_assert_uint_gt(un16, un2);
  ck_assert_uint_gt(un16, acc16);
}
END_TEST

START_TEST(the_detector_names_the_first_stale_layer_in_stale_mode) {
  expect_said(STALE, "first stale: layer 0 (group 0) at step 1;");
  expect_said(STALE, "of 16 layers stale");
  expect_said(STALE_NO_WARMUP, "first stale: layer 0 (group 0) at step 1;");
}
END_TEST

START_TEST(the_detector_finds_nothing_when_the_refresh_runs) {
  const int checked[] = {GRAPH_CHECK, EAGER_CHECK, DRIVER_CHECK};
  for (size_t k = 0; k < 3; k++) {
    expect_said(checked[k], "transpose check: " STEPS " steps checked, no "
                            "stale transpose");
  }
  /* The check only reads: the run is the plain one. */
  const cond_run *g = get(GRAPH_CHECK), *e = get(EAGER_CHECK);
  ck_assert_uint_eq(first_difference(g->losses, e->losses, g->steps,
                                     sizeof(float)),
                    g->steps);
}
END_TEST

static void cleanup(void) {
  static const char *const kinds[] = {"losses", "weights", "digests"};
  for (int i = 0; i < RUNS; i++) {
    for (int k = 0; k < 3; k++) {
      char path[4200];
      dump_path(path, sizeof path, i, kinds[k]);
      unlink(path);
    }
    free(runs[i].losses);
    free(runs[i].weights);
    free(runs[i].digests);
    free(runs[i].out);
  }
  remove_trainer_dir(dir);
}

int main(void) {
  sg_test_require_gpu("test_trainer_cond");
  if (mkdtemp(dir) == NULL) {
    perror("mkdtemp");
    return EXIT_FAILURE;
  }
  Suite *s = suite_create("trainer_cond");
  TCase *tc = tcase_create("conditional features");
  tcase_set_timeout(tc, 900);
  tcase_add_test(tc, accumulation_agrees_eager_graph_driver_and_unrolled);
  tcase_add_test(tc, a_changing_count_agrees_and_needs_no_recapture);
  tcase_add_test(tc, skipped_steps_leave_the_state_untouched_in_every_mode);
  tcase_add_test(tc, the_loop_graph_does_not_grow_with_microbatches);
  tcase_add_test(tc, the_detector_names_the_first_stale_layer_in_stale_mode);
  tcase_add_test(tc, the_detector_finds_nothing_when_the_refresh_runs);
  suite_add_tcase(s, tc);
  const int rc = sg_run_suite(s, CK_NOFORK); /* runs are cached across cases */
  cleanup();
  return rc;
}

/* fp8_trainer's data-parallel paths on one GPU (a communicator of one
 * rank runs every collective): --ranks 1 with and without
 * --shard-optimizer, eager against graph and driver, bit for bit (losses
 * and final master weights), with the gradient all-reduce, the
 * reduce-scatter, the bucketed all-gathers and the amax reduction inside
 * the captured step. Also, at one rank: the ranks' run equals a single
 * process's, the sharded optimizer equals the unsharded one, and a rank
 * started from outside (RANK, WORLD_SIZE, LOCAL_RANK, a rendezvous file)
 * equals the forked one and leaves no file behind. */
#define _XOPEN_SOURCE 700 /* mkdtemp, setenv */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sg_gpu_test.h"
#include "sg_run_suite.h"
#include "spawn.h"

typedef struct run_spec {
  const char *name;
  const char *mode;
  int ranks;    /* 0: no --ranks; -1: RANK/WORLD_SIZE and a rendezvous */
  int shard;
} run_spec;

enum { PLAIN, R_EAGER, R_GRAPH, R_DRIVER, S_EAGER, S_GRAPH, S_DRIVER, JOINED,
       RUNS };
static const run_spec specs[RUNS] = {
    {"single process, eager", "eager", 0, 0},
    {"--ranks 1 eager", "eager", 1, 0},
    {"--ranks 1 graph", "graph", 1, 0},
    {"--ranks 1 driver", "driver", 1, 0},
    {"--ranks 1 --shard-optimizer eager", "eager", 1, 1},
    {"--ranks 1 --shard-optimizer graph", "graph", 1, 1},
    {"--ranks 1 --shard-optimizer driver", "driver", 1, 1},
    {"RANK=0 WORLD_SIZE=1 --rendezvous, graph", "graph", -1, 0},
};

typedef struct result {
  int done;
  float *losses, *weights;
  size_t steps, weight_count;
  char *out;
} result;

static char dir[] = "/tmp/sg_trainer_ranks_XXXXXX";
static result results[RUNS];

/* A dump of floats, read and removed. */
static float *take_dump(const char *path, size_t *count) {
  float *data = read_dump(path, sizeof(float), count);
  unlink(path);
  return data;
}

/* Up to 12 words of arguments for run i. */
static void arguments(int i, const char *losses, const char *weights,
                      const char *rendezvous, const char **args) {
  size_t n = 0;
  args[n++] = "--mode";
  args[n++] = specs[i].mode;
  args[n++] = "--print-every";
  args[n++] = "0";
  args[n++] = "--dump-losses";
  args[n++] = losses;
  args[n++] = "--dump-weights";
  args[n++] = weights;
  if (specs[i].ranks > 0) {
    args[n++] = "--ranks";
    args[n++] = "1";
  } else if (specs[i].ranks < 0) {
    args[n++] = "--rendezvous";
    args[n++] = rendezvous;
  }
  if (specs[i].shard) {
    args[n++] = "--shard-optimizer";
  }
  args[n] = NULL;
}

static const result *get(int i) {
  result *r = &results[i];
  if (r->done) {
    return r;
  }
  char losses[4200], weights[4200], rendezvous[4200];
  snprintf(losses, sizeof losses, "%s/%d.losses", dir, i);
  snprintf(weights, sizeof weights, "%s/%d.weights", dir, i);
  snprintf(rendezvous, sizeof rendezvous, "%s/nccl.id", dir);
  const char *args[16];
  arguments(i, losses, weights, rendezvous, args);
  if (specs[i].ranks < 0) {
    setenv("RANK", "0", 1);
    setenv("WORLD_SIZE", "1", 1);
    setenv("LOCAL_RANK", "0", 1);
  }
  trainer_result t = run_trainer(dir, args, NULL);
  unsetenv("RANK");
  unsetenv("WORLD_SIZE");
  unsetenv("LOCAL_RANK");
  ck_assert_msg(t.exited && t.code == 0,
                "%s: %s %d\nstdout:\n%s\nstderr:\n%s", specs[i].name,
                t.exited ? "exit" : "signal", t.code, t.out, t.err);
  const char *suffix = specs[i].ranks != 0 ? ".rank0" : "";
  char path[4300];
  snprintf(path, sizeof path, "%s%s", losses, suffix);
  r->losses = take_dump(path, &r->steps);
  snprintf(path, sizeof path, "%s%s", weights, suffix);
  r->weights = take_dump(path, &r->weight_count);
  r->out = t.out;
  free(t.err);
  r->done = 1;
  return r;
}

/* Run i's losses and weights equal run j's, bit for bit. */
static void expect_same(int i, int j) {
  const result *a = get(i), *b = get(j);
  ck_assert_uint_ge(a->steps, 200);
  ck_assert_uint_eq(a->steps, b->steps);
  const size_t d = first_difference(a->losses, b->losses, a->steps,
                                    sizeof(float));
  ck_assert_msg(d == a->steps, "%s and %s: losses differ first at step %zu",
                specs[i].name, specs[j].name, d);
  ck_assert_uint_eq(a->weight_count, b->weight_count);
  const size_t w = first_difference(a->weights, b->weights, a->weight_count,
                                    sizeof(float));
  ck_assert_msg(w == a->weight_count,
                "%s and %s: final weights differ first at %zu",
                specs[i].name, specs[j].name, w);
}

static void expect_replayed(int i) {
  char want[64];
  snprintf(want, sizeof want, "%s (replays)", specs[i].mode);
  ck_assert_msg(strstr(get(i)->out, want) != NULL,
                "%s did not replay a graph:\n%s", specs[i].name, get(i)->out);
  ck_assert_msg(strstr(get(i)->out, "rank 0 of 1 on GPU 0") != NULL,
                "%s: no rank line:\n%s", specs[i].name, get(i)->out);
}

START_TEST(collectives_in_the_graph_match_eager) {
  expect_same(R_EAGER, R_GRAPH);
  expect_same(R_EAGER, R_DRIVER);
  expect_replayed(R_GRAPH);
  expect_replayed(R_DRIVER);
}
END_TEST

START_TEST(sharded_optimizer_in_the_graph_matches_eager) {
  expect_same(S_EAGER, S_GRAPH);
  expect_same(S_EAGER, S_DRIVER);
  expect_replayed(S_GRAPH);
  ck_assert_ptr_nonnull(strstr(get(S_GRAPH)->out, "sharded optimizer"));
}
END_TEST

/* One rank: the collectives are identities, so the model must come out
 * as a single process's, and the sharded optimizer (shard = the whole
 * weight; cast, all-gather, per-bucket transpose) as the unsharded one. */
START_TEST(one_rank_equals_a_single_process) {
  expect_same(PLAIN, R_EAGER);
  expect_same(R_EAGER, S_EAGER);
}
END_TEST

START_TEST(a_rank_started_from_outside_equals_the_forked_one) {
  expect_same(R_GRAPH, JOINED);
  expect_replayed(JOINED);
  char id[4200];
  snprintf(id, sizeof id, "%s/nccl.id", dir);
  ck_assert_msg(access(id, F_OK) != 0, "rank 0 left %s behind", id);
}
END_TEST

static void cleanup(void) {
  for (int i = 0; i < RUNS; i++) {
    free(results[i].losses);
    free(results[i].weights);
    free(results[i].out);
  }
  remove_trainer_dir(dir);
}

int main(void) {
  sg_test_require_gpu("test_trainer_ranks");
  if (mkdtemp(dir) == NULL) {
    perror("mkdtemp");
    return EXIT_FAILURE;
  }
  Suite *s = suite_create("trainer_ranks");
  TCase *tc = tcase_create("one_rank");
  tcase_set_timeout(tc, 900);
  tcase_add_test(tc, collectives_in_the_graph_match_eager);
  tcase_add_test(tc, sharded_optimizer_in_the_graph_matches_eager);
  tcase_add_test(tc, one_rank_equals_a_single_process);
  tcase_add_test(tc, a_rank_started_from_outside_equals_the_forked_one);
  suite_add_tcase(s, tc);
  const int rc = sg_run_suite(s, CK_NOFORK); /* runs cached across cases */
  cleanup();
  return rc;
}

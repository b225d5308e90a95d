/* Guards and loops end to end on a GPU: every program shape (cond_program.h)
 * run eagerly and captured once then replayed under several flag and trip
 * values, each trace equal to the host's simulation; one graph serves every
 * trip count (no re-capture, the same node count); a re-capture updates or
 * re-instantiates and stays right; the step driver with STEPGRAPH_DISABLE
 * and without gives the same traces. A nested shape that CUDA refuses must
 * fail its capture with a reason and then run eagerly, right. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "cond_program.h"
#include "gpu_common.h"

static const cp_values value_sets[] = {
    {{1, 1, 3, 2}}, {{0, 1, 3, 2}}, {{1, 0, 0, 2}}, {{1, 1, 1, 0}},
    {{0, 0, 5, 1}}, {{1, 1, 8, 3}}, {{1, 1, 64, 1}},
};
#define VALUE_SETS (int)(sizeof value_sets / sizeof value_sets[0])

typedef struct fixture {
  sg_session *s;
  cudaStream_t st;
  cp_run run;
} fixture;

static fixture open_fixture(uint32_t warmup) {
  fixture f;
  cp_open_session(&f.run, gt_api, warmup);
  f.s = f.run.s;
  f.st = f.run.st;
  return f;
}

static void close_fixture(fixture *f) { cp_close_session(&f->run); }

static void expect_trace(cp_run *r, cp_shape shape, const cp_values *v,
                         const char *how) {
  cp_trace got, want;
  cp_read(r, &got);
  cp_simulate(shape, v, &want);
  const int d = cp_diff(&got, &want);
  ck_assert_msg(d < 0,
                "%s, %s, values {%d,%d,%d,%d}: trace differs at entry %d "
                "(%d entries, expected %d; got %d, expected %d)",
                cp_names[shape], how, v->v[0], v->v[1], v->v[2], v->v[3], d,
                got.count, want.count, d < CP_LOG ? got.log[d] : 0,
                d < CP_LOG ? want.log[d] : 0);
}

START_TEST(eager_regions_do_what_the_program_says) {
  fixture f = open_fixture(0);
  for (int k = 0; k < VALUE_SETS; k++) {
    cp_enqueue_values(&f.run, &value_sets[k]);
    GT_OK(f.s, cp_enqueue_program(&f.run, (cp_shape)_i));
    expect_trace(&f.run, (cp_shape)_i, &value_sets[k], "eager");
  }
  sg_stats st = gt_stats(f.s);
  ck_assert_uint_gt(st.guards + st.loops, 0);
  close_fixture(&f);
}
END_TEST

/* Captures the shape once; SG_OK, or SG_ERR_CAPTURE_FAILED when CUDA
 * refused it (printed: the GPU run's answer about nesting). Sequential
 * regions (no nesting) must capture. */
static sg_status capture_shape(fixture *f, uint64_t key, cp_shape shape) {
  sg_capture_args ca = gt_capture_args(key, f->st, SG_CAPTURE_THREAD_LOCAL);
  cp_enqueue_values(&f->run, &value_sets[0]);
  GT_OK(f->s, gt_api->capture_begin(f->s, &ca));
  GT_OK(f->s, cp_enqueue_program(&f->run, shape));
  const sg_status st = gt_api->capture_end(f->s, &ca);
  printf("capture of \"%s\": %s%s\n", cp_names[shape],
         st == SG_OK ? "captured" : "refused: ",
         st == SG_OK ? "" : sg_test_detail(gt_api, f->s));
  ck_assert_msg(st == SG_OK || st == SG_ERR_CAPTURE_FAILED,
                "capture_end: %d: %s", (int)st, sg_test_detail(gt_api, f->s));
  return st;
}

START_TEST(one_capture_replays_right_for_every_value) {
  fixture f = open_fixture(0);
  const cp_shape shape = (cp_shape)_i;
  const sg_status captured = capture_shape(&f, 10 + _i, shape);
  /* Only a nested shape may be refused. */
  ck_assert(captured == SG_OK ||
            (shape != CP_GUARD && shape != CP_LOOP && shape != CP_SEQUENCE));
  sg_graph_info gi = {.struct_size = sizeof gi};
  if (captured == SG_OK) {
    GT_OK(f.s, gt_api->graph_info(f.s, 10 + _i, &gi));
    ck_assert_uint_eq(gi.conditional_nodes, cp_conditionals[shape]);
  }
  sg_replay_args ra = gt_replay_args(10 + _i, f.st);
  for (int k = 0; k < VALUE_SETS; k++) {
    cp_enqueue_values(&f.run, &value_sets[k]);
    if (captured == SG_OK) {
      GT_OK(f.s, gt_api->replay(f.s, &ra));
    } else { /* the key runs eagerly: the host runs its program */
      GT_EXPECT(f.s, gt_api->replay(f.s, &ra), SG_RUN_EAGERLY);
      GT_OK(f.s, cp_enqueue_program(&f.run, shape));
    }
    expect_trace(&f.run, shape, &value_sets[k],
                 captured == SG_OK ? "replayed" : "eager after refusal");
  }
  sg_stats st = gt_stats(f.s);
  ck_assert_uint_eq(st.captures, captured == SG_OK ? 1 : 0); /* no re-capture */
  if (captured == SG_OK) {
    ck_assert_uint_eq(st.conditional_nodes, cp_conditionals[shape]);
    sg_graph_info after = {.struct_size = sizeof after};
    GT_OK(f.s, gt_api->graph_info(f.s, 10 + _i, &after));
    ck_assert_uint_eq(after.nodes, gi.nodes);
  }
  close_fixture(&f);
}
END_TEST

/* The graph of a loop is the same size whatever its trip count, and the
 * same as for one iteration of its body. */
START_TEST(a_loop_graph_does_not_grow_with_the_trip_count) {
  fixture f = open_fixture(0);
  ck_assert_int_eq(capture_shape(&f, 1, CP_LOOP), SG_OK);
  sg_graph_info gi = {.struct_size = sizeof gi};
  GT_OK(f.s, gt_api->graph_info(f.s, 1, &gi));
  /* mark 1, loop start, WHILE node, body (mark 2, loop step), mark 3. */
  ck_assert_uint_eq(gi.nodes, 6);
  close_fixture(&f);
}
END_TEST

/* Capturing the same key again: CUDA either updates the executable in
 * place or the plugin re-instantiates; either way the replays are right. */
START_TEST(a_recapture_with_regions_replays_right) {
  fixture f = open_fixture(0);
  const cp_shape shape = CP_GUARD_IN_LOOP;
  if (capture_shape(&f, 2, shape) != SG_OK) {
    close_fixture(&f);
    return; /* nesting refused: the eager fallback is tested above */
  }
  const sg_stats before = gt_stats(f.s);
  ck_assert_int_eq(capture_shape(&f, 2, shape), SG_OK);
  const sg_stats after = gt_stats(f.s);
  printf("re-capture with conditional nodes: %s\n",
         after.exec_updates > before.exec_updates
             ? "cudaGraphExecUpdate accepted it (updated in place)"
             : "re-instantiated (cudaGraphExecUpdate refused it)");
  ck_assert_uint_eq(after.exec_updates + after.instantiations,
                    before.exec_updates + before.instantiations + 1);
  sg_replay_args ra = gt_replay_args(2, f.st);
  for (int k = 0; k < VALUE_SETS; k++) {
    cp_enqueue_values(&f.run, &value_sets[k]);
    GT_OK(f.s, gt_api->replay(f.s, &ra));
    expect_trace(&f.run, shape, &value_sets[k], "replayed after re-capture");
  }
  close_fixture(&f);
}
END_TEST

typedef struct driven {
  cp_run *run;
  cp_shape shape;
} driven;

static sg_status driven_fn(void *user, sg_stream stream,
                           const sg_step_context *ctx) {
  (void)stream, (void)ctx;
  const driven *d = user;
  return cp_enqueue_program(d->run, d->shape);
}

/* The step driver over warm-up, capture and replay, with graphs on or
 * disabled: the same traces. */
static void drive_all(bool disabled) {
  if (disabled) {
    setenv("STEPGRAPH_DISABLE", "1", 1);
  }
  fixture f = open_fixture(2);
  unsetenv("STEPGRAPH_DISABLE");
  driven d = {&f.run, CP_SEQUENCE};
  sg_step_args a = {.struct_size = sizeof a, .key = 5, .stream = (sg_stream)f.st,
                    .fn = driven_fn, .user = &d};
  for (int k = 0; k < VALUE_SETS; k++) {
    cp_enqueue_values(&f.run, &value_sets[k]);
    GT_OK(f.s, gt_api->step(f.s, &a));
    expect_trace(&f.run, d.shape, &value_sets[k],
                 disabled ? "driver, graphs disabled" : "driver");
  }
  sg_stats st = gt_stats(f.s);
  ck_assert_uint_eq(st.replays > 0, !disabled);
  close_fixture(&f);
}

START_TEST(the_driver_gives_the_same_traces) { drive_all(false); }
END_TEST

START_TEST(the_driver_with_graphs_disabled_gives_the_same_traces) {
  drive_all(true);
}
END_TEST

static Suite *make(void) {
  Suite *s = suite_create("conditional");
  TCase *t = tcase_create("programs");
  tcase_set_timeout(t, 120);
  tcase_add_loop_test(t, eager_regions_do_what_the_program_says, 0, CP_SHAPES);
  tcase_add_loop_test(t, one_capture_replays_right_for_every_value, 0,
                      CP_SHAPES);
  tcase_add_test(t, a_loop_graph_does_not_grow_with_the_trip_count);
  tcase_add_test(t, a_recapture_with_regions_replays_right);
  tcase_add_test(t, the_driver_gives_the_same_traces);
  tcase_add_test(t, the_driver_with_graphs_disabled_gives_the_same_traces);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return gt_main("test_conditional", make); }

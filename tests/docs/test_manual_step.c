/* The manual-path recipe (manual_step.h, shown verbatim in
 * docs/INTEGRATION.md) runs the host's step exactly once per call, whatever
 * the plugin answers. A validation-only session cannot capture, so the
 * answers come from a stand-in table that behaves as the header documents
 * (capture records without running; a failed capture makes the key
 * eager-only; replay runs the graph); the real plugin checks the path it can
 * reach without a GPU: capture_begin's SG_ERR_NO_DEVICE runs nothing. */
#include <check.h>
#include <string.h>

#include "manual_step.h"
#include "sg_load.h"
#include "sg_run_suite.h"

#define KEY 42u

/* The stand-in plugin: scripted answers, and what the step really did. */
static struct {
  sg_status begin, end, replay;
  int capturing, has_graph, eager_only;
  int begins, ends, replays;  /* calls */
  int recorded, eager, graph; /* the step: captured / run eagerly / run as graph */
} fake;

static sg_stream the_stream = (sg_stream)&fake;

static void args_ok(uint64_t key, sg_stream stream, size_t size, size_t want) {
  ck_assert_uint_eq(key, KEY);
  ck_assert_ptr_eq(stream, the_stream);
  ck_assert_uint_eq(size, want);
}

static sg_status fake_begin(sg_session *s, const sg_capture_args *a) {
  (void)s;
  args_ok(a->key, a->stream, a->struct_size, sizeof *a);
  ck_assert_msg(!fake.capturing, "capture_begin during a capture");
  fake.begins++;
  if (fake.eager_only) {
    return SG_RUN_EAGERLY;
  }
  fake.capturing = fake.begin == SG_OK;
  return fake.begin;
}

static sg_status fake_end(sg_session *s, const sg_capture_args *a) {
  (void)s;
  args_ok(a->key, a->stream, a->struct_size, sizeof *a);
  ck_assert_msg(fake.capturing, "capture_end without capture_begin");
  fake.ends++;
  fake.capturing = 0;
  fake.has_graph = fake.end == SG_OK;
  fake.eager_only = fake.end == SG_ERR_CAPTURE_FAILED;
  return fake.end;
}

static sg_status fake_replay(sg_session *s, const sg_replay_args *a) {
  (void)s;
  args_ok(a->key, a->stream, a->struct_size, sizeof *a);
  fake.replays++;
  if (fake.eager_only) {
    return SG_RUN_EAGERLY;
  }
  if (!fake.has_graph) {
    return SG_ERR_INVALID_STATE;
  }
  fake.graph += fake.replay == SG_OK;
  return fake.replay;
}

static const sg_api fake_api = {
    .struct_size = sizeof(sg_api),
    .capture_begin = fake_begin,
    .capture_end = fake_end,
    .replay = fake_replay,
};

static void step(void *user, sg_stream stream) {
  ck_assert_ptr_eq(user, &fake);
  ck_assert_ptr_eq(stream, the_stream);
  if (fake.capturing) {
    fake.recorded++;
  } else {
    fake.eager++;
  }
}

static void script(sg_status begin, sg_status end, sg_status replay) {
  memset(&fake, 0, sizeof fake);
  fake.begin = begin;
  fake.end = end;
  fake.replay = replay;
}

static int runs(void) { return fake.eager + fake.graph; }

/* Calls the recipe `steps` times; each call must return `want` and run the
 * step exactly once when it succeeds, never when it fails. */
static void drive(int steps, sg_status want, int *captured) {
  for (int i = 0; i < steps; i++) {
    const int before = runs();
    sg_status st = manual_step(&fake_api, NULL, KEY, the_stream, captured,
                               step, &fake);
    ck_assert_int_eq(st, want);
    ck_assert_int_eq(runs() - before, want == SG_OK ? 1 : 0);
  }
}

START_TEST(captures_once_then_replays) {
  int captured = 0;
  script(SG_OK, SG_OK, SG_OK);
  drive(3, SG_OK, &captured);
  ck_assert_int_eq(captured, 1);
  ck_assert_int_eq(fake.begins, 1);
  ck_assert_int_eq(fake.ends, 1);
  ck_assert_int_eq(fake.recorded, 1);
  ck_assert_int_eq(fake.graph, 3); /* the captured step ran at its first replay */
  ck_assert_int_eq(fake.eager, 0);
}
END_TEST

START_TEST(run_eagerly_at_begin_runs_once) {
  int captured = 0;
  script(SG_RUN_EAGERLY, SG_OK, SG_OK); /* STEPGRAPH_DISABLE */
  drive(3, SG_OK, &captured);
  ck_assert_int_eq(fake.eager, 3);
  ck_assert_int_eq(fake.ends + fake.replays + fake.recorded, 0);
}
END_TEST

START_TEST(failed_capture_runs_the_step_eagerly) {
  int captured = 0;
  script(SG_OK, SG_ERR_CAPTURE_FAILED, SG_OK);
  drive(1, SG_OK, &captured);
  ck_assert_int_eq(fake.recorded, 1);
  ck_assert_int_eq(fake.eager, 1); /* not twice, not zero */
  ck_assert_int_eq(fake.replays, 0);
  drive(2, SG_OK, &captured); /* the key is eager-only now */
  ck_assert_int_eq(fake.eager, 3);
  ck_assert_int_eq(fake.graph, 0);
}
END_TEST

START_TEST(errors_run_nothing) {
  int captured = 0;
  script(SG_ERR_NO_DEVICE, SG_OK, SG_OK);
  drive(1, SG_ERR_NO_DEVICE, &captured);
  ck_assert_int_eq(fake.recorded, 0);
  script(SG_OK, SG_OK, SG_ERR_INVALID_STATE); /* e.g. evicted, never re-captured */
  drive(1, SG_ERR_INVALID_STATE, &captured);
  ck_assert_int_eq(captured, 1);
}
END_TEST

/* The real plugin, without a GPU: capture_begin answers SG_ERR_NO_DEVICE
 * after pre_capture, and the recipe passes it on without running the step. */
START_TEST(validation_only_plugin_runs_nothing) {
  const sg_api *api = sg_test_load().api;
  sg_session_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.struct_size = sizeof cfg;
  cfg.flags = SG_SESSION_VALIDATION_ONLY;
  sg_session *s = NULL;
  ck_assert_int_eq(api->session_create(&cfg, &s), SG_OK);
  ck_assert_int_eq(api->pre_capture(s, the_stream), SG_OK);
  script(SG_OK, SG_OK, SG_OK);
  int captured = 0;
  ck_assert_int_eq(manual_step(api, s, KEY, the_stream, &captured, step, &fake),
                   SG_ERR_NO_DEVICE);
  ck_assert_int_eq(fake.recorded + fake.eager, 0);
  ck_assert_int_eq(captured, 0);
  api->session_destroy(s);
}
END_TEST

int main(void) {
  Suite *s = suite_create("manual_step");
  TCase *tc = tcase_create("recipe");
  tcase_add_test(tc, captures_once_then_replays);
  tcase_add_test(tc, run_eagerly_at_begin_runs_once);
  tcase_add_test(tc, failed_capture_runs_the_step_eagerly);
  tcase_add_test(tc, errors_run_nothing);
  tcase_add_test(tc, validation_only_plugin_runs_nothing);
  suite_add_tcase(s, tc);
  return sg_run_suite(s, CK_FORK);
}

/* struct_size rules, for every argument struct: smaller than its first
 * version (ABI 1.0's for the structs of 1.0) is refused; exactly that is
 * accepted, and nothing past it is written (an older host's struct ends
 * there); larger than this plugin's (a newer host's, with trailing fields)
 * is accepted and its trailing bytes are neither read nor written. */
#include <stdint.h>

#include "conformance.h"

#define TRAIL 64
#define TRAIL_BYTE 0xcd

typedef struct size_case {
  const char *name;
  size_t v1_size;  /* its first version's */
  size_t cur_size; /* this header's */
  void (*fill)(void *buf);
  sg_status (*call)(sg_session *s, void *buf);
  sg_status accepted; /* what the call returns once the size is accepted */
} size_case;

static void fill_config(void *b) {
  sg_session_config c = validation_config();
  memcpy(b, &c, sizeof c);
}
static sg_status call_create(sg_session *s, void *b) {
  (void)s;
  sg_session *made = NULL;
  sg_status st = api->session_create(b, &made);
  api->session_destroy(made);
  return st;
}

static void fill_fp8(void *b) {
  sg_fp8_param_desc d = fp8_desc(0, 16, 32);
  memcpy(b, &d, sizeof d);
}
static sg_status call_register_fp8(sg_session *s, void *b) {
  return api->register_fp8_params(s, b, 1, NULL);
}

static void fill_static(void *b) {
  sg_static_buffer_desc d = {sizeof d, FAKE_DEVICE(0), 256};
  memcpy(b, &d, sizeof d);
}
static sg_status call_register_static(sg_session *s, void *b) {
  return api->register_static_buffers(s, b, 1, NULL);
}

static void fill_capture(void *b) {
  sg_capture_args a = {sizeof a, 7, FAKE_STREAM, SG_CAPTURE_THREAD_LOCAL, 0};
  memcpy(b, &a, sizeof a);
}
static sg_status call_capture_begin(sg_session *s, void *b) {
  ck_assert_int_eq(api->pre_capture(s, FAKE_STREAM), SG_OK);
  return api->capture_begin(s, b);
}

static void fill_replay(void *b) {
  sg_replay_args a = {sizeof a, 7, FAKE_STREAM, NULL, 0, 0};
  memcpy(b, &a, sizeof a);
}
static sg_status call_replay(sg_session *s, void *b) {
  return api->replay(s, b);
}

static void fill_refresh(void *b) {
  sg_refresh_args a = {sizeof a, SG_REFRESH_TRANSPOSE, SG_ALL_GROUPS, NULL, 0,
                       0};
  memcpy(b, &a, sizeof a);
}
static sg_status call_refresh(sg_session *s, void *b) {
  return api->post_optimizer_step(s, FAKE_STREAM, b);
}

static sg_status step_fn(void *user, sg_stream stream,
                         const sg_step_context *ctx) {
  (void)user, (void)stream, (void)ctx;
  return SG_OK;
}
static void fill_step(void *b) {
  sg_step_args a = {.struct_size = sizeof a, .key = 7, .stream = FAKE_STREAM,
                    .fn = step_fn};
  memcpy(b, &a, sizeof a);
}
static sg_status call_step(sg_session *s, void *b) { return api->step(s, b); }

static void fill_rng_state(void *b) {
  sg_rng_state r = {sizeof r, 1, 2};
  memcpy(b, &r, sizeof r);
}
static sg_status call_rng_set(sg_session *s, void *b) {
  return api->rng_set_state(s, FAKE_STREAM, b);
}
static sg_status call_rng_get(sg_session *s, void *b) {
  return api->rng_get_state(s, FAKE_STREAM, b);
}

static void fill_rng_device(void *b) {
  sg_rng_device_state r = {sizeof r, NULL, NULL};
  memcpy(b, &r, sizeof r);
}
static sg_status call_rng_device(sg_session *s, void *b) {
  return api->rng_device_state(s, b);
}

static void fill_stats(void *b) {
  sg_stats st;
  memset(&st, 0, sizeof st);
  st.struct_size = sizeof st;
  memcpy(b, &st, sizeof st);
}
static sg_status call_stats(sg_session *s, void *b) {
  return api->get_stats(s, b);
}

static void fill_graph_info(void *b) {
  sg_graph_info g;
  memset(&g, 0, sizeof g);
  g.struct_size = sizeof g;
  memcpy(b, &g, sizeof g);
}
static sg_status call_graph_info(sg_session *s, void *b) {
  return api->graph_info(s, 7, b);
}

static void fill_step_plan(void *b) {
  sg_step_plan p = {.struct_size = sizeof p, .key = 7};
  memcpy(b, &p, sizeof p);
}
static sg_status call_step_plan(sg_session *s, void *b) {
  return api->step_plan(s, b);
}

static void fill_report(void *b) {
  sg_transpose_report r;
  memset(&r, 0, sizeof r);
  r.struct_size = sizeof r;
  memcpy(b, &r, sizeof r);
}
static sg_status call_report(sg_session *s, void *b) {
  return api->transpose_report(s, FAKE_STREAM, b);
}

/* A struct's first version's size (SG_V<ver>_SIZE_<type>) and its size in
 * this header. */
#define CASE_SINCE(ver, type, label, fill, call, accepted) \
  {label, SG_V##ver##_SIZE_##type, sizeof(type), fill, call, accepted}
#define CASE(type, label, fill, call, accepted) \
  CASE_SINCE(1_0, type, label, fill, call, accepted)

static const size_case cases[] = {
    CASE(sg_session_config, "sg_session_config", fill_config, call_create, SG_OK),
    CASE(sg_fp8_param_desc, "sg_fp8_param_desc", fill_fp8, call_register_fp8, SG_OK),
    CASE(sg_static_buffer_desc, "sg_static_buffer_desc", fill_static, call_register_static, SG_OK),
    CASE(sg_capture_args, "sg_capture_args", fill_capture, call_capture_begin, SG_ERR_NO_DEVICE),
    CASE(sg_replay_args, "sg_replay_args", fill_replay, call_replay, SG_ERR_INVALID_STATE),
    CASE(sg_refresh_args, "sg_refresh_args", fill_refresh, call_refresh, SG_ERR_NO_DEVICE),
    CASE(sg_step_args, "sg_step_args", fill_step, call_step, SG_ERR_NO_DEVICE),
    CASE_SINCE(1_1, sg_step_plan, "sg_step_plan", fill_step_plan, call_step_plan, SG_OK),
    CASE(sg_rng_state, "sg_rng_state (in)", fill_rng_state, call_rng_set, SG_OK),
    CASE(sg_rng_state, "sg_rng_state (out)", fill_rng_state, call_rng_get, SG_OK),
    CASE(sg_rng_device_state, "sg_rng_device_state", fill_rng_device, call_rng_device, SG_OK),
    CASE(sg_stats, "sg_stats", fill_stats, call_stats, SG_OK),
    CASE(sg_graph_info, "sg_graph_info", fill_graph_info, call_graph_info, SG_ERR_NOT_FOUND),
    CASE_SINCE(1_1, sg_transpose_report, "sg_transpose_report", fill_report, call_report, SG_OK),
};
#undef CASE
#define CASES (int)(sizeof cases / sizeof *cases)

static _Alignas(16) unsigned char buffer[1024];

/* Runs case c with struct_size set to `size` in a buffer whose bytes past
 * `size` (where the host's struct ends) are TRAIL_BYTE; returns the
 * status. */
static sg_status run_case(const size_case *c, size_t size,
                          unsigned char *buf) {
  memset(buf, TRAIL_BYTE, sizeof buffer);
  c->fill(buf);
  memset(buf + size, TRAIL_BYTE, sizeof buffer - size);
  memcpy(buf, &size, sizeof size);
  sg_session *s = open_validation();
  sg_status st = c->call(s, buf);
  api->session_destroy(s);
  return st;
}

static void expect_untouched(const size_case *c, size_t from) {
  for (size_t k = from; k < from + TRAIL; k++) {
    ck_assert_msg(buffer[k] == TRAIL_BYTE,
                  "%s: byte %zu, past the host's struct, written", c->name, k);
  }
}

START_TEST(smaller_than_v1_0_is_refused) {
  const size_case *c = &cases[_i];
  sg_status st = run_case(c, c->v1_size - sizeof(uint64_t), buffer);
  ck_assert_msg(st == SG_ERR_STRUCT_SIZE, "%s: status %d", c->name, (int)st);
}
END_TEST

START_TEST(exactly_v1_0_is_accepted_and_nothing_past_it_written) {
  const size_case *c = &cases[_i];
  sg_status st = run_case(c, c->v1_size, buffer);
  ck_assert_msg(st == c->accepted, "%s: status %d, expected %d", c->name,
                (int)st, (int)c->accepted);
  expect_untouched(c, c->v1_size);
}
END_TEST

START_TEST(larger_is_accepted_and_its_tail_untouched) {
  const size_case *c = &cases[_i];
  sg_status st = run_case(c, c->cur_size + TRAIL, buffer);
  ck_assert_msg(st == c->accepted, "%s: status %d, expected %d", c->name,
                (int)st, (int)c->accepted);
  expect_untouched(c, c->cur_size);
}
END_TEST

Suite *struct_size_suite(void) {
  Suite *s = suite_create("struct_size");
  TCase *t = tcase_create("every argument struct");
  tcase_add_loop_test(t, smaller_than_v1_0_is_refused, 0, CASES);
  tcase_add_loop_test(t, exactly_v1_0_is_accepted_and_nothing_past_it_written,
                      0, CASES);
  tcase_add_loop_test(t, larger_is_accepted_and_its_tail_untouched, 0, CASES);
  suite_add_tcase(s, t);
  return s;
}

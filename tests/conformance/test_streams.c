/* Which streams the entries accept (ABI 1.1): cudaStreamPerThread wherever
 * a stream is captured, checked, replayed or waited for; the legacy stream
 * (NULL, cudaStreamLegacy) still refused, with a message that tells a host
 * built with --default-stream per-thread what to pass instead. */
#include <stdint.h>

#include "conformance.h"

#define LEGACY ((sg_stream)(uintptr_t)0x1)     /* cudaStreamLegacy */
#define PER_THREAD ((sg_stream)(uintptr_t)0x2) /* cudaStreamPerThread */

static sg_status no_step(void *u, sg_stream st, const sg_step_context *c) {
  (void)u, (void)st, (void)c;
  return SG_OK;
}

/* Each entry that takes a stream, called with `stream` and otherwise valid
 * arguments in a fresh validation-only session. */
typedef sg_status (*stream_call)(sg_session *s, sg_stream stream);

static sg_status call_pre_capture(sg_session *s, sg_stream stream) {
  return api->pre_capture(s, stream);
}
static sg_status call_capture_begin(sg_session *s, sg_stream stream) {
  sg_capture_args a = {sizeof a, 1, stream, SG_CAPTURE_THREAD_LOCAL, 0};
  ck_assert_int_eq(api->pre_capture(s, FAKE_STREAM), SG_OK);
  return api->capture_begin(s, &a);
}
static sg_status call_capture_end(sg_session *s, sg_stream stream) {
  sg_capture_args a = {sizeof a, 1, stream, SG_CAPTURE_THREAD_LOCAL, 0};
  return api->capture_end(s, &a);
}
static sg_status call_replay(sg_session *s, sg_stream stream) {
  sg_replay_args a = {sizeof a, 1, stream, NULL, 0, 0};
  return api->replay(s, &a);
}
static sg_status call_step(sg_session *s, sg_stream stream) {
  sg_step_args a = {.struct_size = sizeof a, .key = 1, .stream = stream,
                    .fn = no_step};
  return api->step(s, &a);
}
static sg_status call_rng_get(sg_session *s, sg_stream stream) {
  sg_rng_state r = {sizeof r, 0, 0};
  return api->rng_get_state(s, stream, &r);
}
static sg_status call_rng_set(sg_session *s, sg_stream stream) {
  sg_rng_state r = {sizeof r, 3, 4};
  return api->rng_set_state(s, stream, &r);
}
static sg_status call_sync(sg_session *s, sg_stream stream) {
  return api->sync(s, stream, 1);
}

typedef struct stream_case {
  const char *name;
  stream_call call;
  sg_status per_thread; /* what cudaStreamPerThread reaches */
  const char *needle;   /* ... and its detail, past the stream check */
} stream_case;

static const stream_case cases[] = {
    {"pre_capture", call_pre_capture, SG_OK, NULL},
    {"capture_begin", call_capture_begin, SG_ERR_NO_DEVICE, "needs a GPU"},
    {"capture_end", call_capture_end, SG_ERR_INVALID_STATE,
     "no capture in progress"},
    {"replay", call_replay, SG_ERR_INVALID_STATE, "has not been captured"},
    {"step", call_step, SG_ERR_NO_DEVICE, "needs a GPU"},
    {"rng_get_state", call_rng_get, SG_OK, NULL},
    {"rng_set_state", call_rng_set, SG_OK, NULL},
    {"sync", call_sync, SG_ERR_NO_DEVICE, "needs a GPU"},
};
#define CASES (int)(sizeof cases / sizeof *cases)

START_TEST(per_thread_stream_passes_the_stream_check) {
  sg_session *s = open_validation();
  EXPECT(s, cases[_i].call(s, PER_THREAD), cases[_i].per_thread,
         cases[_i].needle);
  api->session_destroy(s);
}
END_TEST

START_TEST(legacy_stream_is_refused_with_the_per_thread_hint) {
  const sg_stream legacy[] = {NULL, LEGACY};
  const char *const spelled[] = {"(NULL)", "(cudaStreamLegacy)"};
  for (int k = 0; k < 2; k++) {
    sg_session *s = open_validation();
    EXPECT(s, cases[_i].call(s, legacy[k]), SG_ERR_INVALID_ARGUMENT,
           spelled[k]);
    char detail[1024];
    api->last_error(s, detail, sizeof detail, NULL);
    ck_assert_msg(strstr(detail, "--default-stream per-thread passes "
                                 "cudaStreamPerThread") != NULL,
                  "%s: no per-thread hint in \"%s\"", cases[_i].name, detail);
    api->session_destroy(s);
  }
}
END_TEST

/* The refresh takes any stream: it never captures or checks it. */
START_TEST(refresh_takes_the_legacy_and_per_thread_streams) {
  sg_session *s = open_validation();
  sg_refresh_args r = {sizeof r, SG_REFRESH_TRANSPOSE, SG_ALL_GROUPS, NULL,
                       0, 0};
  EXPECT(s, api->post_optimizer_step(s, NULL, &r), SG_ERR_NO_DEVICE,
         "needs a GPU");
  EXPECT(s, api->post_optimizer_step(s, PER_THREAD, &r), SG_ERR_NO_DEVICE,
         "needs a GPU");
  api->session_destroy(s);
}
END_TEST

Suite *streams_suite(void) {
  Suite *s = suite_create("streams");
  TCase *t = tcase_create("per-thread and legacy");
  tcase_add_loop_test(t, per_thread_stream_passes_the_stream_check, 0, CASES);
  tcase_add_loop_test(t, legacy_stream_is_refused_with_the_per_thread_hint, 0,
                      CASES);
  tcase_add_test(t, refresh_takes_the_legacy_and_per_thread_streams);
  suite_add_tcase(s, t);
  return s;
}

/* Static sources (ABI 1.1): replay's SG_REPLAY_HOST_SOURCES flag and the
 * step driver's appended static_sources, static_source_count and flags.
 * Validation-only sessions check every argument and stop at the device
 * (the host-memory checks themselves need CUDA: tests/gpu). */
#include <stdint.h>

#include "conformance.h"

static sg_status no_step(void *u, sg_stream st, const sg_step_context *c) {
  (void)u, (void)st, (void)c;
  return SG_OK;
}

/* A session with two static buffers. */
static sg_session *with_statics(void) {
  sg_session *s = open_validation();
  sg_static_buffer_desc d[2] = {{sizeof d[0], FAKE_DEVICE(0), 64},
                                {sizeof d[0], FAKE_DEVICE(64), 8}};
  EXPECT(s, api->register_static_buffers(s, d, 2, NULL), SG_OK, NULL);
  return s;
}

static const void *const two_sources[2] = {FAKE_DEVICE(0x1000), NULL};

static sg_replay_args replay_args(uint32_t count, uint32_t flags) {
  sg_replay_args a = {sizeof a, 1, FAKE_STREAM, two_sources, count, flags};
  return a;
}

static sg_step_args step_args(const void *const *sources, uint32_t count,
                              uint32_t flags) {
  sg_step_args a = {.struct_size = sizeof a, .key = 1, .stream = FAKE_STREAM,
                    .fn = no_step, .static_sources = sources,
                    .static_source_count = count, .flags = flags};
  return a;
}

START_TEST(replay_accepts_the_host_sources_flag) {
  sg_session *s = with_statics();
  sg_replay_args a = replay_args(2, SG_REPLAY_HOST_SOURCES);
  EXPECT(s, api->replay(s, &a), SG_ERR_INVALID_STATE, "has not been captured");
  api->session_destroy(s);
}
END_TEST

START_TEST(replay_refuses_unknown_flag_bits) {
  sg_session *s = with_statics();
  sg_replay_args a = replay_args(2, SG_REPLAY_HOST_SOURCES | 0x10u);
  EXPECT(s, api->replay(s, &a), SG_ERR_INVALID_ARGUMENT,
         "args->flags is 0x11; known bits: 0x1");
  api->session_destroy(s);
}
END_TEST

/* Driver steps with sources: each case's fields and what they reach. */
typedef struct step_case {
  const void *const *sources;
  uint32_t count, flags;
  sg_status want;
  const char *needle;
} step_case;

static const step_case step_cases[] = {
    {two_sources, 2, SG_STEP_HOST_SOURCES, SG_ERR_NO_DEVICE, "needs a GPU"},
    {two_sources, 3, 0, SG_ERR_INVALID_ARGUMENT,
     "args->static_source_count is 3 but 2 static buffers"},
    {NULL, 1, SG_STEP_HOST_SOURCES, SG_ERR_INVALID_ARGUMENT,
     "args->static_sources is NULL but static_source_count is 1"},
    {two_sources, 2, 0x6u, SG_ERR_INVALID_ARGUMENT,
     "args->flags is 0x6; known bits: 0x1 (SG_STEP_HOST_SOURCES)"},
};
#define STEP_CASES (int)(sizeof step_cases / sizeof *step_cases)

START_TEST(step_sources_are_checked_before_the_device) {
  const step_case *c = &step_cases[_i];
  sg_session *s = with_statics();
  sg_step_args a = step_args(c->sources, c->count, c->flags);
  EXPECT(s, api->step(s, &a), c->want, c->needle);
  api->session_destroy(s);
}
END_TEST

/* A 1.0 host's sg_step_args ends before the new fields: whatever lies
 * there is not read (garbage would be refused as a count or flags). */
START_TEST(a_v1_0_step_args_reads_no_sources) {
  sg_session *s = with_statics();
  sg_step_args a = step_args(NULL, 99, 0xffu);
  a.struct_size = offsetof(sg_step_args, static_sources);
  EXPECT(s, api->step(s, &a), SG_ERR_NO_DEVICE, "needs a GPU");
  api->session_destroy(s);
}
END_TEST

Suite *static_sources_suite(void) {
  Suite *s = suite_create("static_sources");
  TCase *t = tcase_create("replay flag and driver fields");
  tcase_add_test(t, replay_accepts_the_host_sources_flag);
  tcase_add_test(t, replay_refuses_unknown_flag_bits);
  tcase_add_loop_test(t, step_sources_are_checked_before_the_device, 0,
                      STEP_CASES);
  tcase_add_test(t, a_v1_0_step_args_reads_no_sources);
  suite_add_tcase(s, t);
  return s;
}

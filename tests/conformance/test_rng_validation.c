/* The RNG entries in validation-only sessions (ABI 1.1): placeholder
 * device pointers that are never memory, and a host-side state that
 * rng_end_step advances, so that a host's RNG wiring and checkpointing run
 * on a CPU machine. */
#include <stdint.h>

#include "conformance.h"

static sg_rng_state state_of(sg_session *s) {
  sg_rng_state r = {sizeof r, 0, 0};
  EXPECT(s, api->rng_get_state(s, FAKE_STREAM, &r), SG_OK, NULL);
  return r;
}

static uint64_t reserve(sg_session *s, uint64_t count) {
  uint64_t off = 99;
  EXPECT(s, api->rng_reserve(s, count, &off), SG_OK, NULL);
  return off;
}

START_TEST(device_state_is_the_documented_placeholders) {
  sg_session *s = open_validation();
  sg_rng_device_state d = {sizeof d, NULL, NULL};
  EXPECT(s, api->rng_device_state(s, &d), SG_OK, NULL);
  ck_assert_ptr_eq(d.seed, SG_RNG_PLACEHOLDER_SEED);
  ck_assert_ptr_eq(d.base_offset, SG_RNG_PLACEHOLDER_BASE_OFFSET);
  ck_assert_ptr_nonnull(d.seed);
  ck_assert_ptr_ne(d.seed, d.base_offset);
  const uintptr_t addrs[2] = {(uintptr_t)d.seed, (uintptr_t)d.base_offset};
  for (int i = 0; i < 2; i++) {
    ck_assert_uint_eq(addrs[i] % _Alignof(uint64_t), 0);
    /* Non-canonical on x86-64 and past any GPU's virtual addresses. */
    ck_assert_uint_ge(addrs[i] >> 56, 0x80);
    ck_assert_uint_ne(addrs[i] >> 56, 0xff);
  }
  api->session_destroy(s);
}
END_TEST

START_TEST(end_step_advances_the_host_state_and_restarts_offsets) {
  sg_session_config cfg = validation_config();
  cfg.rng_seed = 1234;
  sg_session *s = open_config(&cfg);
  sg_rng_state r = state_of(s);
  ck_assert_uint_eq(r.seed, 1234);
  ck_assert_uint_eq(r.offset, 0);
  ck_assert_uint_eq(reserve(s, 10), 0);
  ck_assert_uint_eq(reserve(s, 5), 10);
  EXPECT(s, api->rng_end_step(s, FAKE_STREAM), SG_OK, NULL);
  ck_assert_uint_eq(state_of(s).offset, 15);
  ck_assert_uint_eq(reserve(s, 1), 0); /* the offsets restart */
  EXPECT(s, api->rng_end_step(s, FAKE_STREAM), SG_OK, NULL);
  ck_assert_uint_eq(state_of(s).offset, 16);
  api->session_destroy(s);
}
END_TEST

START_TEST(set_state_is_what_get_state_reads) {
  sg_session *s = open_validation();
  sg_rng_state in = {sizeof in, 77, UINT64_MAX - 1};
  EXPECT(s, api->rng_set_state(s, FAKE_STREAM, &in), SG_OK, NULL);
  sg_rng_state r = state_of(s);
  ck_assert_uint_eq(r.seed, 77);
  ck_assert_uint_eq(r.offset, UINT64_MAX - 1);
  (void)reserve(s, 3);
  EXPECT(s, api->rng_end_step(s, FAKE_STREAM), SG_OK, NULL);
  ck_assert_uint_eq(state_of(s).offset, 1); /* wraps as the kernel does */
  api->session_destroy(s);
}
END_TEST

START_TEST(checkpoint_entries_still_check_their_stream) {
  sg_session *s = open_validation();
  sg_rng_state r = {sizeof r, 0, 0};
  EXPECT(s, api->rng_get_state(s, NULL, &r), SG_ERR_INVALID_ARGUMENT,
         "rng_get_state: stream is the legacy default stream");
  EXPECT(s, api->rng_set_state(s, NULL, &r), SG_ERR_INVALID_ARGUMENT,
         "rng_set_state: stream is the legacy default stream");
  api->session_destroy(s);
}
END_TEST

Suite *rng_validation_suite(void) {
  Suite *s = suite_create("rng_validation");
  TCase *t = tcase_create("RNG without a device");
  tcase_add_test(t, device_state_is_the_documented_placeholders);
  tcase_add_test(t, end_step_advances_the_host_state_and_restarts_offsets);
  tcase_add_test(t, set_state_is_what_get_state_reads);
  tcase_add_test(t, checkpoint_entries_still_check_their_stream);
  suite_add_tcase(s, t);
  return s;
}

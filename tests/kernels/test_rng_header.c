/* abi/stepgraph_rng.cuh on the CPU (no GPU needed): its Philox4x32-10
 * against Random123's known-answer vectors, how a reservation maps onto
 * Philox's key and counter, the per-launch seeds, the uniform. These host
 * values are the reference the GPU test holds the device code to. */
#include <check.h>
#include <stdint.h>

#include "sg_run_suite.h"
#include "stepgraph_rng.cuh"

/* Random123's kat_vectors for philox4x32 10: counter words, key words,
 * output words. */
typedef struct kat {
  uint32_t ctr[4], key[2], out[4];
} kat;

static const kat kats[] = {
    {{0, 0, 0, 0}, {0, 0}, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
    {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
     {0xffffffff, 0xffffffff},
     {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
    {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
     {0xa4093822, 0x299f31d0},
     {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
};

static uint64_t words(uint32_t lo, uint32_t hi) {
  return ((uint64_t)hi << 32) | lo;
}

static void expect_words(uint4 got, const uint32_t want[4]) {
  ck_assert_uint_eq(got.x, want[0]);
  ck_assert_uint_eq(got.y, want[1]);
  ck_assert_uint_eq(got.z, want[2]);
  ck_assert_uint_eq(got.w, want[3]);
}

START_TEST(philox_matches_random123) {
  const kat *k = &kats[_i];
  expect_words(sg_rng_philox(words(k->key[0], k->key[1]),
                             words(k->ctr[0], k->ctr[1]),
                             words(k->ctr[2], k->ctr[3])),
               k->out);
}
END_TEST

/* The reservation's seed is the key, base + offset + i the low counter
 * half, the subsequence the high half. */
START_TEST(draw_maps_seed_counter_and_subsequence) {
  const kat *k = &kats[2];
  const uint64_t seed = words(k->key[0], k->key[1]);
  const uint64_t counter = words(k->ctr[0], k->ctr[1]);
  const uint64_t base = counter - 1000;
  sg_rng_reservation r = {&seed, &base, 990};
  expect_words(sg_rng_draw(r, 10, words(k->ctr[2], k->ctr[3])), k->out);
}
END_TEST

START_TEST(counter_wraps_like_the_base_offset) {
  const uint64_t seed = 1, base = UINT64_MAX - 1;
  sg_rng_reservation r = {&seed, &base, 1};
  ck_assert_uint_eq(sg_rng_counter(r, 0), UINT64_MAX);
  ck_assert_uint_eq(sg_rng_counter(r, 1), 0);
  ck_assert_uint_eq(sg_rng_counter(r, 5), 4);
}
END_TEST

START_TEST(seeds_are_draw_zero_of_subsequence_zero) {
  const uint64_t seed = 0, base = 0;
  sg_rng_reservation r = {&seed, &base, 0};
  ck_assert_uint_eq(sg_rng_seed64(r), 0xe169c58d6627e8d5ull);
  ck_assert_uint_eq(sg_rng_seed32(r), 0x6627e8d5u);
}
END_TEST

static int seen(const uint64_t *v, int n, uint64_t x) {
  for (int i = 0; i < n; i++) {
    if (v[i] == x) {
      return 1;
    }
  }
  return 0;
}

/* What reserving 1 counter per kernel promises: a different seed for each
 * kernel of a step (offsets 0..7) and for each step (the base advanced by
 * the step's total, 8). */
START_TEST(one_counter_gives_a_fresh_seed_per_kernel_and_step) {
  enum { KERNELS = 8, STEPS = 64 };
  static uint64_t got[KERNELS * STEPS];
  const uint64_t seed = 20240611;
  int n = 0;
  for (uint64_t step = 0; step < STEPS; step++) {
    const uint64_t base = step * KERNELS;
    for (uint64_t k = 0; k < KERNELS; k++) {
      sg_rng_reservation r = {&seed, &base, k};
      const uint64_t s = sg_rng_seed64(r);
      ck_assert_msg(!seen(got, n, s), "step %llu kernel %llu repeats a seed",
                    (unsigned long long)step, (unsigned long long)k);
      got[n++] = s;
    }
  }
}
END_TEST

START_TEST(uniform_is_in_zero_one) {
  ck_assert_float_eq(sg_rng_uniform(0), 0.0f);
  ck_assert_float_eq(sg_rng_uniform(0x80000000u), 0.5f);
  ck_assert_float_eq(sg_rng_uniform(0xffffffffu), 1.0f - 1.0f / 16777216.0f);
  ck_assert_float_lt(sg_rng_uniform(0xffffffffu), 1.0f);
}
END_TEST

static Suite *rng_header_suite(void) {
  Suite *s = suite_create("stepgraph_rng.cuh on the CPU");
  TCase *t = tcase_create("values");
  tcase_add_loop_test(t, philox_matches_random123, 0,
                      (int)(sizeof kats / sizeof kats[0]));
  tcase_add_test(t, draw_maps_seed_counter_and_subsequence);
  tcase_add_test(t, counter_wraps_like_the_base_offset);
  tcase_add_test(t, seeds_are_draw_zero_of_subsequence_zero);
  tcase_add_test(t, one_counter_gives_a_fresh_seed_per_kernel_and_step);
  tcase_add_test(t, uniform_is_in_zero_one);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return sg_run_suite(rng_header_suite(), CK_FORK); }

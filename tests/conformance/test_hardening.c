/* Regressions for the contract breaches a fuzzer found (issue 10): each
 * case failed against the plugin as it was before its fix.
 *   - a cast range without a master reached the table build (SG_ERR_CUDA
 *     from a validation-only session) instead of the plugin's own checks;
 *   - ranges at the top of the address space wrapped, hiding overlaps;
 *   - last_error's own failure logged outside the session's lock, so the
 *     log callback ran concurrently for one session;
 *   - a huge count sized an allocation before the capacity was checked. */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#include "conformance.h"

/* The last 4-byte-aligned float of the address space: [top, top + 4)
 * ends exactly where uintptr_t wraps. */
#define TOP_FLOAT ((float *)(UINTPTR_MAX - 3))

static uint64_t registered(sg_session *s) {
  sg_stats st = {.struct_size = sizeof st};
  ck_assert_int_eq(api->get_stats(s, &st), SG_OK);
  return st.fp8_params;
}

static sg_fp8_param_desc transpose_only(uint32_t k) {
  sg_fp8_param_desc d = fp8_desc(k, 4, 4);
  d.master_dtype = SG_DTYPE_NONE;
  d.master = NULL;
  d.scale = NULL;
  d.scale_inv = NULL;
  d.amax = NULL;
  return d;
}

/* --- A cast range (or a cast pointer) without a master ------------------ */

static void range_begin(sg_fp8_param_desc *d) { d->range_begin = 1; }
static void range_end(sg_fp8_param_desc *d) { d->range_end = 3; }
static void master(sg_fp8_param_desc *d) { d->master = FAKE_DEVICE(0x400000); }
static void scale(sg_fp8_param_desc *d) { d->scale = FAKE_DEVICE(0xF00000); }
static void amax(sg_fp8_param_desc *d) { d->amax = FAKE_DEVICE(0xF00020); }

static const struct {
  void (*edit)(sg_fp8_param_desc *d);
  const char *needle;
} masterless_cases[] = {
    {range_begin, "params[0].range_begin"}, /* was SG_ERR_CUDA */
    {range_end, "params[0].range_end"},
    {master, "params[0].master"},
    {scale, "params[0].scale"},
    {amax, "params[0].amax"},
};

START_TEST(cast_fields_without_a_master_are_refused_by_name) {
  sg_session *s = open_validation();
  sg_fp8_param_desc d = transpose_only(0);
  masterless_cases[_i].edit(&d);
  EXPECT(s, api->register_fp8_params(s, &d, 1, NULL), SG_ERR_INVALID_ARGUMENT,
         masterless_cases[_i].needle);
  ck_assert_uint_eq(registered(s), 0);
  /* The refused descriptor left nothing behind: the clean one registers. */
  d = transpose_only(0);
  EXPECT(s, api->register_fp8_params(s, &d, 1, NULL), SG_OK, NULL);
  api->session_destroy(s);
}
END_TEST

/* --- Ranges at the top of the address space ------------------------------ */

START_TEST(scalars_at_the_top_of_the_address_space_are_refused) {
  sg_session *s = open_validation();
  sg_fp8_param_desc d = fp8_desc(0, 4, 4);
  d.scale = d.scale_inv = d.amax = TOP_FLOAT; /* was accepted */
  EXPECT(s, api->register_fp8_params(s, &d, 1, NULL), SG_ERR_INVALID_ARGUMENT,
         "params[0].scale");
  d = fp8_desc(0, 4, 4);
  d.amax = TOP_FLOAT; /* alone: no overlap, but its end wraps */
  EXPECT(s, api->register_fp8_params(s, &d, 1, NULL), SG_ERR_INVALID_ARGUMENT,
         "params[0].amax");
  ck_assert_uint_eq(registered(s), 0);
  api->session_destroy(s);
}
END_TEST

/* Just below the top, ends are representable and overlaps are found, also
 * against an earlier registration. */
START_TEST(overlaps_just_below_the_top_are_found) {
  sg_session *s = open_validation();
  sg_fp8_param_desc a = fp8_desc(0, 4, 4), b = fp8_desc(1, 4, 4);
  a.amax = TOP_FLOAT - 1;
  EXPECT(s, api->register_fp8_params(s, &a, 1, NULL), SG_OK, NULL);
  b.scale_inv = TOP_FLOAT - 1;
  EXPECT(s, api->register_fp8_params(s, &b, 1, NULL), SG_ERR_INVALID_ARGUMENT,
         "params[0].scale_inv overlaps registered param 0's amax");
  ck_assert_uint_eq(registered(s), 1);
  api->session_destroy(s);
}
END_TEST

START_TEST(matrices_and_buffers_that_wrap_are_refused) {
  sg_session *s = open_validation();
  sg_fp8_param_desc d = fp8_desc(0, 4, 4);
  d.transpose = (void *)(UINTPTR_MAX - 7); /* 16 bytes from 8 before the top */
  EXPECT(s, api->register_fp8_params(s, &d, 1, NULL), SG_ERR_INVALID_ARGUMENT,
         "params[0].transpose");
  sg_static_buffer_desc b = {sizeof b, (void *)(UINTPTR_MAX - 7), 16};
  EXPECT(s, api->register_static_buffers(s, &b, 1, NULL),
         SG_ERR_INVALID_ARGUMENT, "buffers[0].bytes");
  api->session_destroy(s);
}
END_TEST

/* --- The log callback is never concurrent for one session --------------- */

enum { RACE_THREADS = 4, RACE_CALLS = 400 };

typedef struct overlap_probe {
  atomic_int inside;   /* callbacks running now */
  atomic_int overlaps; /* times one began while another ran */
  atomic_int calls;
  atomic_int wrong;    /* entries that did not fail as they should */
} overlap_probe;

static void probing_log(void *user, int32_t level, const char *message) {
  (void)level;
  (void)message;
  overlap_probe *p = user;
  if (atomic_fetch_add(&p->inside, 1) != 0) {
    atomic_fetch_add(&p->overlaps, 1);
  }
  atomic_fetch_add(&p->calls, 1);
  /* Stay a moment so that a second, unserialised caller would meet us. */
  const struct timespec pause = {0, 20000};
  nanosleep(&pause, NULL);
  atomic_fetch_sub(&p->inside, 1);
}

typedef struct racer {
  sg_session *s;
  overlap_probe *probe;
  int index;
} racer;

/* Half the threads fail last_error itself (buf NULL, buf_size 4), which
 * runs outside the session's lock and so must not log at all; the others
 * fail an ordinary entry, which logs at SG_LOG_ERROR under the lock.
 * (No Check assertions off the main thread: counted, asserted after.) */
static void *race(void *arg) {
  const racer *r = arg;
  for (int i = 0; i < RACE_CALLS; i++) {
    sg_status st = r->index % 2 == 0 ? api->last_error(r->s, NULL, 4, NULL)
                                     : api->pre_capture(r->s, NULL);
    if (st != SG_ERR_INVALID_ARGUMENT) {
      atomic_fetch_add(&r->probe->wrong, 1);
    }
  }
  return NULL;
}

START_TEST(log_callback_never_runs_concurrently_for_one_session) {
  overlap_probe probe = {0};
  sg_session_config cfg = validation_config();
  cfg.log_level = SG_LOG_ERROR;
  cfg.log_fn = probing_log;
  cfg.log_user = &probe;
  sg_session *s = NULL;
  ck_assert_int_eq(api->session_create(&cfg, &s), SG_OK);
  pthread_t threads[RACE_THREADS];
  racer racers[RACE_THREADS];
  for (int t = 0; t < RACE_THREADS; t++) {
    racers[t] = (racer){s, &probe, t};
    ck_assert_int_eq(pthread_create(&threads[t], NULL, race, &racers[t]), 0);
  }
  for (int t = 0; t < RACE_THREADS; t++) {
    pthread_join(threads[t], NULL);
  }
  api->session_destroy(s);
  ck_assert_int_eq(atomic_load(&probe.wrong), 0);
  /* Only the ordinary entries' failures were logged. */
  ck_assert_int_eq(atomic_load(&probe.calls), RACE_THREADS / 2 * RACE_CALLS);
  ck_assert_msg(atomic_load(&probe.overlaps) == 0,
                "log_fn ran concurrently %d times for one session",
                atomic_load(&probe.overlaps));
}
END_TEST

/* --- Capacity before allocation ------------------------------------------ */

static sg_session *open_with_capacity(uint32_t capacity) {
  sg_session_config cfg = validation_config();
  cfg.param_capacity = capacity;
  cfg.static_capacity = capacity;
  sg_session *s = NULL;
  ck_assert_int_eq(api->session_create(&cfg, &s), SG_OK);
  return s;
}

/* The array really holds one element: a plugin that read (or allocated)
 * for UINT32_MAX before checking the capacity would fail or crash. */
START_TEST(huge_count_is_a_capacity_error_before_any_allocation) {
  sg_session *s = open_with_capacity(4);
  sg_fp8_param_desc d = fp8_desc(0, 4, 4);
  EXPECT(s, api->register_fp8_params(s, &d, UINT32_MAX, NULL), SG_ERR_CAPACITY,
         "param_capacity 4");
  sg_static_buffer_desc b = {sizeof b, FAKE_DEVICE(0), 64};
  EXPECT(s, api->register_static_buffers(s, &b, UINT32_MAX, NULL),
         SG_ERR_CAPACITY, "static_capacity 4");
  /* After one registration the room left is what counts. */
  EXPECT(s, api->register_fp8_params(s, &d, 1, NULL), SG_OK, NULL);
  EXPECT(s, api->register_fp8_params(s, &d, UINT32_MAX - 1, NULL),
         SG_ERR_CAPACITY, "1 registered + 4294967294 new");
  ck_assert_uint_eq(registered(s), 1);
  api->session_destroy(s);
}
END_TEST

Suite *hardening_suite(void) {
  Suite *s = suite_create("hardening");
  TCase *t = tcase_create("found by fuzzing");
  const int masterless = sizeof masterless_cases / sizeof *masterless_cases;
  tcase_add_loop_test(t, cast_fields_without_a_master_are_refused_by_name, 0,
                      masterless);
  tcase_add_test(t, scalars_at_the_top_of_the_address_space_are_refused);
  tcase_add_test(t, overlaps_just_below_the_top_are_found);
  tcase_add_test(t, matrices_and_buffers_that_wrap_are_refused);
  tcase_add_test(t, log_callback_never_runs_concurrently_for_one_session);
  tcase_add_test(t, huge_count_is_a_capacity_error_before_any_allocation);
  suite_add_tcase(s, t);
  return s;
}

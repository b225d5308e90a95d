/* Static sources from host memory (SG_REPLAY_HOST_SOURCES,
 * SG_STEP_HOST_SOURCES): a step whose per-step scalars (8 bytes) and
 * tokens (1 MiB) come from page-locked host slots, one slot per step in
 * flight, through the step driver (every phase), the manual path that
 * step_plan steers, and an eager-only key; the copy is ordered on the
 * stream with no host synchronisation and reads the host memory when it
 * runs; pageable memory is refused before anything is copied or launched;
 * memory page-locked by cudaHostRegister and device sources mixed in are
 * accepted. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include "gpu_common.h"
#include "host_kernels.h"

#define WORDS (256u * 1024u) /* 1 MiB of tokens */
#define STEPS 12u
#define WARMUP 2u

typedef struct fixture {
  sg_session *s;
  cudaStream_t st;
  hk_scalars *scalars; /* static buffer 0 */
  uint32_t *tokens;    /* static buffer 1 */
  unsigned long long *sum;
  hk_record *records;
  uint32_t *counter;
  hk_scalars *host_scalars; /* page-locked, one slot per step */
  uint32_t *host_tokens;    /* page-locked, WORDS per step */
  const void *sources[STEPS][2];
} fixture;

/* The inputs of step k, as a host's data loader and schedule make them. */
static hk_scalars scalars_of(uint32_t k) {
  hk_scalars v = {0.5f / (float)(k + 1), 1000 + k};
  return v;
}
static uint32_t token_of(uint32_t k, uint32_t j) {
  return (k + 1) * 2654435761u ^ (j * 40503u);
}
static unsigned long long checksum_of(uint32_t k) {
  unsigned long long sum = 0;
  for (uint32_t j = 0; j < WORDS; j++) {
    sum += token_of(k, j);
  }
  return sum;
}

static void fill_slots(fixture *f) {
  for (uint32_t k = 0; k < STEPS; k++) {
    f->host_scalars[k] = scalars_of(k);
    for (uint32_t j = 0; j < WORDS; j++) {
      f->host_tokens[(size_t)k * WORDS + j] = token_of(k, j);
    }
    f->sources[k][0] = &f->host_scalars[k];
    f->sources[k][1] = &f->host_tokens[(size_t)k * WORDS];
  }
}

static void open_fixture(fixture *f, uint32_t warmup) {
  memset(f, 0, sizeof *f);
  sg_session_config cfg = gt_config();
  cfg.warmup_steps = warmup;
  f->s = gt_session(&cfg);
  f->st = gt_stream(1);
  SG_CHECK_CUDA(cudaMalloc((void **)&f->scalars, sizeof *f->scalars));
  SG_CHECK_CUDA(cudaMalloc((void **)&f->tokens, WORDS * sizeof(uint32_t)));
  SG_CHECK_CUDA(cudaMalloc((void **)&f->sum, sizeof *f->sum));
  SG_CHECK_CUDA(cudaMalloc((void **)&f->records, STEPS * sizeof(hk_record)));
  SG_CHECK_CUDA(cudaMalloc((void **)&f->counter, sizeof *f->counter));
  SG_CHECK_CUDA(cudaMemset(f->sum, 0, sizeof *f->sum));
  SG_CHECK_CUDA(cudaMemset(f->records, 0, STEPS * sizeof(hk_record)));
  SG_CHECK_CUDA(cudaMemset(f->counter, 0, sizeof *f->counter));
  SG_CHECK_CUDA(cudaMallocHost((void **)&f->host_scalars,
                              STEPS * sizeof(hk_scalars)));
  SG_CHECK_CUDA(cudaMallocHost((void **)&f->host_tokens,
                              (size_t)STEPS * WORDS * sizeof(uint32_t)));
  fill_slots(f);
  sg_static_buffer_desc d[2] = {
      {sizeof d[0], f->scalars, sizeof(hk_scalars)},
      {sizeof d[0], f->tokens, WORDS * sizeof(uint32_t)}};
  GT_OK(f->s, gt_api->register_static_buffers(f->s, d, 2, NULL));
}

static void close_fixture(fixture *f) {
  SG_CHECK_CUDA(cudaStreamSynchronize(f->st));
  gt_api->session_destroy(f->s);
  void *dev[] = {f->scalars, f->tokens, f->sum, f->records, f->counter};
  for (size_t i = 0; i < sizeof dev / sizeof dev[0]; i++) {
    SG_CHECK_CUDA(cudaFree(dev[i]));
  }
  SG_CHECK_CUDA(cudaFreeHost(f->host_scalars));
  SG_CHECK_CUDA(cudaFreeHost(f->host_tokens));
  SG_CHECK_CUDA(cudaStreamDestroy(f->st));
}

/* The step: reads both static buffers, records what it saw. */
static void enqueue_step(const fixture *f, cudaStream_t st) {
  SG_CHECK_CUDA(hk_checksum(f->tokens, WORDS, f->sum, st));
  SG_CHECK_CUDA(hk_record_step(f->scalars, f->sum, f->records, f->counter, STEPS,
                         st));
}

static sg_status step_fn(void *user, sg_stream stream,
                         const sg_step_context *ctx) {
  (void)ctx;
  enqueue_step(user, (cudaStream_t)stream);
  return SG_OK;
}

/* Every step k saw step k's host inputs. */
static void expect_records(fixture *f, uint32_t steps) {
  hk_record got[STEPS];
  uint32_t counter = 0;
  SG_CHECK_CUDA(cudaStreamSynchronize(f->st));
  SG_CHECK_CUDA(cudaMemcpy(got, f->records, sizeof got, cudaMemcpyDeviceToHost));
  SG_CHECK_CUDA(cudaMemcpy(&counter, f->counter, sizeof counter,
                          cudaMemcpyDeviceToHost));
  ck_assert_uint_eq(counter, steps);
  for (uint32_t k = 0; k < steps; k++) {
    const hk_scalars want = scalars_of(k);
    ck_assert_msg(got[k].lr == want.lr && got[k].step == want.step,
                  "step %u saw lr %g step %u, expected %g %u", k,
                  (double)got[k].lr, got[k].step, (double)want.lr, want.step);
    ck_assert_msg(got[k].checksum == checksum_of(k),
                  "step %u saw token checksum %llu, expected %llu", k,
                  got[k].checksum, checksum_of(k));
  }
}

static sg_replay_args replay_with(const fixture *f, uint32_t k) {
  sg_replay_args a = gt_replay_args(1, f->st);
  a.static_sources = f->sources[k];
  a.static_source_count = 2;
  a.flags = SG_REPLAY_HOST_SOURCES;
  return a;
}

/* A driver step of key 1 with the two sources, as host memory. */
static sg_step_args step_with(fixture *f, const void *const *sources) {
  sg_step_args a = {.struct_size = sizeof a, .key = 1,
                    .stream = (sg_stream)f->st, .fn = step_fn, .user = f,
                    .static_sources = sources, .static_source_count = 2,
                    .flags = SG_STEP_HOST_SOURCES};
  return a;
}

START_TEST(driver_copies_host_sources_in_every_phase) {
  fixture f;
  open_fixture(&f, WARMUP);
  SG_CHECK_CUDA(hk_preload());
  for (uint32_t k = 0; k < STEPS; k++) {
    sg_step_args a = step_with(&f, f.sources[k]);
    GT_OK(f.s, gt_api->step(f.s, &a));
    const uint32_t want = k < WARMUP    ? SG_STEP_WARMUP
                          : k == WARMUP ? SG_STEP_CAPTURED
                                        : SG_STEP_REPLAYED;
    ck_assert_uint_eq(a.outcome_out, want);
  }
  expect_records(&f, STEPS);
  ck_assert_uint_eq(gt_stats(f.s).replays, STEPS - WARMUP);
  close_fixture(&f);
}
END_TEST

/* Warm-up steps on the manual path fill the static buffers themselves. */
static void eager_with_copies(fixture *f, uint32_t k) {
  SG_CHECK_CUDA(cudaMemcpyAsync(f->scalars, f->sources[k][0],
                               sizeof(hk_scalars), cudaMemcpyHostToDevice,
                               f->st));
  SG_CHECK_CUDA(cudaMemcpyAsync(f->tokens, f->sources[k][1],
                               WORDS * sizeof(uint32_t),
                               cudaMemcpyHostToDevice, f->st));
  enqueue_step(f, f->st);
}

static void capture_step(fixture *f, uint32_t pre_capture) {
  if (pre_capture) {
    GT_OK(f->s, gt_api->pre_capture(f->s, (sg_stream)f->st));
  }
  sg_capture_args ca = gt_capture_args(1, f->st, SG_CAPTURE_THREAD_LOCAL);
  GT_OK(f->s, gt_api->capture_begin(f->s, &ca));
  enqueue_step(f, f->st);
  GT_OK(f->s, gt_api->capture_end(f->s, &ca));
}

/* A session whose key 1 holds the captured step (not run yet), with the
 * static scalars set to a sentinel. */
static const hk_scalars sentinel = {-1.0f, 7};

static void open_captured(fixture *f) {
  open_fixture(f, 0);
  SG_CHECK_CUDA(hk_preload());
  capture_step(f, 1);
  SG_CHECK_CUDA(cudaMemcpy(f->scalars, &sentinel, sizeof sentinel,
                          cudaMemcpyHostToDevice));
}

START_TEST(manual_path_steered_by_step_plan) {
  fixture f;
  open_fixture(&f, WARMUP);
  SG_CHECK_CUDA(hk_preload());
  uint32_t actions[STEPS];
  for (uint32_t k = 0; k < STEPS; k++) {
    sg_step_plan p = {.struct_size = sizeof p, .key = 1};
    GT_OK(f.s, gt_api->step_plan(f.s, &p));
    ck_assert_uint_eq(p.step_index_out, k);
    actions[k] = p.action_out;
    if (p.action_out == SG_ACTION_WARMUP) {
      eager_with_copies(&f, k);
      continue;
    }
    if (p.action_out == SG_ACTION_CAPTURE) {
      capture_step(&f, p.pre_capture_out);
    }
    sg_replay_args ra = replay_with(&f, k);
    GT_OK(f.s, gt_api->replay(f.s, &ra));
  }
  for (uint32_t k = 0; k < STEPS; k++) {
    const uint32_t want = k < WARMUP    ? SG_ACTION_WARMUP
                          : k == WARMUP ? SG_ACTION_CAPTURE
                                        : SG_ACTION_REPLAY;
    ck_assert_uint_eq(actions[k], want);
  }
  expect_records(&f, STEPS);
  close_fixture(&f);
}
END_TEST

START_TEST(eager_only_key_gets_its_sources_too) {
  setenv("STEPGRAPH_DISABLE", "1", 1);
  fixture f;
  open_fixture(&f, 0);
  unsetenv("STEPGRAPH_DISABLE"); /* read when the session was created */
  for (uint32_t k = 0; k < STEPS; k++) {
    sg_step_plan p = {.struct_size = sizeof p, .key = 1};
    GT_OK(f.s, gt_api->step_plan(f.s, &p));
    ck_assert_uint_eq(p.action_out, SG_ACTION_EAGER);
    sg_replay_args ra = replay_with(&f, k);
    GT_EXPECT(f.s, gt_api->replay(f.s, &ra), SG_RUN_EAGERLY);
    enqueue_step(&f, f.st);
  }
  expect_records(&f, STEPS);
  ck_assert_uint_eq(gt_stats(f.s).replays, 0);
  close_fixture(&f);
}
END_TEST

/* --- Ordering: on the stream, no host synchronisation ---------------------- */

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void *release_later(void *flag) {
  sleep(2);
  *(volatile int *)flag = 1;
  return NULL;
}

/* The static scalars as they are now, read on another stream. */
static hk_scalars peek_scalars(const fixture *f, cudaStream_t side) {
  hk_scalars v;
  SG_CHECK_CUDA(cudaMemcpyAsync(&v, f->scalars, sizeof v,
                               cudaMemcpyDeviceToHost, side));
  SG_CHECK_CUDA(cudaStreamSynchronize(side));
  return v;
}

START_TEST(copy_is_ordered_and_reads_the_host_memory_when_it_runs) {
  fixture f;
  open_captured(&f);
  cudaStream_t side = gt_stream(1);
  volatile int *flag = NULL;
  SG_CHECK_CUDA(cudaMallocHost((void **)&flag, sizeof *flag));
  *flag = 0;
  SG_CHECK_CUDA(hk_wait_flag(flag, f.st)); /* the stream waits for us */
  pthread_t watchdog;
  ck_assert_int_eq(pthread_create(&watchdog, NULL, release_later,
                                  (void *)flag), 0);

  sg_replay_args ra = replay_with(&f, 0);
  const double t0 = now_s();
  GT_OK(f.s, gt_api->replay(f.s, &ra));
  const double took = now_s() - t0;
  ck_assert_msg(took < 1.0, "replay waited %.3f s for the stream", took);
  ck_assert_msg(*flag == 0, "the stream was released before the check");
  const hk_scalars before = peek_scalars(&f, side);
  ck_assert_float_eq(before.lr, sentinel.lr); /* not copied yet */
  /* The copy reads the slot when it runs: this value is what lands. */
  f.host_scalars[0] = scalars_of(0);
  f.host_scalars[0].step = 4242;

  ck_assert_int_eq(pthread_join(watchdog, NULL), 0);
  SG_CHECK_CUDA(cudaStreamSynchronize(f.st));
  const hk_scalars after = peek_scalars(&f, side);
  ck_assert_uint_eq(after.step, 4242);
  hk_record rec;
  SG_CHECK_CUDA(cudaMemcpy(&rec, f.records, sizeof rec, cudaMemcpyDeviceToHost));
  ck_assert_uint_eq(rec.step, 4242); /* the graph ran after the copy */
  ck_assert_uint_eq(rec.checksum, checksum_of(0));
  printf("test_host_sources: replay behind a held stream returned in %.1f us; "
         "the copy ran after the release\n", took * 1e6);
  SG_CHECK_CUDA(cudaFreeHost((void *)flag));
  SG_CHECK_CUDA(cudaStreamDestroy(side));
  close_fixture(&f);
}
END_TEST

/* --- Kinds of memory --------------------------------------------------------- */

START_TEST(pageable_memory_is_refused_before_anything_runs) {
  fixture f;
  open_captured(&f);
  uint32_t *pageable = malloc(WORDS * sizeof(uint32_t));
  ck_assert_ptr_nonnull(pageable);
  const void *sources[2] = {&f.host_scalars[3], pageable};
  sg_replay_args ra = replay_with(&f, 0);
  ra.static_sources = sources;
  GT_EXPECT(f.s, gt_api->replay(f.s, &ra), SG_ERR_INVALID_ARGUMENT);
  const char *detail = sg_test_detail(gt_api, f.s);
  printf("test_host_sources: pageable source -> %s\n", detail);
  ck_assert_ptr_nonnull(strstr(detail, "args->static_sources[1]"));
  ck_assert_ptr_nonnull(strstr(detail, "pageable host memory"));
  sg_step_args a = step_with(&f, sources);
  GT_EXPECT(f.s, gt_api->step(f.s, &a), SG_ERR_INVALID_ARGUMENT);
  ck_assert_ptr_nonnull(strstr(sg_test_detail(gt_api, f.s),
                               "step: args->static_sources[1]"));
  /* Source 0 was fine, yet nothing was copied, launched or run. */
  SG_CHECK_CUDA(cudaStreamSynchronize(f.st));
  hk_scalars now;
  SG_CHECK_CUDA(cudaMemcpy(&now, f.scalars, sizeof now, cudaMemcpyDeviceToHost));
  ck_assert_float_eq(now.lr, sentinel.lr);
  ck_assert_uint_eq(gt_stats(f.s).replays, 0);
  uint32_t counter = 99;
  SG_CHECK_CUDA(cudaMemcpy(&counter, f.counter, sizeof counter,
                          cudaMemcpyDeviceToHost));
  ck_assert_uint_eq(counter, 0);
  free(pageable);
  close_fixture(&f);
}
END_TEST

START_TEST(registered_host_memory_and_device_sources_mix) {
  fixture f;
  open_captured(&f);
  const long page = sysconf(_SC_PAGESIZE);
  void *registered = NULL;
  ck_assert_int_eq(posix_memalign(&registered, (size_t)page, (size_t)page), 0);
  SG_CHECK_CUDA(cudaHostRegister(registered, (size_t)page,
                                cudaHostRegisterDefault));
  *(hk_scalars *)registered = scalars_of(5);
  uint32_t *dev_tokens = NULL;
  SG_CHECK_CUDA(cudaMalloc((void **)&dev_tokens, WORDS * sizeof(uint32_t)));
  SG_CHECK_CUDA(cudaMemcpy(dev_tokens, f.sources[0][1], WORDS * sizeof(uint32_t),
                          cudaMemcpyHostToDevice));
  const void *sources[2] = {registered, dev_tokens};
  sg_replay_args ra = replay_with(&f, 0);
  ra.static_sources = sources;
  GT_OK(f.s, gt_api->replay(f.s, &ra));
  hk_record rec;
  SG_CHECK_CUDA(cudaStreamSynchronize(f.st));
  SG_CHECK_CUDA(cudaMemcpy(&rec, f.records, sizeof rec, cudaMemcpyDeviceToHost));
  ck_assert_uint_eq(rec.step, scalars_of(5).step);
  ck_assert_uint_eq(rec.checksum, checksum_of(0));
  SG_CHECK_CUDA(cudaHostUnregister(registered));
  free(registered);
  SG_CHECK_CUDA(cudaFree(dev_tokens));
  close_fixture(&f);
}
END_TEST

static Suite *make_suite(void) {
  Suite *suite = suite_create("host_sources");
  TCase *t = tcase_create("host sources");
  tcase_set_timeout(t, 120);
  tcase_add_test(t, driver_copies_host_sources_in_every_phase);
  tcase_add_test(t, manual_path_steered_by_step_plan);
  tcase_add_test(t, eager_only_key_gets_its_sources_too);
  tcase_add_test(t, copy_is_ordered_and_reads_the_host_memory_when_it_runs);
  tcase_add_test(t, pageable_memory_is_refused_before_anything_runs);
  tcase_add_test(t, registered_host_memory_and_device_sources_mix);
  suite_add_tcase(suite, t);
  return suite;
}

int main(void) { return gt_main("test_host_sources", make_suite); }

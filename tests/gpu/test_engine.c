/* The capture and replay engine end to end: a step of a few hundred
 * kernels (a cuBLASLt GEMM, a chain of element-wise kernels, two Philox RNG
 * kernels and a deterministic reduction) run eagerly, through
 * capture_begin/capture_end and replay, and through the step driver, with
 * bit-identical results over STEPS steps. Also: capture records without
 * running, the caller's device and capture mode are left alone, statistics,
 * graph_info and dump_graph.
 *
 * Determinism rules followed here (docs/PERFORMANCE.md and the header say
 * the same to hosts): the GEMM algorithm is chosen once, by the heuristic,
 * before any warm-up, with a fixed workspace, and passed to every
 * cublasLtMatmul; reductions use a fixed tree order, no float atomics; eager
 * and graph runs execute the same compiled kernels. */
#define _POSIX_C_SOURCE 200809L
#include <cublasLt.h>
#include <unistd.h>

#include "gpu_common.h"

#define DIM 256u                /* GEMM: [DIM x DIM] x [DIM x DIM] */
#define N (DIM * DIM)           /* elements of the state vector */
#define CHAIN 300u              /* element-wise kernels per step */
#define STEPS 120u
#define WARMUP 3u
#define WORKSPACE_BYTES (32u << 20)
#define KEY 7u

/* --- The GEMM, planned once for the whole program ------------------------- */

static cublasLtHandle_t lt;
static cublasLtMatmulDesc_t op;
static cublasLtMatrixLayout_t layout; /* every matrix: DIM x DIM, fp32 */
static cublasLtMatmulAlgo_t algo;

#define LT_CHECK(call)                                                      \
  do {                                                                      \
    cublasStatus_t lt_st_ = (call);                                         \
    if (lt_st_ != CUBLAS_STATUS_SUCCESS) {                                  \
      fprintf(stderr, "%s:%d: %s failed: %d\n", __FILE__, __LINE__, #call, \
              (int)lt_st_);                                                 \
      exit(1);                                                              \
    }                                                                       \
  } while (0)

/* Chooses the algorithm once: heuristic, fixed workspace, no reduction
 * scheme that accumulates in place (its order could vary). */
static void plan_gemm(void) {
  LT_CHECK(cublasLtCreate(&lt));
  LT_CHECK(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  LT_CHECK(cublasLtMatrixLayoutCreate(&layout, CUDA_R_32F, DIM, DIM, DIM));
  cublasLtMatmulPreference_t pref;
  LT_CHECK(cublasLtMatmulPreferenceCreate(&pref));
  uint64_t ws = WORKSPACE_BYTES;
  uint32_t schemes = CUBLASLT_REDUCTION_SCHEME_MASK &
                     ~(uint32_t)CUBLASLT_REDUCTION_SCHEME_INPLACE;
  LT_CHECK(cublasLtMatmulPreferenceSetAttribute(
      pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws));
  LT_CHECK(cublasLtMatmulPreferenceSetAttribute(
      pref, CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK, &schemes,
      sizeof schemes));
  cublasLtMatmulHeuristicResult_t result;
  int found = 0;
  LT_CHECK(cublasLtMatmulAlgoGetHeuristic(lt, op, layout, layout, layout,
                                          layout, pref, 1, &result, &found));
  if (found < 1) {
    fprintf(stderr, "cuBLASLt found no algorithm\n");
    exit(1);
  }
  algo = result.algo;
  LT_CHECK(cublasLtMatmulPreferenceDestroy(pref));
}

/* --- One run: its buffers, its session ------------------------------------ */

typedef struct run {
  sg_session *s;
  cudaStream_t stream;
  const uint64_t *seed, *base_offset; /* the session's RNG state (device) */
  float *v, *w, *c, *u1, *u2, *partials, *norm, *hist_norm, *hist_u;
  uint32_t *counter;
  void *workspace;
  uint32_t calls[3]; /* callback calls per sg_step_phase */
  sg_status fn_error;
} run;

typedef struct results {
  float hist_norm[STEPS];
  float hist_u[4 * STEPS];
  float v[N];
  uint32_t counter;
  uint64_t rng_offset;
} results;

/* The same pseudo-random start for every run (never zeros). */
static void fill_start(float *host, uint32_t n, uint32_t salt) {
  uint32_t x = 2463534242u ^ salt;
  for (uint32_t i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    host[i] = (float)(x >> 8) / 16777216.0f - 0.5f;
  }
}

static void open_run(run *r, const sg_session_config *cfg) {
  memset(r, 0, sizeof *r);
  r->s = gt_session(cfg);
  r->stream = gt_stream(1);
  sg_rng_device_state rng = {sizeof rng, NULL, NULL};
  GT_OK(r->s, gt_api->rng_device_state(r->s, &rng));
  r->seed = rng.seed;
  r->base_offset = rng.base_offset;
  float **bufs[] = {&r->v, &r->w, &r->c, &r->u1, &r->u2};
  for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) {
    SG_CHECK_CUDA(cudaMalloc((void **)bufs[i], N * sizeof(float)));
  }
  SG_CHECK_CUDA(cudaMalloc((void **)&r->partials, TK_PARTIALS * sizeof(float)));
  SG_CHECK_CUDA(cudaMalloc((void **)&r->norm, sizeof(float)));
  SG_CHECK_CUDA(cudaMalloc((void **)&r->hist_norm, STEPS * sizeof(float)));
  SG_CHECK_CUDA(cudaMalloc((void **)&r->hist_u, 4 * STEPS * sizeof(float)));
  SG_CHECK_CUDA(cudaMalloc((void **)&r->counter, sizeof(uint32_t)));
  SG_CHECK_CUDA(cudaMalloc(&r->workspace, WORKSPACE_BYTES));
  static float host[N];
  fill_start(host, N, 1);
  SG_CHECK_CUDA(cudaMemcpy(r->v, host, sizeof host, cudaMemcpyHostToDevice));
  fill_start(host, N, 2);
  for (uint32_t i = 0; i < N; i++) {
    host[i] *= 2.0f / DIM;
  }
  SG_CHECK_CUDA(cudaMemcpy(r->w, host, sizeof host, cudaMemcpyHostToDevice));
  SG_CHECK_CUDA(cudaMemset(r->counter, 0, sizeof(uint32_t)));
  SG_CHECK_CUDA(cudaMemset(r->hist_norm, 0xff, STEPS * sizeof(float)));
  SG_CHECK_CUDA(cudaMemset(r->hist_u, 0xff, 4 * STEPS * sizeof(float)));
  SG_CHECK_CUDA(cudaDeviceSynchronize());
}

static void close_run(run *r, results *out) {
  SG_CHECK_CUDA(cudaStreamSynchronize(r->stream));
  SG_CHECK_CUDA(cudaMemcpy(out->hist_norm, r->hist_norm, sizeof out->hist_norm,
                           cudaMemcpyDeviceToHost));
  SG_CHECK_CUDA(cudaMemcpy(out->hist_u, r->hist_u, sizeof out->hist_u,
                           cudaMemcpyDeviceToHost));
  SG_CHECK_CUDA(
      cudaMemcpy(out->v, r->v, sizeof out->v, cudaMemcpyDeviceToHost));
  SG_CHECK_CUDA(cudaMemcpy(&out->counter, r->counter, sizeof out->counter,
                           cudaMemcpyDeviceToHost));
  sg_rng_state st = {sizeof st, 0, 0};
  GT_OK(r->s, gt_api->rng_get_state(r->s, (sg_stream)r->stream, &st));
  out->rng_offset = st.offset;
  ck_assert_int_eq(r->fn_error, SG_OK);
  gt_api->session_destroy(r->s);
  float *bufs[] = {r->v,        r->w,         r->c,      r->u1,
                   r->u2,       r->partials,  r->norm,   r->hist_norm,
                   r->hist_u};
  for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) {
    SG_CHECK_CUDA(cudaFree(bufs[i]));
  }
  SG_CHECK_CUDA(cudaFree(r->counter));
  SG_CHECK_CUDA(cudaFree(r->workspace));
  SG_CHECK_CUDA(cudaStreamDestroy(r->stream));
}

/* Inside the step callback a failed CUDA call ends the step with
 * SG_ERR_CUDA (the driver returns it) instead of exiting. */
#define STEP_TRY(call)                                            \
  do {                                                            \
    if (sg_cuda_failed((call), #call, __FILE__, __LINE__)) {      \
      return SG_ERR_CUDA;                                         \
    }                                                             \
  } while (0)
#define STEP_OK(call)                  \
  do {                                 \
    sg_status step_st_ = (call);       \
    if (step_st_ != SG_OK) {           \
      return step_st_;                 \
    }                                  \
  } while (0)

static sg_status enqueue_step(run *r, cudaStream_t st) {
  uint64_t off1 = 0, off2 = 0;
  STEP_OK(gt_api->rng_reserve(r->s, 4, &off1));
  STEP_TRY(tk_philox_uniform(r->u1, N, r->seed, r->base_offset, off1, st));
  const float one = 1.0f, zero = 0.0f;
  if (cublasLtMatmul(lt, op, &one, r->w, layout, r->v, layout, &zero, r->c,
                     layout, r->c, layout, &algo, r->workspace,
                     WORKSPACE_BYTES, st) != CUBLAS_STATUS_SUCCESS) {
    return SG_ERR_INTERNAL;
  }
  for (uint32_t j = 0; j < CHAIN; j++) {
    float a = 1.0f - 1e-3f * (float)(j % 7);
    float b = 1e-4f * (float)(1 + j % 5);
    STEP_TRY(tk_axpby(r->v, r->c, a, b, N, st));
  }
  STEP_TRY(tk_add_noise(r->v, r->u1, 1e-2f, N, st));
  STEP_OK(gt_api->rng_reserve(r->s, 4, &off2));
  STEP_TRY(tk_philox_uniform(r->u2, N, r->seed, r->base_offset, off2, st));
  STEP_TRY(tk_add_noise(r->v, r->u2, 1e-2f, N, st));
  STEP_TRY(tk_sumsq_partials(r->v, N, r->partials, st));
  STEP_TRY(tk_finish_norm(r->partials, r->norm, r->hist_norm, r->hist_u,
                          r->u1, r->counter, STEPS, st));
  STEP_TRY(tk_scale_by_norm(r->v, r->norm, N, st));
  return gt_api->rng_end_step(r->s, (sg_stream)st);
}

/* The step as a driver callback. */
static sg_status step_fn(void *user, sg_stream stream,
                         const sg_step_context *ctx) {
  run *r = user;
  if (ctx->phase < 3) {
    r->calls[ctx->phase]++;
  }
  sg_status st = enqueue_step(r, (cudaStream_t)stream);
  if (st != SG_OK) {
    r->fn_error = st;
  }
  return st;
}

static void eager_steps(run *r, uint32_t n) {
  for (uint32_t t = 0; t < n; t++) {
    ck_assert_int_eq(enqueue_step(r, r->stream), SG_OK);
  }
}

static results eager_ref, eager_again, manual, driven;

static void run_eagerly(results *out) {
  sg_session_config cfg = gt_config();
  run r;
  open_run(&r, &cfg);
  eager_steps(&r, STEPS);
  close_run(&r, out);
}

static void expect_identical(const results *a, const results *b,
                             const char *what) {
  ck_assert_msg(a->counter == STEPS && b->counter == STEPS,
                "%s: %u and %u steps ran, expected %u", what, a->counter,
                b->counter, STEPS);
  for (uint32_t t = 0; t < STEPS; t++) {
    ck_assert_msg(memcmp(&a->hist_norm[t], &b->hist_norm[t], 4) == 0 &&
                      memcmp(&a->hist_u[4 * t], &b->hist_u[4 * t], 16) == 0,
                  "%s: step %u differs (norm %.9g vs %.9g, u %.9g vs %.9g)",
                  what, t, a->hist_norm[t], b->hist_norm[t], a->hist_u[4 * t],
                  b->hist_u[4 * t]);
  }
  ck_assert_msg(memcmp(a->v, b->v, sizeof a->v) == 0,
                "%s: final state differs", what);
  ck_assert_uint_eq(a->rng_offset, b->rng_offset);
}

START_TEST(eager_runs_are_bit_identical) {
  run_eagerly(&eager_ref);
  run_eagerly(&eager_again);
  expect_identical(&eager_ref, &eager_again, "eager vs eager");
  /* Fresh random numbers every step; the offset advanced 8 per step. */
  for (uint32_t t = 1; t < STEPS; t++) {
    ck_assert_msg(eager_ref.hist_u[4 * t] != eager_ref.hist_u[4 * (t - 1)],
                  "step %u drew the same numbers as step %u", t, t - 1);
  }
  ck_assert_uint_eq(eager_ref.rng_offset, 8u * STEPS);
  for (uint32_t t = 0; t < STEPS; t++) {
    ck_assert(eager_ref.hist_norm[t] > 0.0f);
  }
}
END_TEST

START_TEST(replay_matches_eager_bit_for_bit) {
  sg_session_config cfg = gt_config();
  run r;
  open_run(&r, &cfg);
  eager_steps(&r, WARMUP);
  int device_before = -1, device_after = -2;
  SG_CHECK_CUDA(cudaGetDevice(&device_before));
  enum cudaStreamCaptureMode mode_before = gt_capture_mode();
  sg_capture_args ca = gt_capture_args(KEY, r.stream, SG_CAPTURE_THREAD_LOCAL);
  GT_OK(r.s, gt_api->pre_capture(r.s, (sg_stream)r.stream));
  GT_OK(r.s, gt_api->capture_begin(r.s, &ca));
  ck_assert_int_eq(gt_capture_mode(), mode_before);
  ck_assert_int_eq(enqueue_step(&r, r.stream), SG_OK);
  GT_OK(r.s, gt_api->capture_end(r.s, &ca));
  ck_assert_int_eq(gt_capture_mode(), mode_before);
  SG_CHECK_CUDA(cudaGetDevice(&device_after));
  ck_assert_int_eq(device_before, device_after);

  /* Capture records without running: still WARMUP steps done. */
  uint32_t counter = 0;
  SG_CHECK_CUDA(cudaStreamSynchronize(r.stream));
  SG_CHECK_CUDA(cudaMemcpy(&counter, r.counter, 4, cudaMemcpyDeviceToHost));
  ck_assert_uint_eq(counter, WARMUP);

  sg_replay_args ra = gt_replay_args(KEY, r.stream);
  for (uint32_t t = WARMUP; t < STEPS; t++) {
    GT_OK(r.s, gt_api->replay(r.s, &ra));
  }
  sg_stats st = gt_stats(r.s);
  ck_assert_uint_eq(st.captures, 1);
  ck_assert_uint_eq(st.capture_failures, 0);
  ck_assert_uint_eq(st.instantiations, 1);
  ck_assert_uint_eq(st.exec_updates, 0);
  ck_assert_uint_eq(st.replays, STEPS - WARMUP);
  ck_assert_uint_eq(st.graphs, 1);
  ck_assert_uint_ge(st.graph_nodes, CHAIN + 8);
  ck_assert_uint_eq(st.graph_alloc_bytes, 0);
  ck_assert(st.capture_ms > 0.0 && st.instantiate_ms > 0.0);
  sg_graph_info info;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  GT_OK(r.s, gt_api->graph_info(r.s, KEY, &info));
  ck_assert_uint_eq(info.nodes, st.graph_nodes);
  ck_assert_uint_eq(info.replays, STEPS - WARMUP);
  ck_assert_uint_eq(info.eager_only, 0);
  printf("test_engine: one step = %llu graph nodes; capture %.3f ms, "
         "instantiate+upload %.3f ms\n",
         (unsigned long long)info.nodes, st.capture_ms, st.instantiate_ms);

  char path[] = "/tmp/sg_engine_dot_XXXXXX";
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  close(fd);
  GT_OK(r.s, gt_api->dump_graph(r.s, KEY, path));
  FILE *f = fopen(path, "r");
  ck_assert_ptr_nonnull(f);
  char head[64] = "";
  size_t got = fread(head, 1, sizeof head - 1, f);
  fclose(f);
  unlink(path);
  ck_assert_msg(got > 0 && strstr(head, "digraph") != NULL,
                "dump_graph wrote no DOT: %s", head);
  GT_EXPECT(r.s, gt_api->dump_graph(r.s, KEY, "/nonexistent-dir/g.dot"),
            SG_ERR_IO);
  ck_assert_ptr_nonnull(strstr(sg_test_detail(gt_api, r.s), "nonexistent"));
  close_run(&r, &manual);
  expect_identical(&eager_ref, &manual, "eager vs replay");
}
END_TEST

START_TEST(driver_matches_eager_bit_for_bit) {
  sg_session_config cfg = gt_config();
  cfg.warmup_steps = WARMUP;
  run r;
  open_run(&r, &cfg);
  uint32_t outcomes[4] = {0, 0, 0, 0};
  for (uint32_t t = 0; t < STEPS; t++) {
    sg_step_args a;
    memset(&a, 0, sizeof a);
    a.struct_size = sizeof a;
    a.key = KEY;
    a.stream = (sg_stream)r.stream;
    a.fn = step_fn;
    a.user = &r;
    a.outcome_out = 99;
    GT_OK(r.s, gt_api->step(r.s, &a));
    ck_assert_uint_lt(a.outcome_out, 4);
    outcomes[a.outcome_out]++;
    uint32_t want = t < WARMUP    ? SG_STEP_WARMUP
                    : t == WARMUP ? SG_STEP_CAPTURED
                                  : SG_STEP_REPLAYED;
    ck_assert_uint_eq(a.outcome_out, want);
  }
  ck_assert_uint_eq(r.calls[SG_PHASE_WARMUP], WARMUP);
  ck_assert_uint_eq(r.calls[SG_PHASE_CAPTURE], 1);
  ck_assert_uint_eq(r.calls[SG_PHASE_EAGER], 0);
  sg_stats st = gt_stats(r.s);
  ck_assert_uint_eq(st.replays, STEPS - WARMUP);
  ck_assert_uint_eq(st.captures, 1);
  ck_assert_uint_eq(st.eager_runs, 0);
  close_run(&r, &driven);
  expect_identical(&eager_ref, &driven, "eager vs driver");
}
END_TEST

static Suite *make_suite(void) {
  Suite *suite = suite_create("engine");
  TCase *t = tcase_create("bit_identical");
  tcase_set_timeout(t, 600);
  tcase_add_test(t, eager_runs_are_bit_identical);
  tcase_add_test(t, replay_matches_eager_bit_for_bit);
  tcase_add_test(t, driver_matches_eager_bit_for_bit);
  suite_add_tcase(suite, t);
  return suite;
}

int main(void) {
  sg_test_require_gpu("test_engine");
  plan_gemm();
  int rc = gt_main("test_engine", make_suite);
  cublasLtMatrixLayoutDestroy(layout);
  cublasLtMatmulDescDestroy(op);
  cublasLtDestroy(lt);
  return rc;
}

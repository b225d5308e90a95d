/* The refresh hook captured in the plugin's graph: a graph that changes W
 * (transpose-only parameter) and the FP32 master (cast-transpose parameter)
 * and then calls post_optimizer_step for each group replays correctly, step
 * after step, against the CPU reference; the device no-op flag makes the
 * captured refresh skip without re-capturing. A refresh captured by the
 * host (its own stream capture) replays correctly too and closes
 * registration, which an eager refresh leaves open. */
#define _POSIX_C_SOURCE 200809L
#include "fp8_reference.h"
#include "gpu_common.h"

#define ROWS 96u
#define COLS 160u
#define ELEMS (ROWS * COLS)
#define STEPS 4

typedef struct param_bufs {
  uint8_t *w, *wt;
  float *master, *scale, *scale_inv, *amax;
} param_bufs;

static void alloc_param(param_bufs *p, int with_master) {
  memset(p, 0, sizeof *p);
  SG_CHECK_CUDA(cudaMalloc((void **)&p->w, ELEMS));
  SG_CHECK_CUDA(cudaMalloc((void **)&p->wt, ELEMS));
  if (with_master) {
    SG_CHECK_CUDA(cudaMalloc((void **)&p->master, ELEMS * sizeof(float)));
    SG_CHECK_CUDA(cudaMalloc((void **)&p->scale, sizeof(float)));
    SG_CHECK_CUDA(cudaMalloc((void **)&p->scale_inv, sizeof(float)));
    SG_CHECK_CUDA(cudaMalloc((void **)&p->amax, sizeof(float)));
  }
}

static void free_param(param_bufs *p) {
  void *all[] = {p->w, p->wt, p->master, p->scale, p->scale_inv, p->amax};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
    if (all[i] != NULL) {
      SG_CHECK_CUDA(cudaFree(all[i]));
    }
  }
}

static sg_fp8_param_desc describe(const param_bufs *p, uint32_t group) {
  sg_fp8_param_desc d;
  memset(&d, 0, sizeof d);
  d.struct_size = sizeof d;
  d.format = SG_FP8_E4M3;
  d.master_dtype = p->master != NULL ? SG_DTYPE_FP32 : SG_DTYPE_NONE;
  d.rows = ROWS;
  d.cols = COLS;
  d.data = p->w;
  d.ld_data = COLS;
  d.transpose = p->wt;
  d.ld_transpose = ROWS;
  d.master = p->master;
  d.ld_master = COLS;
  d.scale = p->scale;
  d.scale_inv = p->scale_inv;
  d.amax = p->amax;
  d.group = group;
  return d;
}

/* Host copies laid out like the device buffers, for the reference. */
typedef struct host_param {
  uint8_t w[ELEMS], wt[ELEMS];
  float master[ELEMS], scale, scale_inv, amax;
} host_param;

static sg_k_param host_view(host_param *h, int with_master) {
  sg_k_param p;
  memset(&p, 0, sizeof p);
  p.w = h->w;
  p.ld_w = COLS;
  p.wt = h->wt;
  p.ld_wt = ROWS;
  p.rows = ROWS;
  p.cols = COLS;
  p.format = SG_K_FP8_E4M3;
  p.master_dtype = with_master ? SG_K_MASTER_FP32 : SG_K_MASTER_NONE;
  if (with_master) {
    p.master = h->master;
    p.ld_master = COLS;
    p.scale = &h->scale;
    p.scale_inv = &h->scale_inv;
    p.amax = &h->amax;
  }
  return p;
}

static void read_param(host_param *h, const param_bufs *p, cudaStream_t st) {
  SG_CHECK_CUDA(cudaStreamSynchronize(st));
  SG_CHECK_CUDA(cudaMemcpy(h->w, p->w, ELEMS, cudaMemcpyDeviceToHost));
  SG_CHECK_CUDA(cudaMemcpy(h->wt, p->wt, ELEMS, cudaMemcpyDeviceToHost));
  if (p->master != NULL) {
    SG_CHECK_CUDA(cudaMemcpy(h->master, p->master, sizeof h->master,
                             cudaMemcpyDeviceToHost));
    SG_CHECK_CUDA(cudaMemcpy(&h->scale_inv, p->scale_inv, sizeof(float),
                             cudaMemcpyDeviceToHost));
    SG_CHECK_CUDA(
        cudaMemcpy(&h->amax, p->amax, sizeof(float), cudaMemcpyDeviceToHost));
  }
}

static host_param got0, got1, want0, want1;

START_TEST(captured_refresh_replays_correctly) {
  sg_session_config cfg = gt_config();
  sg_session *s = gt_session(&cfg);
  cudaStream_t st = gt_stream(1);
  param_bufs p0, p1;
  alloc_param(&p0, 0);
  alloc_param(&p1, 1);
  int32_t *noop = NULL;
  SG_CHECK_CUDA(cudaMalloc((void **)&noop, sizeof *noop));
  SG_CHECK_CUDA(cudaMemset(noop, 0, sizeof *noop));

  /* Start: random W bytes, a master in [-300, 300), scale 1.5. */
  uint32_t x = 12345u;
  for (uint32_t i = 0; i < ELEMS; i++) {
    x = x * 1664525u + 1013904223u;
    want0.w[i] = (uint8_t)(x >> 24);
    want1.master[i] = (float)(x >> 8) / 16777216.0f * 600.0f - 300.0f;
  }
  want1.scale = 1.5f;
  SG_CHECK_CUDA(cudaMemcpy(p0.w, want0.w, ELEMS, cudaMemcpyHostToDevice));
  SG_CHECK_CUDA(cudaMemcpy(p1.master, want1.master, sizeof want1.master,
                           cudaMemcpyHostToDevice));
  SG_CHECK_CUDA(cudaMemcpy(p1.scale, &want1.scale, sizeof(float),
                           cudaMemcpyHostToDevice));
  SG_CHECK_CUDA(cudaMemset(p0.wt, 0, ELEMS));

  sg_fp8_param_desc d[2] = {describe(&p0, 0), describe(&p1, 1)};
  GT_OK(s, gt_api->register_fp8_params(s, d, 2, NULL));
  GT_OK(s, gt_api->pre_capture(s, (sg_stream)st));

  /* Warm the refresh kernel up eagerly (and check it once). */
  sg_refresh_args t0 = {sizeof t0, SG_REFRESH_TRANSPOSE, 0, noop, 0, 0};
  sg_refresh_args c1 = {sizeof c1, SG_REFRESH_CAST_TRANSPOSE, 1, NULL, 0, 0};
  GT_OK(s, gt_api->post_optimizer_step(s, (sg_stream)st, &t0));
  GT_OK(s, gt_api->post_optimizer_step(s, (sg_stream)st, &c1));
  sg_k_param v0 = host_view(&want0, 0), v1 = host_view(&want1, 1);
  sg_ref_refresh(&v0, SG_K_MODE_TRANSPOSE);
  sg_ref_refresh(&v1, SG_K_MODE_CAST_TRANSPOSE);

  sg_capture_args ca = gt_capture_args(5, st, SG_CAPTURE_THREAD_LOCAL);
  GT_OK(s, gt_api->capture_begin(s, &ca));
  SG_CHECK_CUDA(tk_mix_bytes(p0.w, ELEMS, st));
  GT_OK(s, gt_api->post_optimizer_step(s, (sg_stream)st, &t0));
  SG_CHECK_CUDA(tk_scale_copy(p1.master, p1.master, -1.25f, ELEMS, st));
  GT_OK(s, gt_api->post_optimizer_step(s, (sg_stream)st, &c1));
  GT_OK(s, gt_api->capture_end(s, &ca));
  const uint64_t refreshes_before = gt_stats(s).refreshes;

  sg_replay_args ra = gt_replay_args(5, st);
  for (int step = 0; step < STEPS; step++) {
    const int32_t skip = step == 2; /* the captured transpose skips once */
    SG_CHECK_CUDA(
        cudaMemcpyAsync(noop, &skip, sizeof skip, cudaMemcpyHostToDevice, st));
    GT_OK(s, gt_api->replay(s, &ra));
    for (uint32_t i = 0; i < ELEMS; i++) {
      want0.w[i] = (uint8_t)(want0.w[i] * 5u + 3u);
      want1.master[i] = -1.25f * want1.master[i];
    }
    if (!skip) {
      sg_ref_refresh(&v0, SG_K_MODE_TRANSPOSE);
    }
    sg_ref_refresh(&v1, SG_K_MODE_CAST_TRANSPOSE);
    read_param(&got0, &p0, st);
    read_param(&got1, &p1, st);
    ck_assert_msg(memcmp(got0.w, want0.w, ELEMS) == 0, "step %d: W0", step);
    ck_assert_msg(memcmp(got0.wt, want0.wt, ELEMS) == 0, "step %d: Wt0%s",
                  step, skip ? " (refresh should have skipped)" : "");
    ck_assert_msg(memcmp(got1.w, want1.w, ELEMS) == 0, "step %d: W1", step);
    ck_assert_msg(memcmp(got1.wt, want1.wt, ELEMS) == 0, "step %d: Wt1", step);
    ck_assert_msg(memcmp(&got1.amax, &want1.amax, 4) == 0 &&
                      memcmp(&got1.scale_inv, &want1.scale_inv, 4) == 0,
                  "step %d: amax %g/%g scale_inv %g/%g", step,
                  (double)got1.amax, (double)want1.amax,
                  (double)got1.scale_inv, (double)want1.scale_inv);
  }
  /* The launches inside the graph are not counted again by replays. */
  ck_assert_uint_eq(gt_stats(s).refreshes, refreshes_before);
  gt_api->session_destroy(s);
  free_param(&p0);
  free_param(&p1);
  SG_CHECK_CUDA(cudaFree(noop));
  SG_CHECK_CUDA(cudaStreamDestroy(st));
}
END_TEST

/* Registration stays open after eager refreshes; a refresh launched into
 * the host's own capture closes it (the captured kernels were picked for
 * the parameters registered then) with SG_ERR_INVALID_STATE and a message
 * saying why, and the host's graph refreshes Wt when launched. */
START_TEST(host_captured_refresh_closes_registration) {
  sg_session_config cfg = gt_config();
  sg_session *s = gt_session(&cfg);
  cudaStream_t st = gt_stream(1);
  param_bufs p0, p1, p2;
  alloc_param(&p0, 0);
  alloc_param(&p1, 0);
  alloc_param(&p2, 0);
  uint32_t x = 777u;
  for (uint32_t i = 0; i < ELEMS; i++) {
    x = x * 1664525u + 1013904223u;
    want0.w[i] = (uint8_t)(x >> 24);
  }
  SG_CHECK_CUDA(cudaMemcpy(p0.w, want0.w, ELEMS, cudaMemcpyHostToDevice));
  sg_fp8_param_desc d[3] = {describe(&p0, 0), describe(&p1, 0), describe(&p2, 0)};
  GT_OK(s, gt_api->register_fp8_params(s, &d[0], 1, NULL));
  sg_refresh_args t = {sizeof t, SG_REFRESH_TRANSPOSE, 0, NULL, 0, 0};
  GT_OK(s, gt_api->post_optimizer_step(s, (sg_stream)st, &t));
  GT_OK(s, gt_api->register_fp8_params(s, &d[1], 1, NULL)); /* eager: still open */
  cudaGraph_t graph = NULL;
  SG_CHECK_CUDA(cudaStreamBeginCapture(st, cudaStreamCaptureModeThreadLocal));
  GT_OK(s, gt_api->post_optimizer_step(s, (sg_stream)st, &t));
  SG_CHECK_CUDA(cudaStreamEndCapture(st, &graph));
  GT_EXPECT(s, gt_api->register_fp8_params(s, &d[2], 1, NULL), SG_ERR_INVALID_STATE);
  char msg[512];
  GT_OK(s, gt_api->last_error(s, msg, sizeof msg, NULL));
  ck_assert_msg(strstr(msg, "a refresh was launched into a capture") != NULL, "message: %s", msg);
  SG_CHECK_CUDA(cudaMemset(p0.wt, 0, ELEMS));
  cudaGraphExec_t exec = NULL;
  SG_CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  SG_CHECK_CUDA(cudaGraphLaunch(exec, st));
  sg_k_param v0 = host_view(&want0, 0);
  sg_ref_refresh(&v0, SG_K_MODE_TRANSPOSE);
  read_param(&got0, &p0, st);
  ck_assert_msg(memcmp(got0.wt, want0.wt, ELEMS) == 0, "the host graph's Wt");
  SG_CHECK_CUDA(cudaGraphExecDestroy(exec));
  SG_CHECK_CUDA(cudaGraphDestroy(graph));
  gt_api->session_destroy(s);
  free_param(&p0);
  free_param(&p1);
  free_param(&p2);
  SG_CHECK_CUDA(cudaStreamDestroy(st));
}
END_TEST

static Suite *make_suite(void) {
  Suite *suite = suite_create("refresh_graph");
  TCase *t = tcase_create("refresh");
  tcase_set_timeout(t, 120);
  tcase_add_test(t, captured_refresh_replays_correctly);
  tcase_add_test(t, host_captured_refresh_closes_registration);
  suite_add_tcase(suite, t);
  return suite;
}

int main(void) { return gt_main("test_refresh_graph", make_suite); }

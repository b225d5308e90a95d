/* The FP8 recipes through the plugin, against the CPU reference: random
 * parameters of every recipe (delayed, current and 128 x 128 block scaling,
 * edge blocks, padded grids, FP32 and BF16 masters, block-scaled W without
 * a master) registered as a host would, refreshed in every mode eagerly, in
 * the plugin's own capture and in a capture owned by the host (as
 * torch.cuda.graph would), each group alone and all of them, and with the
 * device no-op flag set. The fixture (tests/kernels/refresh_fixture.h)
 * compares every byte of the arena, so untouched bytes are checked too.
 * SG_TEST_SEED fixes the random seed (printed at start). */
#define _POSIX_C_SOURCE 200809L

#include "fp8_reference.h"
#include "gpu_common.h"
#include "refresh_fixture.h"
#include "sg_test_seed.h"

enum { COUNT = 24, GROUPS = 3, BARE_GROUP = 3 };

static sg_fx_rng g_rng;

/* The fixture's parameter as a host's descriptor: what a recipe does not
 * use is NULL, an empty owned range (which the plugin refuses) becomes the
 * whole parameter, and block-scaled parameters without a master (transpose
 * mode only) go to a group of their own. */
static sg_fp8_param_desc desc_of(const sg_k_param *p) {
  const int master = p->master_dtype != SG_K_MASTER_NONE;
  const int blocks = p->recipe == SG_K_RECIPE_BLOCK;
  const int ranged = master && p->range_end != 0 && p->range_begin < p->range_end;
  sg_fp8_param_desc d;
  memset(&d, 0, sizeof d);
  d.struct_size = sizeof d;
  d.format = p->format;
  d.master_dtype = p->master_dtype;
  d.rows = p->rows;
  d.cols = p->cols;
  d.data = p->w;
  d.ld_data = p->ld_w;
  d.transpose = p->wt;
  d.ld_transpose = p->ld_wt;
  d.master = master ? p->master : NULL;
  d.ld_master = master ? p->ld_master : 0;
  d.scale = master && p->recipe == SG_K_RECIPE_DELAYED ? p->scale : NULL;
  d.scale_inv = master && !blocks ? p->scale_inv : NULL;
  d.amax = master && !blocks ? p->amax : NULL;
  d.range_begin = ranged ? p->range_begin : 0;
  d.range_end = ranged ? p->range_end : 0;
  d.group = master ? p->group % GROUPS : BARE_GROUP;
  d.recipe = p->recipe;
  d.recipe_flags = p->recipe_flags;
  d.block_scale_inv = blocks ? p->grid : NULL;
  d.ld_block_scale_inv = blocks ? p->ld_grid : 0;
  d.block_scale_inv_t = blocks ? p->grid_t : NULL;
  d.ld_block_scale_inv_t = blocks ? p->ld_grid_t : 0;
  return d;
}

/* A random case, with each spec's range and group as desc_of registers
 * them, so that the reference sees what the plugin does. */
static void make_case(sg_fx_case *c) {
  sg_fx_spec specs[COUNT];
  for (uint32_t i = 0; i < COUNT; i++) {
    sg_fx_random_spec(&g_rng, 300, &specs[i]);
    sg_fx_spec *s = &specs[i];
    const int master = s->master_dtype != SG_K_MASTER_NONE;
    if (!master || s->range_end == 0 || s->range_begin >= s->range_end) {
      s->range_begin = s->range_end = 0;
    }
    s->group = master ? s->group % GROUPS : BARE_GROUP;
  }
  specs[0].recipe = SG_K_RECIPE_BLOCK; /* every recipe at least once */
  specs[0].range_begin = specs[0].range_end = 0;
  specs[1].recipe = SG_K_RECIPE_CURRENT;
  specs[1].master_dtype = SG_K_MASTER_FP32;
  specs[1].range_begin = specs[1].range_end = 0;
  specs[1].group = 1;
  SG_CHECK_CUDA(sg_fx_case_init(c, specs, COUNT, &g_rng));
}

static sg_session *register_case(const sg_fx_case *c) {
  sg_session_config cfg = gt_config();
  sg_session *s = gt_session(&cfg);
  sg_k_param params[COUNT];
  sg_fp8_param_desc descs[COUNT];
  sg_fx_params(c, c->dev, params);
  for (uint32_t i = 0; i < COUNT; i++) {
    descs[i] = desc_of(&params[i]);
  }
  GT_OK(s, gt_api->register_fp8_params(s, descs, COUNT, NULL));
  return s;
}

static sg_refresh_args refresh_args(uint32_t mode, uint32_t group, const int32_t *noop) {
  sg_refresh_args a;
  memset(&a, 0, sizeof a);
  a.struct_size = sizeof a;
  a.mode = mode;
  a.group = group;
  a.noop_flag = noop;
  return a;
}

static void expect_equal(sg_fx_case *c, const char *what, uint32_t mode, uint32_t group) {
  char msg[640];
  ck_assert_msg(sg_fx_compare(c, msg, sizeof msg) == 0, "%s, mode %u, group %d: %s", what, mode,
                (int)group, msg);
}

/* Uploads new initial bytes (every non-input changed, masters halved: a
 * stale output or scale cannot pass), runs `run`, checks the arena against
 * the reference of what `refreshed` says ran. */
typedef void (*run_fn)(void *ctx);

static void check_run(sg_fx_case *c, uint32_t mode, uint32_t group, int refreshed,
                      cudaStream_t st, run_fn run, void *ctx, const char *what) {
  sg_fx_repoison(c, mode, &g_rng);
  sg_fx_expect(c, refreshed ? COUNT : 0, mode, group);
  SG_CHECK_CUDA(sg_fx_upload(c));
  run(ctx);
  SG_CHECK_CUDA(cudaStreamSynchronize(st));
  SG_CHECK_CUDA(sg_fx_download(c));
  expect_equal(c, what, mode, group);
}

typedef struct eager_ctx {
  sg_session *s;
  cudaStream_t st;
  sg_refresh_args args;
} eager_ctx;

static void run_eager(void *p) {
  eager_ctx *e = p;
  GT_OK(e->s, gt_api->post_optimizer_step(e->s, (sg_stream)e->st, &e->args));
}

typedef struct replay_ctx {
  sg_session *s;
  cudaStream_t st;
  uint64_t key;
} replay_ctx;

static void run_replay(void *p) {
  replay_ctx *r = p;
  sg_replay_args ra = gt_replay_args(r->key, r->st);
  GT_OK(r->s, gt_api->replay(r->s, &ra));
}

typedef struct exec_ctx {
  cudaGraphExec_t exec;
  cudaStream_t st;
} exec_ctx;

static void run_exec(void *p) {
  exec_ctx *x = p;
  SG_CHECK_CUDA(cudaGraphLaunch(x->exec, x->st));
}

/* The selections a mode can refresh: every group for the transpose, each
 * group with masters for the cast modes (the bare group has none). */
static uint32_t selections(uint32_t mode, uint32_t *out) {
  uint32_t n = 0;
  if (mode == SG_REFRESH_TRANSPOSE) {
    out[n++] = SG_ALL_GROUPS;
    out[n++] = BARE_GROUP;
  }
  for (uint32_t g = 0; g < GROUPS; g++) {
    out[n++] = g;
  }
  return n;
}

START_TEST(eager_every_mode_and_group) {
  sg_fx_case c;
  make_case(&c);
  sg_session *s = register_case(&c);
  cudaStream_t st = gt_stream(1);
  for (uint32_t mode = SG_REFRESH_TRANSPOSE; mode <= SG_REFRESH_CAST_TRANSPOSE; mode++) {
    uint32_t groups[GROUPS + 2];
    const uint32_t n = selections(mode, groups);
    for (uint32_t k = 0; k < n; k++) {
      eager_ctx e = {s, st, refresh_args(mode, groups[k], NULL)};
      check_run(&c, mode, groups[k], 1, st, run_eager, &e, "eager");
      check_run(&c, mode, groups[k], 1, st, run_eager, &e, "eager, again");
    }
  }
  gt_api->session_destroy(s);
  SG_CHECK_CUDA(cudaStreamDestroy(st));
  sg_fx_case_free(&c);
}
END_TEST

/* Captured by the plugin: replays refresh what eager calls do, step after
 * step with new masters; with the no-op flag set nothing changes. */
START_TEST(plugin_capture_every_mode) {
  sg_fx_case c;
  make_case(&c);
  sg_session *s = register_case(&c);
  cudaStream_t st = gt_stream(1);
  int32_t *noop = NULL;
  SG_CHECK_CUDA(cudaMalloc((void **)&noop, sizeof *noop));
  SG_CHECK_CUDA(cudaMemset(noop, 0, sizeof *noop));
  GT_OK(s, gt_api->pre_capture(s, (sg_stream)st));
  uint64_t key = 100;
  for (uint32_t mode = SG_REFRESH_TRANSPOSE; mode <= SG_REFRESH_CAST_TRANSPOSE; mode++) {
    uint32_t groups[GROUPS + 2];
    const uint32_t n = selections(mode, groups);
    for (uint32_t k = 0; k < n; k++, key++) {
      const sg_refresh_args a = refresh_args(mode, groups[k], noop);
      GT_OK(s, gt_api->post_optimizer_step(s, (sg_stream)st, &a)); /* warm */
      sg_capture_args ca = gt_capture_args(key, st, SG_CAPTURE_THREAD_LOCAL);
      GT_OK(s, gt_api->capture_begin(s, &ca));
      GT_OK(s, gt_api->post_optimizer_step(s, (sg_stream)st, &a));
      GT_OK(s, gt_api->capture_end(s, &ca));
      replay_ctx r = {s, st, key};
      check_run(&c, mode, groups[k], 1, st, run_replay, &r, "plugin replay");
      check_run(&c, mode, groups[k], 1, st, run_replay, &r, "plugin replay, next step");
      const int32_t one = 1;
      SG_CHECK_CUDA(cudaMemcpy(noop, &one, sizeof one, cudaMemcpyHostToDevice));
      check_run(&c, mode, groups[k], 0, st, run_replay, &r, "plugin replay, no-op flag set");
      SG_CHECK_CUDA(cudaMemset(noop, 0, sizeof *noop));
    }
  }
  gt_api->session_destroy(s);
  SG_CHECK_CUDA(cudaFree(noop));
  SG_CHECK_CUDA(cudaStreamDestroy(st));
  sg_fx_case_free(&c);
}
END_TEST

/* Captured by the host in global mode, the plugin's call inside it: the
 * replay refreshes as an eager call does. */
START_TEST(host_capture_every_mode) {
  sg_fx_case c;
  make_case(&c);
  sg_session *s = register_case(&c);
  cudaStream_t st = gt_stream(1);
  for (uint32_t mode = SG_REFRESH_TRANSPOSE; mode <= SG_REFRESH_CAST_TRANSPOSE; mode++) {
    const uint32_t group = mode == SG_REFRESH_TRANSPOSE ? SG_ALL_GROUPS : 1;
    const sg_refresh_args a = refresh_args(mode, group, NULL);
    GT_OK(s, gt_api->post_optimizer_step(s, (sg_stream)st, &a)); /* warm */
    SG_CHECK_CUDA(cudaStreamSynchronize(st));
    cudaGraph_t graph;
    exec_ctx x = {NULL, st};
    SG_CHECK_CUDA(cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal));
    GT_OK(s, gt_api->post_optimizer_step(s, (sg_stream)st, &a));
    SG_CHECK_CUDA(cudaStreamEndCapture(st, &graph));
    SG_CHECK_CUDA(cudaGraphInstantiate(&x.exec, graph, 0));
    SG_CHECK_CUDA(cudaGraphDestroy(graph));
    check_run(&c, mode, group, 1, st, run_exec, &x, "host graph");
    check_run(&c, mode, group, 1, st, run_exec, &x, "host graph, next step");
    SG_CHECK_CUDA(cudaGraphExecDestroy(x.exec));
  }
  gt_api->session_destroy(s);
  SG_CHECK_CUDA(cudaStreamDestroy(st));
  sg_fx_case_free(&c);
}
END_TEST

static Suite *make_suite(void) {
  Suite *suite = suite_create("refresh_recipes");
  TCase *t = tcase_create("recipes");
  tcase_set_timeout(t, 300);
  tcase_add_test(t, eager_every_mode_and_group);
  tcase_add_test(t, plugin_capture_every_mode);
  tcase_add_test(t, host_capture_every_mode);
  suite_add_tcase(suite, t);
  return suite;
}

int main(void) {
  g_rng.state = sg_test_seed("test_refresh_recipes");
  return gt_main("test_refresh_recipes", make_suite);
}

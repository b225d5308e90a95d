/* bench_refresh_host: the host time of one eager post_optimizer_step with
 * 4096 registered parameters (64 x 128, FP32 masters, 64 groups), through
 * the plugin loaded as a host loads it (STEPGRAPH_PLUGIN), per recipe and
 * mode, for all groups and for one; next to it the host time of one bare
 * cudaLaunchKernel of an empty kernel, the part no plugin can remove. Each
 * call is timed alone (CLOCK_MONOTONIC); the stream is drained between
 * batches, untimed, so that a full launch queue never blocks a call.
 * Prints a table: the target is <= 5 us a call for one launch (delayed
 * scaling); the last refresh of each session is checked against the CPU
 * reference on its first and last parameter.
 *
 *   bench_refresh_host [--calls N >= 100] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <algorithm>
#include <vector>

#include "sg_cuda_check.h"
#include "fp8_reference.h"
#include "sg_load.h"

enum { kParams = 4096, kRows = 64, kCols = 128, kGroups = 64, kBatch = 256 };

static const sg_api *g_api;

#define BENCH_SG(s, call)                                                                \
  do {                                                                                   \
    const sg_status bench_st_ = (call);                                                  \
    if (bench_st_ != SG_OK) {                                                            \
      fprintf(stderr, "%s:%d: %s: %s: %s\n", __FILE__, __LINE__, #call,                  \
              g_api->status_string(bench_st_), sg_test_detail(g_api, (s)));              \
      exit(1);                                                                           \
    }                                                                                    \
  } while (0)

__global__ void empty_kernel() {}

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return 1e6 * static_cast<double>(t.tv_sec) + 1e-3 * static_cast<double>(t.tv_nsec);
}

typedef struct stats {
  double median, p90;
} stats;

/* Host microseconds of `calls` calls of call(), each timed alone. */
template <class Call>
static stats time_calls(cudaStream_t stream, int calls, Call call) {
  std::vector<double> us(static_cast<size_t>(calls));
  for (int k = 0; k < kBatch; k++) { /* warm-up */
    call();
  }
  SG_CHECK_CUDA(cudaStreamSynchronize(stream));
  for (int k = 0; k < calls; k++) {
    if (k % kBatch == 0) {
      SG_CHECK_CUDA(cudaStreamSynchronize(stream));
    }
    const double t0 = now_us();
    call();
    us[static_cast<size_t>(k)] = now_us() - t0;
  }
  SG_CHECK_CUDA(cudaStreamSynchronize(stream));
  std::sort(us.begin(), us.end());
  return stats{us[us.size() / 2], us[us.size() * 9 / 10]};
}

/* One session's parameters in one device arena, mirrored for the check. */
typedef struct params {
  uint8_t *arena;
  size_t bytes;
  sg_fp8_param_desc desc[kParams];
} params;

static const size_t kW = kRows * kCols;

static void describe(params *p, uint32_t recipe) {
  const size_t per = 2 * kW + 4 * kW + 64; /* W, Wt, master, 4 scalars/grids */
  p->bytes = per * kParams;
  SG_CHECK_CUDA(cudaMalloc(&p->arena, p->bytes));
  std::vector<float> host(kW);
  for (uint32_t i = 0; i < kParams; i++) {
    uint8_t *base = p->arena + per * i;
    float *scalars = reinterpret_cast<float *>(base + 6 * kW);
    for (size_t e = 0; e < kW; e++) {
      host[e] = static_cast<float>((e * 2654435761u + i) % 2001) / 100.0f - 10.0f;
    }
    const float ones[4] = {1.5f, 1.0f, 1.0f, 1.0f};
    SG_CHECK_CUDA(cudaMemcpy(base + 2 * kW, host.data(), 4 * kW, cudaMemcpyHostToDevice));
    SG_CHECK_CUDA(cudaMemcpy(scalars, ones, sizeof ones, cudaMemcpyHostToDevice));
    sg_fp8_param_desc *d = &p->desc[i];
    memset(d, 0, sizeof *d);
    d->struct_size = sizeof *d;
    d->format = SG_FP8_E4M3;
    d->master_dtype = SG_DTYPE_FP32;
    d->rows = kRows;
    d->cols = kCols;
    d->data = base;
    d->ld_data = kCols;
    d->transpose = base + kW;
    d->ld_transpose = kRows;
    d->master = base + 2 * kW;
    d->ld_master = kCols;
    d->group = i % kGroups;
    d->recipe = recipe;
    d->scale = recipe == SG_RECIPE_DELAYED ? scalars : NULL;
    d->scale_inv = recipe == SG_RECIPE_BLOCK ? NULL : scalars + 1;
    d->amax = recipe == SG_RECIPE_BLOCK ? NULL : scalars + 2;
    d->block_scale_inv = recipe == SG_RECIPE_BLOCK ? scalars + 1 : NULL;
    d->block_scale_inv_t = recipe == SG_RECIPE_BLOCK ? scalars + 2 : NULL;
  }
}

/* Host copies of parameter i (W, Wt, master, scalars) and the reference's
 * verdict on them: the count of differing bytes. */
static uint64_t check_param(const params *p, uint32_t i, uint32_t mode) {
  const sg_fp8_param_desc *d = &p->desc[i];
  const size_t bytes = 6 * kW + 16;
  std::vector<uint8_t> got(bytes), want(bytes);
  SG_CHECK_CUDA(cudaMemcpy(got.data(), d->data, bytes, cudaMemcpyDeviceToHost));
  want = got;
  uint8_t *h = want.data();
  float *scalars = reinterpret_cast<float *>(h + 6 * kW);
  sg_k_param q;
  memset(&q, 0, sizeof q);
  q.w = h;
  q.ld_w = kCols;
  q.wt = h + kW;
  q.ld_wt = kRows;
  q.master = h + 2 * kW;
  q.ld_master = kCols;
  q.rows = kRows;
  q.cols = kCols;
  q.format = SG_K_FP8_E4M3;
  q.master_dtype = SG_K_MASTER_FP32;
  q.recipe = d->recipe;
  q.scale = scalars;
  q.scale_inv = scalars + 1;
  q.amax = scalars + 2;
  q.grid = scalars + 1;
  q.ld_grid = 1;
  q.grid_t = scalars + 2;
  q.ld_grid_t = 1;
  sg_ref_refresh(&q, mode);
  uint64_t diffs = 0;
  for (size_t b = 0; b < bytes; b++) {
    diffs += got[b] != want[b];
  }
  return diffs;
}

static const char *kRecipeNames[] = {"delayed", "current", "block"};
static const char *kModeNames[] = {"transpose", "cast", "cast-transpose"};

static void run_recipe(uint32_t recipe, int calls, cudaStream_t stream, double bare_us) {
  sg_session_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.struct_size = sizeof cfg;
  sg_session *s = NULL;
  BENCH_SG(NULL, g_api->session_create(&cfg, &s));
  params *p = static_cast<params *>(calloc(1, sizeof *p));
  describe(p, recipe);
  BENCH_SG(s, g_api->register_fp8_params(s, p->desc, kParams, NULL));
  const uint32_t modes[2] = {SG_REFRESH_TRANSPOSE, SG_REFRESH_CAST_TRANSPOSE};
  const uint32_t groups[2] = {SG_ALL_GROUPS, kGroups / 2};
  uint32_t last_mode = 0;
  for (uint32_t mode : modes) {
    for (uint32_t group : groups) {
      sg_refresh_args a;
      memset(&a, 0, sizeof a);
      a.struct_size = sizeof a;
      a.mode = mode;
      a.group = group;
      const stats st = time_calls(stream, calls, [&] {
        BENCH_SG(s, g_api->post_optimizer_step(s, reinterpret_cast<sg_stream>(stream), &a));
      });
      const uint32_t launches = mode == SG_REFRESH_TRANSPOSE || recipe != SG_RECIPE_CURRENT ? 1 : 2;
      const bool judged = launches == 1;
      printf("%-8s %-15s %-6s %8u %8u %9.2f %9.2f %13.2f %-8s %s\n", kRecipeNames[recipe],
             kModeNames[mode], group == SG_ALL_GROUPS ? "all" : "one", kParams, launches,
             st.median, st.p90, st.median - launches * bare_us, judged ? "<=5us" : "-",
             !judged ? "-" : st.median <= 5.0 ? "met" : "MISSED");
      last_mode = mode;
    }
  }
  /* The last call refreshed every parameter of group kGroups / 2 in
   * last_mode: its first (index kGroups / 2) and last members. */
  const uint32_t first = kGroups / 2, last = kParams - kGroups / 2;
  const uint64_t diffs = check_param(p, first, last_mode) + check_param(p, last, last_mode);
  printf("%-8s check of params %u and %u against the CPU reference: %s\n", kRecipeNames[recipe],
         first, last, diffs == 0 ? "ok" : "MISMATCH");
  g_api->session_destroy(s);
  SG_CHECK_CUDA(cudaFree(p->arena));
  free(p);
  if (diffs != 0) {
    exit(1);
  }
}

int main(int argc, char **argv) {
  int calls = 2000;
  if (argc == 3 && strcmp(argv[1], "--calls") == 0) {
    calls = atoi(argv[2]);
  }
  if ((argc != 1 && argc != 3) || calls < 100) {
    fprintf(stderr, "usage: bench_refresh_host [--calls N>=100]\n");
    return 2;
  }
  g_api = sg_test_load().api;
  cudaStream_t stream;
  SG_CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const stats bare = time_calls(stream, calls, [&] {
    void *args[1] = {NULL};
    SG_CHECK_CUDA(cudaLaunchKernel(reinterpret_cast<const void *>(&empty_kernel), dim3(1), dim3(1),
                                args, 0, stream));
  });
  printf("bench_refresh_host: host time of one eager call, median/p90 of %d (us)\n", calls);
  printf("bare cudaLaunchKernel of an empty kernel: %.2f / %.2f\n", bare.median, bare.p90);
  printf("%-8s %-15s %-6s %8s %8s %9s %9s %13s %-8s %s\n", "recipe", "mode", "groups", "params",
         "launches", "median", "p90", "less_launches", "target", "verdict");
  for (uint32_t recipe = SG_RECIPE_DELAYED; recipe <= SG_RECIPE_BLOCK; recipe++) {
    run_recipe(recipe, calls, stream, bare.median);
  }
  SG_CHECK_CUDA(cudaStreamDestroy(stream));
  return 0;
}

/* bench_replay: what the plugin's replay costs against raw CUDA graphs.
 *
 *   bench_replay [--plugin path/to/libstepgraph.so.1] [--csv out.csv]
 *                [--calls N]
 *
 * 1. N tiny kernels (N = 100, 1000, 10000) launched eagerly, as a raw CUDA
 *    graph and through the plugin's replay: GPU time per kernel/node
 *    (events around many back-to-back launches), eager host time per launch.
 * 2. Building a graph, per node: capture, instantiate, upload and
 *    exec-update, raw and through the plugin (its statistics).
 * 3. Host time per replay call where the GPU is not the bottleneck: a
 *    one-node graph, batches of calls each followed by a stream sync, every
 *    call timed alone; median over --calls calls (default 20000), raw
 *    cudaGraphLaunch and plugin replay interleaved batch by batch.
 * 4. Static-input copies: replay with 0, 1, 4, 16 sources of 4 KiB.
 * Prints tables; --csv writes every number as section,variant,n,metric,
 * value,unit. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_kernels.h"
#include "bench_stats.h"
#include "sg_cuda_check.h"
#include "sg_load.h"

static const sg_api *api;

#define SG(s, call) BS_SG(api, (s), (call))

#define REPS 5
#define BATCH 250
#define STATIC_MAX 16
#define STATIC_BYTES 4096

static cudaStream_t stream;
static float *target; /* every tiny kernel adds into target[0] */

/* --- Timing helpers (the rest are bench_stats.h's) -------------------- */

static double mean(const double *v, size_t n) {
  double s = 0;
  for (size_t i = 0; i < n; i++) {
    s += v[i];
  }
  return s / (double)n;
}

static void enqueue_tiny(int n, float v) {
  for (int i = 0; i < n; i++) {
    SG_CHECK_CUDA(bk_tiny(target, v, stream));
  }
}

typedef void (*launch_fn)(void *ctx);
static double gpu_us(launch_fn fn, void *ctx, int launches) {
  return bs_gpu_us(stream, fn, ctx, launches);
}

/* --- The plugin ----------------------------------------------------------- */

static sg_session *new_session(void) {
  sg_session_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.struct_size = sizeof cfg;
  sg_session *s = NULL;
  SG(NULL, api->session_create(&cfg, &s));
  return s;
}

static sg_stats stats_of(sg_session *s) {
  sg_stats st;
  memset(&st, 0, sizeof st);
  st.struct_size = sizeof st;
  SG(s, api->get_stats(s, &st));
  return st;
}

static void plugin_capture(sg_session *s, uint64_t key, int n, float v) {
  sg_capture_args a;
  memset(&a, 0, sizeof a);
  a.struct_size = sizeof a;
  a.key = key;
  a.stream = (sg_stream)stream;
  SG(s, api->capture_begin(s, &a));
  enqueue_tiny(n, v);
  SG(s, api->capture_end(s, &a));
}

typedef struct replay_ctx {
  sg_session *s;
  sg_replay_args args;
  cudaGraphExec_t exec;
} replay_ctx;

static void launch_raw(void *ctx) {
  SG_CHECK_CUDA(cudaGraphLaunch(((replay_ctx *)ctx)->exec, stream));
}

static void launch_plugin(void *ctx) {
  replay_ctx *r = ctx;
  SG(r->s, api->replay(r->s, &r->args));
}

static void launch_eager(void *ctx) { enqueue_tiny(*(int *)ctx, 1.0f); }

static replay_ctx plugin_ctx(sg_session *s, uint64_t key) {
  replay_ctx r;
  memset(&r, 0, sizeof r);
  r.s = s;
  r.args.struct_size = sizeof r.args;
  r.args.key = key;
  r.args.stream = (sg_stream)stream;
  return r;
}

/* --- 1 and 2: N tiny kernels ------------------------------------------------ */

static double median_gpu_per(launch_fn fn, void *ctx, int launches,
                             double per) {
  double v[REPS];
  for (int r = 0; r < REPS; r++) {
    v[r] = gpu_us(fn, ctx, launches) / per;
  }
  return bs_quantile(v, REPS, 0.5);
}

/* GPU time per node of an n-node graph launched back to back: 100,000
 * nodes a measurement, after one warm launch. */
static double replay_gpu_per_node(const char *variant, launch_fn fn,
                                  void *ctx, int n) {
  const int launches = 100000 / n;
  fn(ctx);
  SG_CHECK_CUDA(cudaStreamSynchronize(stream));
  return bs_record("per_node", variant, n, "gpu_us_per_node",
                median_gpu_per(fn, ctx, launches, (double)launches * n),
                "us");
}

static cudaGraph_t raw_capture(int n, float v, double *us) {
  cudaGraph_t g = NULL;
  double t0 = bs_now_us();
  SG_CHECK_CUDA(
      cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  enqueue_tiny(n, v);
  SG_CHECK_CUDA(cudaStreamEndCapture(stream, &g));
  *us = bs_now_us() - t0;
  return g;
}

static void bench_n(int n) {
  const char *sec = "per_node";
  /* Eager: host time per launch, GPU time per kernel. */
  enqueue_tiny(n, 1.0f);
  SG_CHECK_CUDA(cudaStreamSynchronize(stream));
  double host[REPS], gpu[REPS];
  for (int r = 0; r < REPS; r++) {
    double t0 = bs_now_us();
    gpu[r] = gpu_us(launch_eager, &n, 1) / n;
    host[r] = (bs_now_us() - t0) / n; /* includes the final sync */
  }
  double eager_gpu = bs_record(sec, "eager", n, "gpu_us_per_kernel",
                            bs_quantile(gpu, REPS, 0.5), "us");
  double eager_host = bs_record(sec, "eager", n, "host_us_per_launch",
                             bs_quantile(host, REPS, 0.5), "us");

  /* Raw graph: capture, instantiate, upload, exec update, replay. */
  double cap_us, inst_us, up_us, upd_us;
  cudaGraph_t g = raw_capture(n, 1.0f, &cap_us);
  cudaGraphExec_t exec = NULL;
  double t0 = bs_now_us();
  SG_CHECK_CUDA(cudaGraphInstantiateWithFlags(&exec, g, 0));
  inst_us = bs_now_us() - t0;
  t0 = bs_now_us();
  SG_CHECK_CUDA(cudaGraphUpload(exec, stream));
  SG_CHECK_CUDA(cudaStreamSynchronize(stream));
  up_us = bs_now_us() - t0;
  double dummy;
  cudaGraph_t g2 = raw_capture(n, 2.0f, &dummy);
  cudaGraphExecUpdateResultInfo info;
  t0 = bs_now_us();
  SG_CHECK_CUDA(cudaGraphExecUpdate(exec, g2, &info));
  upd_us = bs_now_us() - t0;
  SG_CHECK_CUDA(cudaGraphDestroy(g));
  SG_CHECK_CUDA(cudaGraphDestroy(g2));
  const char *bs = "build_per_node";
  bs_record(bs, "raw", n, "capture_us_per_node", cap_us / n, "us");
  bs_record(bs, "raw", n, "instantiate_us_per_node", inst_us / n, "us");
  bs_record(bs, "raw", n, "upload_us_per_node", up_us / n, "us");
  bs_record(bs, "raw", n, "exec_update_us_per_node", upd_us / n, "us");

  replay_ctx raw = {NULL, {0}, exec};
  double raw_gpu = replay_gpu_per_node("raw_graph", launch_raw, &raw, n);

  /* The plugin: the same graph captured through it. */
  sg_session *s = new_session();
  SG(s, api->pre_capture(s, (sg_stream)stream));
  sg_stats a = stats_of(s);
  plugin_capture(s, (uint64_t)n, n, 1.0f);
  sg_stats b = stats_of(s);
  plugin_capture(s, (uint64_t)n, n, 2.0f); /* same topology: an update */
  sg_stats c = stats_of(s);
  if (c.exec_updates != 1) {
    fprintf(stderr, "expected an exec update, got %llu\n",
            (unsigned long long)c.exec_updates);
    exit(1);
  }
  bs_record(bs, "plugin", n, "capture_us_per_node",
         (b.capture_ms - a.capture_ms) * 1e3 / n, "us");
  bs_record(bs, "plugin", n, "instantiate_upload_us_per_node",
         (b.instantiate_ms - a.instantiate_ms) * 1e3 / n, "us");
  bs_record(bs, "plugin", n, "exec_update_upload_us_per_node",
         (c.instantiate_ms - b.instantiate_ms) * 1e3 / n, "us");
  replay_ctx plug = plugin_ctx(s, (uint64_t)n);
  double plug_gpu =
      replay_gpu_per_node("plugin_replay", launch_plugin, &plug, n);
  api->session_destroy(s);
  SG_CHECK_CUDA(cudaGraphExecDestroy(exec));
  printf("%6d %14.3f %14.3f %14.3f %14.3f %12.1f%%\n", n, eager_gpu,
         eager_host, raw_gpu, plug_gpu, (plug_gpu / raw_gpu - 1.0) * 100.0);
}

static void print_build_table(const int *ns, int count) {
  printf("\nBuilding a graph, microseconds per node\n");
  printf("%6s %9s %9s %9s %9s | %9s %11s %11s\n", "N", "capture", "instant.",
         "upload", "update", "capture", "inst+upl", "update+upl");
  printf("%6s %9s %9s %9s %9s | %9s %11s %11s\n", "", "(raw)", "(raw)",
         "(raw)", "(raw)", "(plugin)", "(plugin)", "(plugin)");
  for (int i = 0; i < count; i++) {
    double v[7];
    const char *want[7][2] = {
        {"raw", "capture_us_per_node"},
        {"raw", "instantiate_us_per_node"},
        {"raw", "upload_us_per_node"},
        {"raw", "exec_update_us_per_node"},
        {"plugin", "capture_us_per_node"},
        {"plugin", "instantiate_upload_us_per_node"},
        {"plugin", "exec_update_upload_us_per_node"}};
    for (int k = 0; k < 7; k++) {
      v[k] = bs_lookup("build_per_node", want[k][0], ns[i], want[k][1]);
    }
    printf("%6d %9.3f %9.3f %9.3f %9.3f | %9.3f %11.3f %11.3f\n", ns[i], v[0],
           v[1], v[2], v[3], v[4], v[5], v[6]);
  }
}

/* --- 3: host time per call -------------------------------------------------- */

typedef struct samples {
  double *v;
  size_t n;
} samples;

static void time_batch(launch_fn fn, void *ctx, samples *out) {
  for (int i = 0; i < BATCH; i++) {
    double t0 = bs_now_us();
    fn(ctx);
    out->v[out->n++] = bs_now_us() - t0;
  }
  SG_CHECK_CUDA(cudaStreamSynchronize(stream));
}

static void summarise(const char *variant, samples *s, double *median_out) {
  double avg = mean(s->v, s->n);
  double p10 = bs_quantile(s->v, s->n, 0.10);
  double med = bs_quantile(s->v, s->n, 0.50);
  double p90 = bs_quantile(s->v, s->n, 0.90);
  bs_record("host_per_call", variant, (int)s->n, "median_us", med, "us");
  bs_record("host_per_call", variant, (int)s->n, "p10_us", p10, "us");
  bs_record("host_per_call", variant, (int)s->n, "p90_us", p90, "us");
  bs_record("host_per_call", variant, (int)s->n, "mean_us", avg, "us");
  printf("%-26s %9.3f %9.3f %9.3f %9.3f\n", variant, med, p10, p90, avg);
  *median_out = med;
}

static int bench_host_cost(int calls) {
  int batches = (calls + BATCH - 1) / BATCH;
  size_t cap = (size_t)batches * BATCH;
  samples raw_s = {calloc(cap, sizeof(double)), 0};
  samples plug_s = {calloc(cap, sizeof(double)), 0};
  samples empty_s = {calloc(cap, sizeof(double)), 0};
  if (raw_s.v == NULL || plug_s.v == NULL || empty_s.v == NULL) {
    fprintf(stderr, "out of memory\n");
    exit(1);
  }
  double dummy;
  cudaGraph_t g = raw_capture(1, 1.0f, &dummy);
  replay_ctx raw = {NULL, {0}, NULL};
  SG_CHECK_CUDA(cudaGraphInstantiateWithFlags(&raw.exec, g, 0));
  SG_CHECK_CUDA(cudaGraphUpload(raw.exec, stream));
  sg_session *s = new_session();
  SG(s, api->pre_capture(s, (sg_stream)stream));
  plugin_capture(s, 1, 1, 1.0f);
  replay_ctx plug = plugin_ctx(s, 1);
  samples warm = {calloc(BATCH, sizeof(double)), 0};
  for (int i = 0; i < 4; i++) { /* warm both paths */
    warm.n = 0;
    time_batch(launch_raw, &raw, &warm);
    warm.n = 0;
    time_batch(launch_plugin, &plug, &warm);
  }
  free(warm.v);
  for (int b = 0; b < batches; b++) {
    for (int i = 0; i < BATCH; i++) { /* the clock's own cost */
      double t0 = bs_now_us();
      empty_s.v[empty_s.n++] = bs_now_us() - t0;
    }
    if (b % 2 == 0) {
      time_batch(launch_raw, &raw, &raw_s);
      time_batch(launch_plugin, &plug, &plug_s);
    } else {
      time_batch(launch_plugin, &plug, &plug_s);
      time_batch(launch_raw, &raw, &raw_s);
    }
  }
  printf("\nHost time per call, one-node graph, %zu calls each "
         "(microseconds; batches of %d, synced between)\n",
         raw_s.n, BATCH);
  printf("%-26s %9s %9s %9s %9s\n", "", "median", "p10", "p90", "mean");
  double raw_med, plug_med, clock_med;
  summarise("clock_gettime pair", &empty_s, &clock_med);
  summarise("raw cudaGraphLaunch", &raw_s, &raw_med);
  summarise("plugin replay", &plug_s, &plug_med);
  double diff = bs_record("host_per_call", "plugin_minus_raw", (int)raw_s.n,
                       "median_us", plug_med - raw_med, "us");
  int pass = diff <= 0.5;
  printf("plugin - raw (median): %.3f us; target <= 0.5 us: %s\n", diff,
         pass ? "met" : "MISSED");
  sg_stats st = stats_of(s);
  printf("(plugin replays counted: %llu)\n", (unsigned long long)st.replays);
  api->session_destroy(s);
  SG_CHECK_CUDA(cudaGraphExecDestroy(raw.exec));
  SG_CHECK_CUDA(cudaGraphDestroy(g));
  free(raw_s.v);
  free(plug_s.v);
  free(empty_s.v);
  return pass;
}

/* --- 4: static-input copies ------------------------------------------------ */

static void bench_static_copies(int calls) {
  uint8_t *statics = NULL, *sources = NULL;
  SG_CHECK_CUDA(cudaMalloc((void **)&statics, STATIC_MAX * STATIC_BYTES));
  SG_CHECK_CUDA(cudaMalloc((void **)&sources, STATIC_MAX * STATIC_BYTES));
  SG_CHECK_CUDA(cudaMemset(sources, 1, STATIC_MAX * STATIC_BYTES));
  sg_session *s = new_session();
  sg_static_buffer_desc d[STATIC_MAX];
  const void *src[STATIC_MAX];
  for (int i = 0; i < STATIC_MAX; i++) {
    d[i] = (sg_static_buffer_desc){sizeof d[i], statics + i * STATIC_BYTES,
                                   STATIC_BYTES};
    src[i] = sources + i * STATIC_BYTES;
  }
  SG(s, api->register_static_buffers(s, d, STATIC_MAX, NULL));
  SG(s, api->pre_capture(s, (sg_stream)stream));
  plugin_capture(s, 1, 1, 1.0f);
  replay_ctx plug = plugin_ctx(s, 1);
  plug.args.static_sources = src;
  int batches = (calls / 4 + BATCH - 1) / BATCH;
  samples h = {calloc((size_t)batches * BATCH, sizeof(double)), 0};
  printf("\nStatic-input copies (%d bytes each) before one replay\n",
         STATIC_BYTES);
  printf("%8s %16s %16s %14s %14s\n", "copies", "host us/replay",
         "GPU us/replay", "host us/copy", "GPU us/copy");
  const int ks[] = {0, 1, 4, 16};
  double host0 = 0, gpu0 = 0;
  for (int i = 0; i < 4; i++) {
    int k = ks[i];
    plug.args.static_source_count = (uint32_t)k;
    h.n = 0;
    for (int b = 0; b < batches; b++) {
      time_batch(launch_plugin, &plug, &h);
    }
    double host = bs_quantile(h.v, h.n, 0.5);
    double gpu = median_gpu_per(launch_plugin, &plug, 2000, 2000.0);
    if (k == 0) {
      host0 = host;
      gpu0 = gpu;
    }
    bs_record("static_copies", "plugin", k, "host_us_per_replay", host, "us");
    bs_record("static_copies", "plugin", k, "gpu_us_per_replay", gpu, "us");
    if (k > 0) {
      bs_record("static_copies", "plugin", k, "host_us_per_copy",
             (host - host0) / k, "us");
      bs_record("static_copies", "plugin", k, "gpu_us_per_copy",
             (gpu - gpu0) / k, "us");
      printf("%8d %16.3f %16.3f %14.3f %14.3f\n", k, host, gpu,
             (host - host0) / k, (gpu - gpu0) / k);
    } else {
      printf("%8d %16.3f %16.3f %14s %14s\n", k, host, gpu, "-", "-");
    }
  }
  free(h.v);
  api->session_destroy(s);
  SG_CHECK_CUDA(cudaFree(statics));
  SG_CHECK_CUDA(cudaFree(sources));
}

int main(int argc, char **argv) {
  const char *csv = NULL;
  int calls = 20000;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--csv") == 0 && i + 1 < argc) {
      csv = argv[++i];
    } else if (strcmp(argv[i], "--plugin") == 0 && i + 1 < argc) {
      setenv("STEPGRAPH_PLUGIN", argv[++i], 1);
    } else if (strcmp(argv[i], "--calls") == 0 && i + 1 < argc) {
      calls = atoi(argv[++i]);
    } else {
      fprintf(stderr,
              "usage: %s [--plugin libstepgraph.so.1] [--csv out.csv] "
              "[--calls N]\n",
              argv[0]);
      return 2;
    }
  }
  if (calls < 10000) {
    calls = 10000;
  }
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    fprintf(stderr, "bench_replay: no usable GPU\n");
    return 1;
  }
  api = sg_test_load().api;
  SG_CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  SG_CHECK_CUDA(cudaMalloc((void **)&target, sizeof(float)));
  SG_CHECK_CUDA(cudaMemset(target, 0, sizeof(float)));
  struct cudaDeviceProp prop;
  SG_CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  printf("bench_replay on %s; tiny kernel = 1 block x 32 threads\n\n",
         prop.name);
  printf("Per kernel / per node, microseconds (GPU time: events around "
         "back-to-back launches)\n");
  printf("%6s %14s %14s %14s %14s %13s\n", "N", "eager GPU/krn",
         "eager host/krn", "raw graph/node", "plugin/node", "plugin vs raw");
  const int ns[] = {100, 1000, 10000};
  for (int i = 0; i < 3; i++) {
    bench_n(ns[i]);
  }
  print_build_table(ns, 3);
  int pass = bench_host_cost(calls);
  bench_static_copies(calls);
  if (csv != NULL) {
    bs_write_csv(csv);
    printf("\nCSV: %s\n", csv);
  }
  SG_CHECK_CUDA(cudaFree(target));
  SG_CHECK_CUDA(cudaStreamDestroy(stream));
  return pass ? 0 : 3;
}

/* bench_host_sources: getting a step's per-step inputs from page-locked
 * host memory into its static buffers.
 *
 *   bench_host_sources [--plugin path/to/libstepgraph.so.1] [--csv out.csv]
 *                      [--steps N]
 *
 * The step is a one-node graph (the tiny kernel), so what is timed is the
 * inputs plus one launch, three ways:
 *   plugin  one replay with the sources as host pointers
 *           (SG_REPLAY_HOST_SOURCES: one copy kernel reads them over the bus)
 *   memcpy  the host's own cudaMemcpyAsync per source, then a replay
 *   device  one replay with device sources of the same sizes (the 1.0 path,
 *           for reference: no pointer look-ups, no bus)
 * Series: "scalars", N sources of 8 bytes; "tokens", a 1 MiB token buffer
 * and N - 1 scalars; N = 1, 4, 16, 64. Host time per step: the median of
 * --steps steps (default 4000) timed one by one, in batches of BATCH with a
 * stream sync between, the three ways interleaved batch by batch. GPU time
 * per step: events around GPU_STEPS back-to-back steps, median of REPS.
 * Before timing, each way's copies are checked byte for byte. Prints a
 * table; --csv writes section,variant,n,metric,value,unit. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_kernels.h"
#include "bench_stats.h"
#include "sg_cuda_check.h"
#include "sg_gpu_test.h"
#include "sg_load.h"

#define MAX_SOURCES 64
#define SCALAR_BYTES 8
#define SCALAR_STRIDE 256 /* apart, so that static buffers never overlap */
#define TOKEN_BYTES (1u << 20)
#define BATCH 16
#define GPU_STEPS 100
#define REPS 5
#define KEY 1

static const sg_api *api;

#define SG(s, call) BS_SG(api, (s), call)

/* Static buffer 0 holds the tokens, 1..MAX_SOURCES the scalars. */
enum { BUFFERS = MAX_SOURCES + 1 };

typedef struct memory {
  uint8_t *statics;   /* device: tokens, then the scalars SCALAR_STRIDE apart */
  uint8_t *host;      /* page-locked: the same layout, the sources */
  uint8_t *device;    /* device: the same layout, the reference's sources */
  void *buffer[BUFFERS];
  uint64_t bytes[BUFFERS];
} memory;

typedef enum way { WAY_PLUGIN, WAY_MEMCPY, WAY_DEVICE, WAYS } way;
static const char *const way_name[WAYS] = {"plugin", "memcpy", "device"};

/* One configuration: which buffers get a source this step. */
typedef struct config {
  sg_session *s;
  cudaStream_t stream;
  const memory *m;
  const void *host_src[BUFFERS];
  const void *device_src[BUFFERS];
  uint32_t count; /* sources passed (NULL ones included) */
  float *target;
} config;

static size_t offset_of(uint32_t buffer) {
  return buffer == 0 ? 0
                     : TOKEN_BYTES + (size_t)(buffer - 1) * SCALAR_STRIDE;
}

static void open_memory(memory *m) {
  const size_t total = offset_of(BUFFERS);
  SG_CHECK_CUDA(cudaMalloc((void **)&m->statics, total));
  SG_CHECK_CUDA(cudaMalloc((void **)&m->device, total));
  SG_CHECK_CUDA(cudaMallocHost((void **)&m->host, total));
  for (size_t i = 0; i < total; i++) {
    m->host[i] = (uint8_t)(i * 131 + 7);
  }
  SG_CHECK_CUDA(cudaMemcpy(m->device, m->host, total, cudaMemcpyHostToDevice));
  for (uint32_t b = 0; b < BUFFERS; b++) {
    m->buffer[b] = m->statics + offset_of(b);
    m->bytes[b] = b == 0 ? TOKEN_BYTES : SCALAR_BYTES;
  }
}

static void close_memory(memory *m) {
  SG_CHECK_CUDA(cudaFree(m->statics));
  SG_CHECK_CUDA(cudaFree(m->device));
  SG_CHECK_CUDA(cudaFreeHost(m->host));
}

static sg_session *open_session(const memory *m, cudaStream_t stream,
                                float *target) {
  sg_session_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.struct_size = sizeof cfg;
  cfg.static_capacity = BUFFERS;
  sg_session *s = NULL;
  SG(NULL, api->session_create(&cfg, &s));
  sg_static_buffer_desc d[BUFFERS];
  for (uint32_t b = 0; b < BUFFERS; b++) {
    d[b] = (sg_static_buffer_desc){sizeof d[b], m->buffer[b], m->bytes[b]};
  }
  SG(s, api->register_static_buffers(s, d, BUFFERS, NULL));
  SG(s, api->pre_capture(s, (sg_stream)stream));
  sg_capture_args ca;
  memset(&ca, 0, sizeof ca);
  ca.struct_size = sizeof ca;
  ca.key = KEY;
  ca.stream = (sg_stream)stream;
  SG(s, api->capture_begin(s, &ca));
  SG_CHECK_CUDA(bk_tiny(target, 1.0f, stream));
  SG(s, api->capture_end(s, &ca));
  return s;
}

/* scalars: buffers 1..n; tokens: buffer 0 and 1..n-1. */
static void choose(config *c, int tokens, uint32_t n) {
  memset(c->host_src, 0, sizeof c->host_src);
  memset(c->device_src, 0, sizeof c->device_src);
  const uint32_t first = tokens ? 0 : 1;
  c->count = first + n;
  for (uint32_t b = first; b < c->count; b++) {
    c->host_src[b] = c->m->host + offset_of(b);
    c->device_src[b] = c->m->device + offset_of(b);
  }
}

static void replay(const config *c, const void *const *sources,
                   uint32_t count, uint32_t flags) {
  sg_replay_args a;
  memset(&a, 0, sizeof a);
  a.struct_size = sizeof a;
  a.key = KEY;
  a.stream = (sg_stream)c->stream;
  a.static_sources = sources;
  a.static_source_count = count;
  a.flags = flags;
  SG(c->s, api->replay(c->s, &a));
}

static void step_plugin(void *ctx) {
  const config *c = ctx;
  replay(c, c->host_src, c->count, SG_REPLAY_HOST_SOURCES);
}

static void step_memcpy(void *ctx) {
  const config *c = ctx;
  for (uint32_t b = 0; b < c->count; b++) {
    if (c->host_src[b] != NULL) {
      SG_CHECK_CUDA(cudaMemcpyAsync(c->m->buffer[b], c->host_src[b],
                                   c->m->bytes[b], cudaMemcpyHostToDevice,
                                   c->stream));
    }
  }
  replay(c, NULL, 0, 0);
}

static void step_device(void *ctx) {
  const config *c = ctx;
  replay(c, c->device_src, c->count, 0);
}

static void (*const step_of[WAYS])(void *) = {step_plugin, step_memcpy,
                                             step_device};

/* One step of `w` from cleared buffers; every source's bytes must land. */
static void check_way(config *c, way w) {
  SG_CHECK_CUDA(cudaMemsetAsync(c->m->statics, 0, offset_of(BUFFERS),
                               c->stream));
  step_of[w](c);
  SG_CHECK_CUDA(cudaStreamSynchronize(c->stream));
  static uint8_t got[TOKEN_BYTES];
  for (uint32_t b = 0; b < c->count; b++) {
    if (c->host_src[b] == NULL) {
      continue;
    }
    SG_CHECK_CUDA(cudaMemcpy(got, c->m->buffer[b], c->m->bytes[b],
                            cudaMemcpyDeviceToHost));
    if (memcmp(got, c->host_src[b], c->m->bytes[b]) != 0) {
      fprintf(stderr, "bench_host_sources: %s: buffer %u differs from its "
              "source\n", way_name[w], b);
      exit(1);
    }
  }
}

static void time_batch(config *c, way w, double *samples, size_t *n) {
  for (int i = 0; i < BATCH; i++) {
    const double t0 = bs_now_us();
    step_of[w](c);
    samples[(*n)++] = bs_now_us() - t0;
  }
  SG_CHECK_CUDA(cudaStreamSynchronize(c->stream));
}

/* Host and GPU microseconds per step of each way for one configuration. */
static void measure(config *c, const char *series, uint32_t n, int steps) {
  const int batches = (steps + BATCH - 1) / BATCH;
  double *samples[WAYS];
  size_t count[WAYS] = {0};
  for (int w = 0; w < WAYS; w++) {
    check_way(c, (way)w);
    samples[w] = calloc((size_t)batches * BATCH, sizeof(double));
    if (samples[w] == NULL) {
      fprintf(stderr, "bench_host_sources: out of memory\n");
      exit(1);
    }
    size_t warm = 0;
    time_batch(c, (way)w, samples[w], &warm);
  }
  for (int b = 0; b < batches; b++) {
    for (int k = 0; k < WAYS; k++) {
      const int w = (b + k) % WAYS; /* rotate who goes first */
      time_batch(c, (way)w, samples[w], &count[w]);
    }
  }
  for (int w = 0; w < WAYS; w++) {
    double gpu[REPS];
    for (int r = 0; r < REPS; r++) {
      gpu[r] = bs_gpu_us(c->stream, step_of[w], c, GPU_STEPS) / GPU_STEPS;
    }
    bs_record(series, way_name[w], (int)n, "host_us_per_step",
              bs_quantile(samples[w], count[w], 0.5), "us");
    bs_record(series, way_name[w], (int)n, "gpu_us_per_step",
              bs_quantile(gpu, REPS, 0.5), "us");
    free(samples[w]);
  }
}

static void print_row(const char *series, uint32_t n) {
  printf("%-8s %3u", series, n);
  for (int w = 0; w < WAYS; w++) {
    printf(" | %9.2f %9.2f",
           bs_lookup(series, way_name[w], (int)n, "host_us_per_step"),
           bs_lookup(series, way_name[w], (int)n, "gpu_us_per_step"));
  }
  const double plugin =
      bs_lookup(series, "plugin", (int)n, "host_us_per_step");
  const double mine = bs_lookup(series, "memcpy", (int)n, "host_us_per_step");
  printf(" | %6.2fx\n",
         bs_record(series, "memcpy_over_plugin", (int)n, "host_ratio",
                   mine / plugin, "x"));
}

static int parse(int argc, char **argv, const char **csv) {
  int steps = 4000;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--csv") == 0 && i + 1 < argc) {
      *csv = argv[++i];
    } else if (strcmp(argv[i], "--plugin") == 0 && i + 1 < argc) {
      setenv("STEPGRAPH_PLUGIN", argv[++i], 1);
    } else if (strcmp(argv[i], "--steps") == 0 && i + 1 < argc) {
      steps = atoi(argv[++i]);
    } else {
      fprintf(stderr, "usage: %s [--plugin libstepgraph.so.1] [--csv out.csv] "
              "[--steps N]\n", argv[0]);
      exit(2);
    }
  }
  return steps < BATCH ? BATCH : steps;
}

int main(int argc, char **argv) {
  const char *csv = NULL;
  const int steps = parse(argc, argv, &csv);
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    fprintf(stderr, "bench_host_sources: no usable GPU\n");
    return 1;
  }
  api = sg_test_load().api;
  cudaStream_t stream;
  SG_CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  float *target = NULL;
  SG_CHECK_CUDA(cudaMalloc((void **)&target, sizeof(float)));
  memory m;
  open_memory(&m);
  config c = {open_session(&m, stream, target), stream, &m, {0}, {0}, 0,
              target};
  struct cudaDeviceProp prop;
  SG_CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  printf("bench_host_sources on %s: per-step inputs into static buffers, "
         "then a one-node replay\n(us per step; host: median of %d steps "
         "timed alone; GPU: events around %d steps, median of %d)\n\n",
         prop.name, steps, GPU_STEPS, REPS);
  printf("%-8s %3s | %19s | %19s | %19s | memcpy/\n", "series", "N",
         "replay, host srcs", "N memcpy + replay", "replay, device srcs");
  printf("%-8s %3s | %9s %9s | %9s %9s | %9s %9s | plugin\n", "", "", "host",
         "GPU", "host", "GPU", "host", "GPU");
  const uint32_t ns[] = {1, 4, 16, 64};
  const char *const series[] = {"scalars", "tokens"};
  for (int t = 0; t < 2; t++) {
    for (int i = 0; i < 4; i++) {
      choose(&c, t, ns[i]);
      measure(&c, series[t], ns[i], steps);
      print_row(series[t], ns[i]);
    }
  }
  printf("\nscalars: N sources of %d bytes; tokens: one of %u bytes and N-1 "
         "scalars. memcpy/plugin: host time of the host's own copies over "
         "the plugin's one call.\n", SCALAR_BYTES, TOKEN_BYTES);
  if (csv != NULL) {
    bs_write_csv(csv);
    printf("CSV: %s\n", csv);
  }
  api->session_destroy(c.s);
  close_memory(&m);
  SG_CHECK_CUDA(cudaFree(target));
  SG_CHECK_CUDA(cudaStreamDestroy(stream));
  return 0;
}

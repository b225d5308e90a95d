/* bench_cond's shared helpers (bench_cond.h). */
#include <string.h>

#include "bench_cond.h"
#include "cond_kernels.h"
#include "sg_load.h"

void bc_check_sg(const bc *b, sg_status st, const char *call,
                 const char *file, int line) {
  if (st != SG_OK) {
    fprintf(stderr, "%s:%d: %s: %s: %s\n", file, line, call,
            b->api->status_string(st), sg_test_detail(b->api, b->s));
    exit(1);
  }
}

sg_session *bc_session(const bc *b, uint32_t flags) {
  sg_session_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.struct_size = sizeof cfg;
  cfg.flags = flags;
  sg_session *s = NULL;
  BC_SG(b, b->api->session_create(&cfg, &s));
  BC_SG(b, b->api->pre_capture(s, (sg_stream)b->stream));
  return s;
}

void bc_microbatch(const bc *b, const uint32_t *index) {
  BC_CUDA(ck_gather(b->acc, b->inputs, index, BC_SLICES, b->elems,
                    b->stream));
  for (size_t k = 0; k < BC_WORK; k++) {
    BC_CUDA(ck_work(b->work + k * b->elems, b->elems, b->stream));
  }
}

void bc_update(const bc *b) {
  BC_CUDA(ck_apply(b->w, b->acc, b->elems, b->stream));
}

static int by_value(const void *x, const void *y) {
  const double a = *(const double *)x, c = *(const double *)y;
  return (a > c) - (a < c);
}

double bc_step_us(const bc *b, bc_step_fn fn, void *ctx) {
  const int n = b->reps + 1;
  cudaEvent_t *ev = calloc((size_t)n + 1, sizeof *ev);
  double *us = calloc((size_t)n, sizeof *us);
  for (int i = 0; i <= n; i++) {
    BC_CUDA(cudaEventCreate(&ev[i]));
  }
  for (int i = 0; i < n; i++) {
    BC_CUDA(cudaEventRecord(ev[i], b->stream));
    fn(b, ctx);
  }
  BC_CUDA(cudaEventRecord(ev[n], b->stream));
  BC_CUDA(cudaEventSynchronize(ev[n]));
  for (int i = 1; i < n; i++) { /* the first pays one-time costs */
    float ms = 0.0f;
    BC_CUDA(cudaEventElapsedTime(&ms, ev[i], ev[i + 1]));
    us[i - 1] = 1000.0 * ms;
  }
  for (int i = 0; i <= n; i++) {
    BC_CUDA(cudaEventDestroy(ev[i]));
  }
  qsort(us, (size_t)b->reps, sizeof *us, by_value);
  const double median = us[b->reps / 2];
  free(ev);
  free(us);
  return median;
}

static sg_stats stats(const bc *b) {
  sg_stats st;
  memset(&st, 0, sizeof st);
  st.struct_size = sizeof st;
  BC_SG(b, b->api->get_stats(b->s, &st));
  return st;
}

static size_t free_bytes(void) {
  size_t free_b = 0, total = 0;
  BC_CUDA(cudaDeviceSynchronize());
  BC_CUDA(cudaMemGetInfo(&free_b, &total));
  return free_b;
}

bc_graph bc_capture(const bc *b, uint64_t key, bc_step_fn fn, void *ctx) {
  sg_capture_args ca;
  memset(&ca, 0, sizeof ca);
  ca.struct_size = sizeof ca;
  ca.key = key;
  ca.stream = (sg_stream)b->stream;
  const sg_stats before = stats(b);
  const size_t free_before = free_bytes();
  BC_SG(b, b->api->capture_begin(b->s, &ca));
  fn(b, ctx);
  BC_SG(b, b->api->capture_end(b->s, &ca));
  const size_t free_after = free_bytes();
  const sg_stats after = stats(b);
  sg_graph_info gi;
  memset(&gi, 0, sizeof gi);
  gi.struct_size = sizeof gi;
  BC_SG(b, b->api->graph_info(b->s, key, &gi));
  bc_graph g = {gi.nodes, gi.conditional_nodes,
                after.capture_ms - before.capture_ms,
                after.instantiate_ms - before.instantiate_ms,
                free_before > free_after
                    ? (double)(free_before - free_after) / (1024.0 * 1024.0)
                    : 0.0};
  return g;
}

void bc_replay(const bc *b, void *key) {
  sg_replay_args ra;
  memset(&ra, 0, sizeof ra);
  ra.struct_size = sizeof ra;
  ra.key = *(const uint64_t *)key;
  ra.stream = (sg_stream)b->stream;
  BC_SG(b, b->api->replay(b->s, &ra));
}

typedef struct row {
  const char *section, *variant, *metric, *unit;
  int n;
  double value;
} row;

static row rows[4096];
static int row_count;

void bc_record(const char *section, const char *variant, int n,
               const char *metric, double value, const char *unit) {
  if (row_count < (int)(sizeof rows / sizeof rows[0])) {
    rows[row_count++] = (row){section, variant, metric, unit, n, value};
  }
}

void bc_write_csv(const char *path) {
  FILE *f = fopen(path, "w");
  if (f == NULL) {
    perror(path);
    exit(1);
  }
  fputs("section,variant,n,metric,value,unit\n", f);
  for (int i = 0; i < row_count; i++) {
    const row *r = &rows[i];
    fprintf(f, "%s,%s,%d,%s,%.6g,%s\n", r->section, r->variant, r->n,
            r->metric, r->value, r->unit);
  }
  fclose(f);
}

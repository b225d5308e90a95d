#define _POSIX_C_SOURCE 200809L
#include "bench_stats.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sg_cuda_check.h"
#include "sg_gpu_test.h"

typedef struct row {
  const char *section, *variant;
  int n;
  const char *metric;
  double value;
  const char *unit;
} row;

static row rows[1024];
static int row_count;

void bs_check_sg(const sg_api *api, sg_session *s, sg_status st,
                 const char *call, const char *file, int line) {
  if (st != SG_OK) {
    char detail[1024] = "";
    api->last_error(s, detail, sizeof detail, NULL);
    fprintf(stderr, "%s:%d: %s: %s: %s\n", file, line, call,
            api->status_string(st), detail);
    exit(1);
  }
}

double bs_now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int by_value(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double bs_quantile(double *v, size_t n, double p) {
  qsort(v, n, sizeof *v, by_value);
  const size_t i = (size_t)(p * (double)(n - 1) + 0.5);
  return v[i < n ? i : n - 1];
}

double bs_gpu_us(cudaStream_t stream, void (*fn)(void *ctx), void *ctx,
                 int launches) {
  cudaEvent_t a, b;
  SG_CHECK_CUDA(cudaEventCreate(&a));
  SG_CHECK_CUDA(cudaEventCreate(&b));
  SG_CHECK_CUDA(cudaEventRecord(a, stream));
  for (int i = 0; i < launches; i++) {
    fn(ctx);
  }
  SG_CHECK_CUDA(cudaEventRecord(b, stream));
  SG_CHECK_CUDA(cudaEventSynchronize(b));
  float ms = 0;
  SG_CHECK_CUDA(cudaEventElapsedTime(&ms, a, b));
  SG_CHECK_CUDA(cudaEventDestroy(a));
  SG_CHECK_CUDA(cudaEventDestroy(b));
  return (double)ms * 1e3;
}

double bs_record(const char *section, const char *variant, int n,
                 const char *metric, double value, const char *unit) {
  if (row_count < (int)(sizeof rows / sizeof rows[0])) {
    rows[row_count++] = (row){section, variant, n, metric, value, unit};
  }
  return value;
}

double bs_lookup(const char *section, const char *variant, int n,
                 const char *metric) {
  for (int i = 0; i < row_count; i++) {
    if (rows[i].n == n && strcmp(rows[i].section, section) == 0 &&
        strcmp(rows[i].variant, variant) == 0 &&
        strcmp(rows[i].metric, metric) == 0) {
      return rows[i].value;
    }
  }
  return -1.0;
}

void bs_write_csv(const char *path) {
  FILE *f = fopen(path, "w");
  if (f == NULL) {
    perror(path);
    exit(1);
  }
  fprintf(f, "section,variant,n,metric,value,unit\n");
  for (int i = 0; i < row_count; i++) {
    fprintf(f, "%s,%s,%d,%s,%.6g,%s\n", rows[i].section, rows[i].variant,
            rows[i].n, rows[i].metric, rows[i].value, rows[i].unit);
  }
  if (fclose(f) != 0) {
    perror(path);
    exit(1);
  }
}

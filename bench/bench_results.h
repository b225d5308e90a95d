/* Shared by the benchmarks that load the plugin like a host (bench_replay,
 * bench_multi): checked CUDA and plugin calls that abort (a benchmark has
 * nothing to recover), the results as rows written to CSV
 * (section,variant,n,metric,value,unit), and the timing helpers.
 * Header-only; each program has one table `api`. Define
 * _POSIX_C_SOURCE 200809L (clock_gettime) before including anything. */
#ifndef SG_BENCH_RESULTS_H
#define SG_BENCH_RESULTS_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "sg_load.h"

#define CK(call)                                                          \
  do {                                                                    \
    cudaError_t ck_err_ = (call);                                         \
    if (ck_err_ != cudaSuccess) {                                         \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,       \
              cudaGetErrorName(ck_err_));                                 \
      exit(1);                                                            \
    }                                                                     \
  } while (0)

static const sg_api *api;

#define SG(s, call)                                                       \
  do {                                                                    \
    sg_status sg_st_ = (call);                                            \
    if (sg_st_ != SG_OK) {                                                \
      fprintf(stderr, "%s:%d: %s: %s: %s\n", __FILE__, __LINE__, #call,   \
              api->status_string(sg_st_), sg_test_detail(api, (s)));      \
      exit(1);                                                            \
    }                                                                     \
  } while (0)

/* --- Results -------------------------------------------------------------- */

typedef struct row {
  const char *section, *variant;
  int n;
  const char *metric;
  double value;
  const char *unit;
} row;

static row rows[512];
static int row_count;

static inline double record(const char *section, const char *variant,
                            int n, const char *metric, double value,
                            const char *unit) {
  if (row_count < (int)(sizeof rows / sizeof rows[0])) {
    rows[row_count++] = (row){section, variant, n, metric, value, unit};
  }
  return value;
}

static inline void write_csv(const char *path) {
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
  fclose(f);
}

/* --- Timing helpers ------------------------------------------------------- */

static inline double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static inline int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Sorts v; returns its p-quantile (0.5: median). */
static inline double quantile(double *v, size_t n, double p) {
  qsort(v, n, sizeof *v, by_value);
  size_t i = (size_t)(p * (double)(n - 1) + 0.5);
  return v[i < n ? i : n - 1];
}

#endif /* SG_BENCH_RESULTS_H */

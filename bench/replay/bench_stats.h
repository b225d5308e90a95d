/* What the replay benchmarks share: a clock, quantiles, GPU time of a run
 * of launches, and the result rows that go to the table and the CSV
 * (section,variant,n,metric,value,unit). Prefix bs_. */
#ifndef SG_BENCH_STATS_H
#define SG_BENCH_STATS_H

#include <stddef.h>

#include <cuda_runtime_api.h>

#include "stepgraph.h"

/* A plugin call that must succeed: otherwise prints it, the status and the
 * session's detail, and exits (a benchmark has nothing to recover). */
void bs_check_sg(const sg_api *api, sg_session *s, sg_status st,
                 const char *call, const char *file, int line);
#define BS_SG(api, s, call) \
  bs_check_sg((api), (s), (call), #call, __FILE__, __LINE__)

/* Monotonic microseconds. */
double bs_now_us(void);

/* Sorts v[0..n) and returns its p-quantile (0.5: the median). */
double bs_quantile(double *v, size_t n, double p);

/* GPU microseconds of `launches` calls of fn(ctx), between two events on
 * `stream`, waited for. */
double bs_gpu_us(cudaStream_t stream, void (*fn)(void *ctx), void *ctx,
                 int launches);

/* Keeps one result (the strings are static); returns value. */
double bs_record(const char *section, const char *variant, int n,
                 const char *metric, double value, const char *unit);

/* The first result recorded with these names, or -1. */
double bs_lookup(const char *section, const char *variant, int n,
                 const char *metric);

/* Writes every result as CSV; exits on an I/O error. */
void bs_write_csv(const char *path);

#endif

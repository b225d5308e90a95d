/* sg_parallel_spans: one contiguous span per online CPU, on POSIX threads. */
#define _POSIX_C_SOURCE 200809L
#include "exhaustive.h"

#include <pthread.h>
#include <unistd.h>

enum { MAX_THREADS = 64 };

typedef struct span_job {
  sg_span_fn fn;
  void *ctx;
  uint64_t begin, end;
  uint64_t failures, first_bad;
} span_job;

static void *run_job(void *arg) {
  span_job *j = arg;
  j->first_bad = UINT64_MAX;
  j->failures = j->fn(j->ctx, j->begin, j->end, &j->first_bad);
  return NULL;
}

static unsigned thread_count(void) {
  const long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n < 1 ? 1u : n > MAX_THREADS ? (unsigned)MAX_THREADS : (unsigned)n;
}

sg_span_result sg_parallel_spans(uint64_t begin, uint64_t end, sg_span_fn fn, void *ctx) {
  span_job jobs[MAX_THREADS];
  pthread_t threads[MAX_THREADS];
  int started[MAX_THREADS] = {0};
  const unsigned n = thread_count();
  const uint64_t per = (end - begin + n - 1) / n;
  for (unsigned t = 0; t < n; t++) {
    const uint64_t b = begin + per * t;
    jobs[t] = (span_job){fn, ctx, b < end ? b : end, b + per < end ? b + per : end, 0, 0};
    /* A thread that cannot start runs its span here instead. */
    started[t] = pthread_create(&threads[t], NULL, run_job, &jobs[t]) == 0;
    if (!started[t]) {
      run_job(&jobs[t]);
    }
  }
  sg_span_result r = {0, UINT64_MAX};
  for (unsigned t = 0; t < n; t++) {
    if (started[t]) {
      pthread_join(threads[t], NULL);
    }
    r.failures += jobs[t].failures;
    if (jobs[t].first_bad < r.first_bad) {
      r.first_bad = jobs[t].first_bad;
    }
  }
  return r;
}

#include "cond_program.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_kernels.h"
#include "sg_cuda_check.h"
#include "sg_gpu_test.h"

const uint32_t cp_conditionals[CP_SHAPES] = {1, 1, 2, 2, 2, 2, 3};
const char *const cp_names[CP_SHAPES] = {
    "guard",        "loop",           "guard in loop", "loop in guard",
    "loop in loop", "guard in guard", "guard, loop, guard"};

/* One way of running a program: the same code drives the plugin's entries
 * or a host simulation of them. */
typedef struct runner {
  cp_run *r;          /* NULL: simulate */
  const cp_values *v; /* simulation: the values */
  cp_trace *trace;    /* simulation: the trace */
  uint32_t index[CP_MAX_DEPTH];
  int trips[CP_MAX_DEPTH];
  int depth;
  sg_status st; /* the first failure */
} runner;

static void keep(runner *u, sg_status st) {
  if (u->st == SG_OK) {
    u->st = st;
  }
}

static void mark(runner *u, int tag, const uint32_t *index) {
  if (u->r == NULL) {
    const int at = u->trace->count++;
    if (at < CP_LOG) {
      u->trace->log[at] = tag * 1000 + (index != NULL ? (int)*index : 0);
    }
    return;
  }
  SG_CHECK_CUDA(tk_log(u->r->log, u->r->count, CP_LOG, tag, index, u->r->st));
}

static uint32_t guard_begin(runner *u, int which) {
  uint32_t run = 0;
  if (u->r == NULL) {
    return u->v->v[which] != 0;
  }
  keep(u, u->r->api->guard_begin(u->r->s, (sg_stream)u->r->st,
                                 &u->r->values[which], &run));
  return run;
}

static void guard_end(runner *u) {
  if (u->r != NULL) {
    keep(u, u->r->api->guard_end(u->r->s, (sg_stream)u->r->st));
  }
}

static const uint32_t *loop_begin(runner *u, int which, uint32_t *again) {
  const uint32_t *index = NULL;
  *again = 0;
  if (u->r == NULL) {
    const int d = u->depth++;
    u->index[d] = 0;
    u->trips[d] = u->v->v[which];
    *again = u->trips[d] > 0;
    if (!*again) {
      u->depth--;
    }
    return &u->index[d];
  }
  keep(u, u->r->api->loop_begin(u->r->s, (sg_stream)u->r->st,
                                &u->r->values[which], &index, again));
  return index;
}

static uint32_t loop_next(runner *u) {
  uint32_t again = 0;
  if (u->r == NULL) {
    const int d = u->depth - 1;
    again = (int)++u->index[d] < u->trips[d];
    if (!again) {
      u->depth--;
    }
    return again;
  }
  keep(u, u->r->api->loop_next(u->r->s, (sg_stream)u->r->st, &again));
  return again;
}

enum { A = 0, B = 1, TA = 2, TB = 3 };

static void guard_of(runner *u, int which, int tag) {
  if (guard_begin(u, which)) {
    mark(u, tag, NULL);
  }
  guard_end(u);
}

static void loop_shape(runner *u) {
  uint32_t again = 0;
  mark(u, 1, NULL);
  const uint32_t *i = loop_begin(u, TA, &again);
  for (; again; again = loop_next(u)) {
    mark(u, 2, i);
  }
  mark(u, 3, i);
}

static void guard_in_loop(runner *u) {
  uint32_t again = 0;
  const uint32_t *i = loop_begin(u, TA, &again);
  for (; again; again = loop_next(u)) {
    mark(u, 2, i);
    if (guard_begin(u, A)) {
      mark(u, 4, i);
    }
    guard_end(u);
  }
}

static void loop_in_guard(runner *u) {
  uint32_t again = 0;
  if (guard_begin(u, A)) {
    const uint32_t *i = loop_begin(u, TA, &again);
    for (; again; again = loop_next(u)) {
      mark(u, 5, i);
    }
  }
  guard_end(u);
  mark(u, 3, NULL);
}

static void loop_in_loop(runner *u) {
  uint32_t outer = 0, inner = 0;
  const uint32_t *i = loop_begin(u, TA, &outer);
  for (; outer; outer = loop_next(u)) {
    const uint32_t *j = loop_begin(u, TB, &inner);
    for (; inner; inner = loop_next(u)) {
      mark(u, 6, j);
    }
    mark(u, 7, i);
  }
}

static void guard_in_guard(runner *u) {
  if (guard_begin(u, A)) {
    mark(u, 8, NULL);
    guard_of(u, B, 9);
  }
  guard_end(u);
  mark(u, 3, NULL);
}

static void sequence(runner *u) {
  uint32_t again = 0;
  mark(u, 1, NULL);
  guard_of(u, A, 2);
  const uint32_t *i = loop_begin(u, TA, &again);
  for (; again; again = loop_next(u)) {
    mark(u, 3, i);
  }
  guard_of(u, B, 4);
}

static void program(runner *u, cp_shape shape) {
  switch (shape) {
    case CP_GUARD:
      mark(u, 1, NULL);
      guard_of(u, A, 2);
      mark(u, 3, NULL);
      break;
    case CP_LOOP: loop_shape(u); break;
    case CP_GUARD_IN_LOOP: guard_in_loop(u); break;
    case CP_LOOP_IN_GUARD: loop_in_guard(u); break;
    case CP_LOOP_IN_LOOP: loop_in_loop(u); break;
    case CP_GUARD_IN_GUARD: guard_in_guard(u); break;
    default: sequence(u); break;
  }
}

void cp_open(cp_run *r, const sg_api *api, sg_session *s, cudaStream_t st) {
  r->api = api;
  r->s = s;
  r->st = st;
  SG_CHECK_CUDA(cudaMalloc((void **)&r->log, CP_LOG * sizeof(int)));
  SG_CHECK_CUDA(cudaMalloc((void **)&r->count, sizeof(int)));
  SG_CHECK_CUDA(cudaMalloc((void **)&r->values, 4 * sizeof(int32_t)));
  SG_CHECK_CUDA(cudaMemset(r->log, 0, CP_LOG * sizeof(int)));
  SG_CHECK_CUDA(cudaMemset(r->count, 0, sizeof(int)));
  SG_CHECK_CUDA(cudaMemset(r->values, 0, 4 * sizeof(int32_t)));
}

void cp_close(cp_run *r) {
  SG_CHECK_CUDA(cudaStreamSynchronize(r->st));
  SG_CHECK_CUDA(cudaFree(r->log));
  SG_CHECK_CUDA(cudaFree(r->count));
  SG_CHECK_CUDA(cudaFree(r->values));
}

static void must(const cp_run *r, sg_status st, const char *call) {
  if (st != SG_OK) {
    fprintf(stderr, "%s: %s\n", call, r->api->status_string(st));
    exit(1);
  }
}

void cp_open_session(cp_run *r, const sg_api *api, uint32_t warmup) {
  sg_session_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.struct_size = sizeof cfg;
  cfg.warmup_steps = warmup;
  cfg.rng_seed = 20240611;
  sg_session *s = NULL;
  cudaStream_t st;
  r->api = api;
  must(r, api->session_create(&cfg, &s), "session_create");
  SG_CHECK_CUDA(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  cp_open(r, api, s, st);
  must(r, api->pre_capture(s, (sg_stream)st), "pre_capture");
}

void cp_close_session(cp_run *r) {
  cp_close(r);
  r->api->session_destroy(r->s);
  SG_CHECK_CUDA(cudaStreamDestroy(r->st));
}

sg_status cp_enqueue_values(cp_run *r, const cp_values *v) {
  for (int k = 0; k < 4; k++) {
    SG_CHECK_CUDA(tk_set_int(&r->values[k], v->v[k], r->st));
  }
  SG_CHECK_CUDA(tk_set_int(r->count, 0, r->st));
  return SG_OK;
}

sg_status cp_enqueue_program(cp_run *r, cp_shape shape) {
  runner u;
  memset(&u, 0, sizeof u);
  u.r = r;
  program(&u, shape);
  return u.st;
}

void cp_read(cp_run *r, cp_trace *out) {
  SG_CHECK_CUDA(cudaStreamSynchronize(r->st));
  SG_CHECK_CUDA(cudaMemcpy(&out->count, r->count, sizeof(int),
                          cudaMemcpyDeviceToHost));
  const int n = out->count < CP_LOG ? out->count : CP_LOG;
  memset(out->log, 0, sizeof out->log);
  SG_CHECK_CUDA(cudaMemcpy(out->log, r->log, (size_t)n * sizeof(int),
                          cudaMemcpyDeviceToHost));
}

void cp_simulate(cp_shape shape, const cp_values *v, cp_trace *out) {
  runner u;
  memset(&u, 0, sizeof u);
  memset(out, 0, sizeof *out);
  u.v = v;
  u.trace = out;
  program(&u, shape);
}

int cp_diff(const cp_trace *a, const cp_trace *b) {
  if (a->count != b->count) {
    return a->count < b->count ? a->count : b->count;
  }
  const int n = a->count < CP_LOG ? a->count : CP_LOG;
  for (int i = 0; i < n; i++) {
    if (a->log[i] != b->log[i]) {
      return i;
    }
  }
  return -1;
}

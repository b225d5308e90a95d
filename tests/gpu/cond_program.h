/* Small step programs built from guards and loops, run three ways: through
 * the plugin eagerly, through the plugin's capture and replay, and
 * simulated on the host (what the program means, written without the
 * plugin). Each program leaves a trace of tagged entries (see tk_log),
 * read back and compared between the ways. */
#ifndef SG_TEST_COND_PROGRAM_H
#define SG_TEST_COND_PROGRAM_H

#include <stdbool.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "stepgraph.h"

#define CP_LOG 4096
#define CP_MAX_DEPTH 8

/* The programs (A, B: the two flags; TA, TB: the two trip counts). */
typedef enum cp_shape {
  CP_GUARD,          /* 1; if A { 2 }; 3 */
  CP_LOOP,           /* 1; for i < TA { 2.i }; 3.i */
  CP_GUARD_IN_LOOP,  /* for i < TA { 2.i; if A { 4.i } } */
  CP_LOOP_IN_GUARD,  /* if A { for i < TA { 5.i } }; 3 */
  CP_LOOP_IN_LOOP,   /* for i < TA { for j < TB { 6.j }; 7.i } */
  CP_GUARD_IN_GUARD, /* if A { 8; if B { 9 } }; 3 */
  CP_SEQUENCE,       /* 1; if A { 2 }; for i < TA { 3.i }; if B { 4 } */
  CP_SHAPES
} cp_shape;

/* How many conditional nodes each shape's graph holds. */
extern const uint32_t cp_conditionals[CP_SHAPES];
extern const char *const cp_names[CP_SHAPES];

/* A, B, TA, TB. */
typedef struct cp_values {
  int v[4];
} cp_values;

typedef struct cp_trace {
  int log[CP_LOG];
  int count;
} cp_trace;

/* Device state of the programs and the plugin that runs them. */
typedef struct cp_run {
  const sg_api *api;
  sg_session *s;
  cudaStream_t st;
  int *log, *count; /* device */
  int32_t *values;  /* device: A, B, TA, TB */
} cp_run;

void cp_open(cp_run *r, const sg_api *api, sg_session *s, cudaStream_t st);
void cp_close(cp_run *r);

/* The same with a session of its own (the step driver warming up for
 * `warmup` steps) on a stream of its own, pre_capture done; closing
 * destroys both. Exits the program when the plugin refuses. */
void cp_open_session(cp_run *r, const sg_api *api, uint32_t warmup);
void cp_close_session(cp_run *r);

/* Enqueues: the values, a zero count, then the program through the
 * plugin's entries on r->st (eager, or recorded while capturing). Returns
 * the first status an entry returned that was not SG_OK (SG_OK if none). */
sg_status cp_enqueue_values(cp_run *r, const cp_values *v);
sg_status cp_enqueue_program(cp_run *r, cp_shape shape);

/* The trace the last program left (waits for the stream). */
void cp_read(cp_run *r, cp_trace *out);

/* What the program means, computed on the host. */
void cp_simulate(cp_shape shape, const cp_values *v, cp_trace *out);

/* Index of the first difference, or -1 when equal. */
int cp_diff(const cp_trace *a, const cp_trace *b);

#endif

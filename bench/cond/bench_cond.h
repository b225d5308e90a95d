/* Shared by bench_cond's sections: the plugin, the stream, the step's
 * buffers, checked calls, step timing and the result rows (printed as
 * tables, written as CSV: section,variant,n,metric,value,unit). */
#ifndef SG_BENCH_COND_H
#define SG_BENCH_COND_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime_api.h>

#include "stepgraph.h"

#define BC_CUDA(call)                                                   \
  do {                                                                  \
    cudaError_t bc_err_ = (call);                                       \
    if (bc_err_ != cudaSuccess) {                                       \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,     \
              cudaGetErrorName(bc_err_));                               \
      exit(1);                                                          \
    }                                                                   \
  } while (0)

#define BC_SG(b, call) bc_check_sg((b), (call), #call, __FILE__, __LINE__)

/* The microbatch body: one gather by the index, then BC_WORK kernels,
 * each over its own slice of `work` (so that large bodies stream from
 * memory, not L2). Buffers hold b->elems floats (BC_ELEMS unless the loop
 * section's larger bodies run). */
#define BC_WORK 15
#define BC_ELEMS (256u * 1024u) /* floats per buffer: 1 MiB */
#define BC_SLICES 64u           /* input slices the index picks from */
#define BC_MAX_N 64u
#define BC_MAX_BODIES 8         /* --body-mib values */

typedef struct bc {
  const sg_api *api;
  sg_session *s;
  cudaStream_t stream;
  float *acc, *work, *w, *inputs; /* device */
  size_t elems;                   /* floats per buffer now */
  double body_mib[BC_MAX_BODIES]; /* the loop section's larger bodies */
  int bodies;
  uint32_t *slots;                /* device [BC_MAX_N] = 0, 1, ... */
  int32_t *trip, *flag;           /* device */
  int reps;                       /* timed steps per measurement */
} bc;

void bc_check_sg(const bc *b, sg_status st, const char *call,
                 const char *file, int line);

/* A session (flags: sg_session_flag bits), pre_capture done. */
sg_session *bc_session(const bc *b, uint32_t flags);

/* One microbatch reading *index; the update after the microbatches. */
void bc_microbatch(const bc *b, const uint32_t *index);
void bc_update(const bc *b);

/* Median GPU microseconds of one call of fn (b->reps calls back to back,
 * events between them; the first left out). */
typedef void (*bc_step_fn)(const bc *b, void *ctx);
double bc_step_us(const bc *b, bc_step_fn fn, void *ctx);

/* The graph of `key` captured from fn: its nodes, the capture and
 * instantiate milliseconds (the plugin's statistics) and the device memory
 * the executable took (cudaMemGetInfo around capture_end). */
typedef struct bc_graph {
  uint64_t nodes, conditionals;
  double capture_ms, instantiate_ms, mib;
} bc_graph;
bc_graph bc_capture(const bc *b, uint64_t key, bc_step_fn fn, void *ctx);

/* Replays `key` (fn for bc_step_us). */
void bc_replay(const bc *b, void *key);

void bc_record(const char *section, const char *variant, int n,
               const char *metric, double value, const char *unit);
void bc_write_csv(const char *path);

/* The sections. */
void bc_loop_section(bc *b);
void bc_loop_bodies_section(bc *b); /* b->body_mib; restores b->elems */
void bc_guard_section(bc *b);
void bc_detector_section(bc *b);

#endif

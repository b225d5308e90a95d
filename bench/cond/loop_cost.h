/* bench_loop_cost: what one iteration of a WHILE node costs, taken apart
 * (see loop_cost.c). Plain CUDA graphs, no plugin: the kernels below stand
 * in for a host's microbatch and for the loop's bookkeeping, and the
 * variants place that bookkeeping differently in the body. */
#ifndef SG_LOOP_COST_H
#define SG_LOOP_COST_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#define LC_HIST 64u  /* iterations a check can count; one more bin: beyond */
#define LC_ARGS 5

/* One kernel launch, described once so that it can be added as a graph
 * node or launched into a capturing stream. store holds the argument
 * values (all 8 bytes wide); lc_op_args points args at them. */
typedef struct lc_op {
  const void *fn;
  unsigned grid, block;
  uint64_t store[LC_ARGS];
  void *args[LC_ARGS];
} lc_op;

#ifdef __cplusplus
extern "C" {
#endif

void **lc_op_args(lc_op *op);

/* v[i] += 1 for i < n; with hist, also hist[min(*index, LC_HIST)] += 1
 * (the microbatch's use of the loop index). n <= 256: one block. */
lc_op lc_touch(float *v, size_t n, uint32_t *hist, const uint32_t *index);

/* Before the WHILE node: *index = index0, *it = 0, condition *trip > 0. */
lc_op lc_start(cudaGraphConditionalHandle h, uint32_t *index, uint32_t *it,
               const int32_t *trip, uint32_t index0);

/* The plugin's step, at the body's end: *index += 1, condition
 * *index < *trip. */
lc_op lc_step(cudaGraphConditionalHandle h, uint32_t *index,
              const int32_t *trip);

/* A counter of its own, so it can run beside the microbatch: *it += 1,
 * condition *it < *trip. */
lc_op lc_cond(cudaGraphConditionalHandle h, uint32_t *it,
              const int32_t *trip);

/* lc_step after cudaGridDependencySynchronize: for a programmatic edge
 * from the microbatch's last kernel, so that its launch overlaps that
 * kernel's tail (sm_90 and newer; the wait makes the index write safe). */
lc_op lc_step_after(cudaGraphConditionalHandle h, uint32_t *index,
                    const int32_t *trip);

/* *word += 1 (no condition). */
lc_op lc_bump(uint32_t *word);

/* At the body's head, from *index = UINT32_MAX before the loop:
 * *index += 1, condition *index + 1 < *trip. */
lc_op lc_fused(cudaGraphConditionalHandle h, uint32_t *index,
               const int32_t *trip);

/* The step's device state. The microbatch is k touch kernels over v[n],
 * the first reading the loop index (slots[i] when unrolled). */
typedef struct lc_dev {
  cudaStream_t stream;
  float *v;
  size_t n;
  uint32_t *hist;    /* [LC_HIST + 1] */
  uint32_t *index;   /* the loop index the microbatch reads */
  uint32_t *it;      /* the parallel condition's own counter */
  uint32_t *slots;   /* [LC_HIST] = 0, 1, ... (unrolled indices) */
  uint32_t *scratch; /* the unrolled graph's extra kernel's word */
  int32_t *trip;
  int major; /* compute capability: programmatic edges need 9 */
} lc_dev;

/* Where the loop's bookkeeping goes (loop_cost_graphs.c). */
typedef enum lc_variant {
  LC_TAIL,          /* the plugin's: microbatch -> step */
  LC_TAIL_CAPTURED, /* the same, the body captured to graph as the plugin */
  LC_TAIL_PARALLEL, /* cond beside; microbatch -> bump(index) */
  LC_HEAD_PARALLEL, /* cond beside; bump(index) -> microbatch */
  LC_HEAD_FUSED,    /* fused (bump + cond) -> microbatch */
  LC_TAIL_PROGRAMMATIC, /* microbatch -programmatic edge-> step_after */
  LC_VARIANTS
} lc_variant;
extern const char *const lc_variant_names[LC_VARIANTS];

/* start -> WHILE(body of variant v, k microbatch kernels) into *graph.
 * Returns what CUDA said to the one call it may refuse (the programmatic
 * edge); *graph is NULL then. Other failures end the program. */
cudaError_t lc_while_graph(const lc_dev *d, lc_variant v, int k,
                           cudaGraph_t *graph);
/* n microbatches of k kernels in a row, each followed by bump(scratch)
 * when extra. */
cudaGraph_t lc_unrolled_graph(const lc_dev *d, int k, int n, int extra);
/* *index after a loop of `trip` iterations. */
uint32_t lc_final_index(lc_variant v, int trip);

#ifdef __cplusplus
}
#endif

#endif

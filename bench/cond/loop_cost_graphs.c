/* bench_loop_cost's graphs: the WHILE variants and the unrolled ones.
 * Every body is built with explicit nodes except LC_TAIL_CAPTURED, which
 * records its body as the plugin does (cudaStreamBeginCaptureToGraph). */
#include <string.h>

#include "bench_cond.h"
#include "loop_cost.h"

const char *const lc_variant_names[LC_VARIANTS] = {
    "tail step (plugin)", "tail step, captured", "tail bump, cond beside",
    "head bump, cond beside", "head fused step", "tail step, programmatic"};

static cudaGraphNode_t add(cudaGraph_t g, cudaGraphNode_t after, lc_op op) {
  struct cudaKernelNodeParams p;
  memset(&p, 0, sizeof p);
  p.func = (void *)op.fn;
  p.gridDim = (dim3){op.grid, 1, 1};
  p.blockDim = (dim3){op.block, 1, 1};
  p.kernelParams = lc_op_args(&op);
  cudaGraphNode_t node = NULL;
  BC_CUDA(cudaGraphAddKernelNode(&node, g, after != NULL ? &after : NULL,
                                 after != NULL ? 1 : 0, &p));
  return node;
}

static void launch(cudaStream_t s, lc_op op) {
  BC_CUDA(cudaLaunchKernel(op.fn, (dim3){op.grid, 1, 1},
                           (dim3){op.block, 1, 1}, lc_op_args(&op), 0, s));
}

/* k kernels after `after`; the first reads *index. Returns the last. */
static cudaGraphNode_t microbatch(const lc_dev *d, cudaGraph_t g,
                                  cudaGraphNode_t after, int k,
                                  const uint32_t *index) {
  for (int j = 0; j < k; j++) {
    after = add(g, after, lc_touch(d->v, d->n, j == 0 ? d->hist : NULL,
                                   index));
  }
  return after;
}

static void captured_body(const lc_dev *d, cudaGraph_t body, int k,
                          cudaGraphConditionalHandle h) {
  BC_CUDA(cudaStreamBeginCaptureToGraph(d->stream, body, NULL, NULL, 0,
                                        cudaStreamCaptureModeThreadLocal));
  for (int j = 0; j < k; j++) {
    launch(d->stream, lc_touch(d->v, d->n, j == 0 ? d->hist : NULL,
                               d->index));
  }
  launch(d->stream, lc_step(h, d->index, d->trip));
  cudaGraph_t ended = NULL;
  BC_CUDA(cudaStreamEndCapture(d->stream, &ended)); /* the body itself */
}

/* microbatch -> step_after over a programmatic edge (a plain one when
 * there is no kernel before it). */
static cudaError_t programmatic_tail(const lc_dev *d, cudaGraph_t body, int k,
                                     cudaGraphConditionalHandle h) {
  cudaGraphNode_t last = microbatch(d, body, NULL, k, d->index);
  cudaGraphNode_t step = add(body, NULL, lc_step_after(h, d->index, d->trip));
  if (last == NULL) {
    return cudaSuccess;
  }
  cudaGraphEdgeData edge;
  memset(&edge, 0, sizeof edge);
  edge.from_port = cudaGraphKernelNodePortProgrammatic;
  edge.type = cudaGraphDependencyTypeProgrammatic;
  return cudaGraphAddDependencies(body, &last, &step, &edge, 1);
}

static cudaError_t fill_body(const lc_dev *d, cudaGraph_t body, lc_variant v,
                             int k, cudaGraphConditionalHandle h) {
  switch (v) {
    case LC_TAIL:
      (void)add(body, microbatch(d, body, NULL, k, d->index),
                lc_step(h, d->index, d->trip));
      break;
    case LC_TAIL_CAPTURED:
      captured_body(d, body, k, h);
      break;
    case LC_TAIL_PARALLEL:
      (void)add(body, NULL, lc_cond(h, d->it, d->trip));
      (void)add(body, microbatch(d, body, NULL, k, d->index),
                lc_bump(d->index));
      break;
    case LC_HEAD_PARALLEL:
      (void)add(body, NULL, lc_cond(h, d->it, d->trip));
      (void)microbatch(d, body, add(body, NULL, lc_bump(d->index)), k,
                       d->index);
      break;
    case LC_HEAD_FUSED:
      (void)microbatch(d, body, add(body, NULL,
                                    lc_fused(h, d->index, d->trip)),
                       k, d->index);
      break;
    default:
      return programmatic_tail(d, body, k, h);
  }
  return cudaSuccess;
}

static int head(lc_variant v) {
  return v == LC_HEAD_PARALLEL || v == LC_HEAD_FUSED;
}

uint32_t lc_final_index(lc_variant v, int trip) {
  return head(v) ? (uint32_t)(trip - 1) : (uint32_t)trip;
}

cudaError_t lc_while_graph(const lc_dev *d, lc_variant v, int k,
                           cudaGraph_t *graph) {
  cudaGraph_t g = NULL;
  cudaGraphConditionalHandle h = 0;
  BC_CUDA(cudaGraphCreate(&g, 0));
  BC_CUDA(cudaGraphConditionalHandleCreate(&h, g, 0, 0));
  cudaGraphNode_t start = add(
      g, NULL, lc_start(h, d->index, d->it, d->trip, head(v) ? UINT32_MAX : 0));
  struct cudaGraphNodeParams p;
  memset(&p, 0, sizeof p);
  p.type = cudaGraphNodeTypeConditional;
  p.conditional.handle = h;
  p.conditional.type = cudaGraphCondTypeWhile;
  p.conditional.size = 1;
  cudaGraphNode_t node = NULL;
  BC_CUDA(cudaGraphAddNode(&node, g, &start, NULL, 1, &p));
  const cudaError_t err = fill_body(d, p.conditional.phGraph_out[0], v, k, h);
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    BC_CUDA(cudaGraphDestroy(g));
    g = NULL;
  }
  *graph = g;
  return err;
}

cudaGraph_t lc_unrolled_graph(const lc_dev *d, int k, int n, int extra) {
  cudaGraph_t g = NULL;
  BC_CUDA(cudaGraphCreate(&g, 0));
  cudaGraphNode_t last = NULL;
  for (int i = 0; i < n; i++) {
    last = microbatch(d, g, last, k, &d->slots[i]);
    if (extra) {
      last = add(g, last, lc_bump(d->scratch));
    }
  }
  return g;
}

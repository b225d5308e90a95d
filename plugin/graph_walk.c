/* Walking a captured graph node by node, child graphs included. */
#include "graph_walk.h"

#include <stdlib.h>

#include "cuda_check.h"

/* Child graphs nest rarely and shallowly; the bound only guards the walk. */
#define MAX_DEPTH 16

/* Called for every node (child graphs' nodes too); anything but SG_OK
 * stops the walk with it: a status, or WALK_STOP (found what it looked
 * for). */
#define WALK_STOP ((sg_status)-1)
typedef sg_status (*node_fn)(sg_diag *d, cudaGraphNode_t node,
                             enum cudaGraphNodeType type, void *ctx);

static sg_status walk(sg_diag *d, cudaGraph_t graph, int depth, node_fn fn,
                      void *ctx);

static sg_status visit(sg_diag *d, cudaGraphNode_t node, int depth,
                       node_fn fn, void *ctx) {
  enum cudaGraphNodeType type;
  sg_status st = SG_CUDA(d, cudaGraphNodeGetType(node, &type));
  if (st == SG_OK) {
    st = fn(d, node, type, ctx);
  }
  if (st == SG_OK && type == cudaGraphNodeTypeGraph) {
    cudaGraph_t child = NULL;
    st = SG_CUDA(d, cudaGraphChildGraphNodeGetGraph(node, &child));
    if (st == SG_OK) {
      st = walk(d, child, depth + 1, fn, ctx);
    }
  }
  return st;
}

static sg_status walk(sg_diag *d, cudaGraph_t graph, int depth, node_fn fn,
                      void *ctx) {
  if (depth > MAX_DEPTH) {
    return sg_fail(d, SG_ERR_INTERNAL, "child graphs nest deeper than %d",
                   MAX_DEPTH);
  }
  size_t n = 0;
  sg_status st = SG_CUDA(d, cudaGraphGetNodes(graph, NULL, &n));
  if (st != SG_OK || n == 0) {
    return st;
  }
  cudaGraphNode_t *list = malloc(n * sizeof *list);
  if (list == NULL) {
    return sg_fail(d, SG_ERR_OUT_OF_MEMORY, "no memory to list %zu nodes", n);
  }
  st = SG_CUDA(d, cudaGraphGetNodes(graph, list, &n));
  for (size_t i = 0; i < n && st == SG_OK; i++) {
    st = visit(d, list[i], depth, fn, ctx);
  }
  free(list);
  return st;
}

typedef struct counts {
  uint64_t nodes, alloc_bytes;
} counts;

static sg_status count_node(sg_diag *d, cudaGraphNode_t node,
                            enum cudaGraphNodeType type, void *ctx) {
  counts *c = ctx;
  c->nodes++;
  if (type != cudaGraphNodeTypeMemAlloc) {
    return SG_OK;
  }
  struct cudaMemAllocNodeParams p;
  sg_status st = SG_CUDA(d, cudaGraphMemAllocNodeGetParams(node, &p));
  if (st == SG_OK) {
    c->alloc_bytes += p.bytesize;
  }
  return st;
}

sg_status sg_graph_walk(sg_diag *d, cudaGraph_t graph, uint64_t *nodes,
                        uint64_t *alloc_bytes) {
  counts c = {0, 0};
  sg_status st = walk(d, graph, 0, count_node, &c);
  *nodes = st == SG_OK ? c.nodes : 0;
  *alloc_bytes = st == SG_OK ? c.alloc_bytes : 0;
  return st;
}

/* What a node CUDA refuses in a conditional body is, for the message; NULL
 * for the allowed kinds. */
static const char *refused_in_body(enum cudaGraphNodeType type) {
  switch (type) {
    case cudaGraphNodeTypeKernel:
    case cudaGraphNodeTypeMemcpy:
    case cudaGraphNodeTypeMemset:
    case cudaGraphNodeTypeEmpty:
    case cudaGraphNodeTypeGraph:
    case cudaGraphNodeTypeConditional:
      return NULL;
    case cudaGraphNodeTypeHost:
      return "a host function (cudaLaunchHostFunc)";
    case cudaGraphNodeTypeWaitEvent:
      return "an event wait node (an event recorded outside the capture)";
    case cudaGraphNodeTypeEventRecord:
      return "an event record node";
    case cudaGraphNodeTypeMemAlloc:
      return "an allocation (cudaMallocAsync)";
    case cudaGraphNodeTypeMemFree:
      return "a free (cudaFreeAsync)";
    default:
      return "an external semaphore or other non-kernel node";
  }
}

static sg_status check_node(sg_diag *d, cudaGraphNode_t node,
                            enum cudaGraphNodeType type, void *ctx) {
  (void)d, (void)node;
  const char **bad = ctx;
  *bad = refused_in_body(type);
  return *bad != NULL ? WALK_STOP : SG_OK;
}

sg_status sg_graph_body_check(sg_diag *d, cudaGraph_t body,
                              const char **bad_out) {
  *bad_out = NULL;
  sg_status st = walk(d, body, 0, check_node, (void *)bad_out);
  return st == WALK_STOP ? SG_OK : st;
}

/* Counting a captured graph's nodes and its allocation nodes' bytes. */
#include "graph_walk.h"

#include <stdlib.h>

#include "cuda_check.h"

/* Child graphs nest rarely and shallowly; the bound only guards the walk. */
#define MAX_DEPTH 16

static sg_status walk(sg_diag *d, cudaGraph_t graph, int depth,
                      uint64_t *nodes, uint64_t *alloc_bytes);

static sg_status visit(sg_diag *d, cudaGraphNode_t node, int depth,
                       uint64_t *nodes, uint64_t *alloc_bytes) {
  enum cudaGraphNodeType type;
  sg_status st = SG_CUDA(d, cudaGraphNodeGetType(node, &type));
  if (st == SG_OK && type == cudaGraphNodeTypeMemAlloc) {
    struct cudaMemAllocNodeParams p;
    st = SG_CUDA(d, cudaGraphMemAllocNodeGetParams(node, &p));
    if (st == SG_OK) {
      *alloc_bytes += p.bytesize;
    }
  } else if (st == SG_OK && type == cudaGraphNodeTypeGraph) {
    cudaGraph_t child = NULL;
    st = SG_CUDA(d, cudaGraphChildGraphNodeGetGraph(node, &child));
    if (st == SG_OK) {
      st = walk(d, child, depth + 1, nodes, alloc_bytes);
    }
  }
  return st;
}

static sg_status walk(sg_diag *d, cudaGraph_t graph, int depth,
                      uint64_t *nodes, uint64_t *alloc_bytes) {
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
    st = visit(d, list[i], depth, nodes, alloc_bytes);
  }
  free(list);
  if (st == SG_OK) {
    *nodes += n;
  }
  return st;
}

sg_status sg_graph_walk(sg_diag *d, cudaGraph_t graph, uint64_t *nodes,
                        uint64_t *alloc_bytes) {
  *nodes = 0;
  *alloc_bytes = 0;
  return walk(d, graph, 0, nodes, alloc_bytes);
}

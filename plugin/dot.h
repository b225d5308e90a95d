/* Writing a graph as Graphviz DOT: dump_graph, and STEPGRAPH_DUMP_DIR's
 * automatic dump of every capture. */
#ifndef SG_DOT_H
#define SG_DOT_H

#include <cuda_runtime_api.h>
#include <stdbool.h>
#include <stddef.h>

/* Writes `graph` to `path`. On failure returns false with the system or
 * CUDA error in why[0..cap) (callers report it their own way: dump_graph
 * fails, an automatic dump only warns). */
bool sg_dot_write(cudaGraph_t graph, const char *path, char *why, size_t cap);

#endif

/* Walking a captured graph: its nodes, its allocation nodes' bytes, and
 * whether a conditional body holds only what CUDA allows there. */
#ifndef SG_GRAPH_WALK_H
#define SG_GRAPH_WALK_H

#include <cuda_runtime_api.h>
#include <stdint.h>

#include "error.h"

/* Counts the nodes of `graph` (child graphs included) and the bytes of its
 * memory-allocation nodes. The device must be current. */
sg_status sg_graph_walk(sg_diag *d, cudaGraph_t graph, uint64_t *nodes,
                        uint64_t *alloc_bytes);

/* CUDA allows only kernel, memset, memcpy, empty, child-graph and
 * conditional nodes in a conditional body. *bad_out: NULL when `body`
 * (child graphs included) keeps to that, else what its first other node
 * is, in words ("a host function (cudaLaunchHostFunc)"). */
sg_status sg_graph_body_check(sg_diag *d, cudaGraph_t body,
                              const char **bad_out);

#endif

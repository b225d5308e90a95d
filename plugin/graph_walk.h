/* Counting a captured graph's nodes and its allocation nodes' bytes. */
#ifndef SG_GRAPH_WALK_H
#define SG_GRAPH_WALK_H

#include <cuda_runtime_api.h>
#include <stdint.h>

#include "error.h"

/* Counts the nodes of `graph` (child graphs included) and the bytes of its
 * memory-allocation nodes. The device must be current. */
sg_status sg_graph_walk(sg_diag *d, cudaGraph_t graph, uint64_t *nodes,
                        uint64_t *alloc_bytes);

#endif

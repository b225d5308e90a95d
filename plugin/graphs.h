/* The graph cache: per key, the captured graph, its executable and the step
 * driver's progress; the capture in progress; eviction under the session's
 * graph_mem_budget. The engine's entries (capture.c, replay.c, driver.c)
 * share the functions declared at the end. */
#ifndef SG_GRAPHS_H
#define SG_GRAPHS_H

#include <cuda_runtime_api.h>
#include <stdbool.h>
#include <stdint.h>

#include "stepgraph.h"

typedef struct sg_session sg_session;

#define SG_GRAPH_REASON_CAPACITY 440

/* One key. An entry is made the first time a key is captured or driven and
 * lives until session_destroy; eviction and invalidate drop its graph and
 * executable but keep the entry (its driver progress, its replay count). */
typedef struct sg_graph {
  uint64_t key;
  cudaGraph_t graph;    /* the last successful capture; NULL when none */
  cudaGraphExec_t exec; /* its executable; NULL when none */
  uint64_t nodes;       /* of `graph`, child graphs included */
  uint64_t alloc_bytes; /* of its memory-allocation nodes */
  uint64_t replays;     /* graph launches of this key */
  uint64_t last_used;   /* LRU clock: captures and launches */
  uint64_t steps;       /* step driver calls that ran the step */
  bool eager_only;      /* capture failed, or graphs are disabled */
  bool eager_logged;    /* `reason` has been logged */
  char reason[SG_GRAPH_REASON_CAPACITY]; /* why eager_only */
} sg_graph;

typedef struct sg_graphs {
  uint64_t capturing_key;     /* valid in SG_STATE_CAPTURING */
  sg_stream capturing_stream; /* likewise */
  sg_graph *capturing;        /* likewise: the key's entry */
  double capture_start_ms;    /* likewise: when capture_begin began it */
  uint64_t rng_offset_at_begin; /* restored when the capture fails */
  uint64_t capture_range;      /* NVTX range id (nvtxRangeId_t) */

  sg_graph **slots;    /* open addressing, linear probing; NULL: empty */
  uint32_t slot_count; /* a power of two, or 0 before the first key */
  uint32_t key_count;
  sg_graph *last;      /* the entry found last (replay's fast path) */
  uint64_t clock;      /* LRU clock */
  bool disabled;       /* STEPGRAPH_DISABLE=1 when the session was made */
  bool budget_warned;  /* a single graph over the budget was reported */
} sg_graphs;

/* The key's entry if it has a graph or is eager-only; NULL otherwise (never
 * captured, evicted or invalidated). */
sg_graph *sg_graphs_find(sg_graphs *g, uint64_t key);

sg_status sg_graphs_open(sg_graphs *g, sg_session *s);
/* Destroys every executable, then every graph; ends a capture left open. */
void sg_graphs_close(sg_graphs *g, sg_session *s);

/* --- For the engine (capture.c, replay.c, driver.c, stats.c) ------------ */

/* The key's entry whatever it holds; NULL if the key was never seen. */
sg_graph *sg_graphs_lookup(sg_graphs *g, uint64_t key);

/* The key's entry, made if missing (SG_ERR_OUT_OF_MEMORY if it cannot). */
sg_status sg_graphs_get(sg_graphs *g, sg_session *s, uint64_t key,
                        sg_graph **out);

/* Destroys the entry's executable and graph (the device must be current);
 * the entry stays, with no graph. */
void sg_graph_drop(sg_graph *e);

/* Makes the entry eager-only with `reason` (printf-style), dropping any
 * graph it had. */
void sg_graph_make_eager(sg_graph *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The SG_RUN_EAGERLY answer for an eager-only entry: counts it, sets the
 * detail message, logs the reason the first time only. */
sg_status sg_graphs_answer_eager(sg_session *s, sg_graph *e);

/* Live graphs, their nodes and allocation-node bytes, over all keys. */
void sg_graphs_totals(const sg_graphs *g, uint64_t *graphs, uint64_t *nodes,
                      uint64_t *alloc_bytes);

/* Before `keep` gets a graph of `need` allocation-node bytes: evicts the
 * least recently used other graphs with allocation nodes until all fit in
 * config.graph_mem_budget (0: no budget), then trims the device's graph
 * memory. The device must be current. */
sg_status sg_graphs_make_room(sg_graphs *g, sg_session *s, sg_graph *keep,
                              uint64_t need);

/* Returns idle graph memory of the session's device to the system. */
sg_status sg_graphs_trim(sg_session *s);

/* Counts the nodes of `graph` (child graphs included) and the bytes of its
 * memory-allocation nodes (graph_walk.c). */
sg_status sg_graph_walk(sg_session *s, cudaGraph_t graph, uint64_t *nodes,
                        uint64_t *alloc_bytes);

/* Capture: begins capturing `key` on `stream` in sg_capture_mode `mode`
 * (the session must be READY; it becomes CAPTURING). SG_RUN_EAGERLY when
 * graphs are disabled or the key is eager-only. *entry_out: the key's
 * entry (also on SG_RUN_EAGERLY). */
sg_status sg_engine_begin(sg_session *s, uint64_t key, sg_stream stream,
                          uint32_t mode, sg_graph **entry_out);

/* Ends the capture in progress and instantiates or updates its graph; on a
 * failed capture, SG_ERR_CAPTURE_FAILED and the key becomes eager-only. */
sg_status sg_engine_end(sg_session *s);

/* Ends the capture in progress and throws it away (the step callback gave
 * up). *invalidated_out: whether CUDA had already invalidated it; then the
 * key is eager-only, as after a failed capture_end. */
void sg_engine_abandon(sg_session *s, bool *invalidated_out);

/* One launch of the entry's executable on `stream`, after the static-source
 * copies (sources may be NULL when count is 0). */
sg_status sg_engine_launch(sg_session *s, sg_graph *e, sg_stream stream,
                           const void *const *sources, uint32_t count);

/* Milliseconds of a monotonic clock. */
double sg_now_ms(void);

#endif

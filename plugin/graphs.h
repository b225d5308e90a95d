/* The graph cache: per key, the captured graph, its executable and the step
 * driver's progress; the capture in progress; eviction under the session's
 * graph_mem_budget. The capture/replay engine (engine.h) fills it. */
#ifndef SG_GRAPHS_H
#define SG_GRAPHS_H

#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "error.h"

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
  uint64_t steps;       /* step driver calls that ran the step, and
                           step_plan calls */
  uint64_t captures;    /* successful captures of this key */
  uint64_t conditionals; /* of `graph`: IF and WHILE nodes */
  bool eager_only;      /* capture failed, or graphs are disabled */
  bool eager_logged;    /* `reason` has been logged */
  char reason[SG_GRAPH_REASON_CAPACITY]; /* why eager_only */
} sg_graph;

typedef struct sg_graphs {
  sg_diag *diag;     /* the session's, for failures */
  int device;        /* the session's, for trims */
  uint64_t budget;   /* config.graph_mem_budget; 0: none */

  sg_graph *capturing;        /* the capture in progress's entry, or NULL */
  uint64_t capturing_key;     /* valid while capturing != NULL */
  sg_stream capturing_stream; /* likewise */
  pthread_t capturing_thread; /* likewise: the thread that began it */
  double capture_start_ms;    /* likewise: when capture_begin began it */
  uint64_t rng_offset_at_begin; /* restored when the capture fails */
  uint64_t capture_range;      /* NVTX range id (nvtxRangeId_t) */

  sg_graph **slots;    /* open addressing, linear probing; NULL: empty */
  uint32_t slot_count; /* a power of two, or 0 before the first key */
  uint32_t key_count;
  sg_graph *last;      /* the entry found last (replay's fast path) */
  uint64_t clock;      /* LRU clock */
  uint64_t evictions;  /* graphs dropped to fit the budget */
  bool disabled;       /* STEPGRAPH_DISABLE was set when the session was made */
  bool budget_warned;  /* a single graph over the budget was reported */
} sg_graphs;

/* Keeps diag, device and budget; `disabled` is the caller's to set. */
sg_status sg_graphs_open(sg_graphs *g, sg_diag *diag, int device,
                         uint64_t budget);
/* Ends a capture left open (so the host's stream is usable), destroys every
 * executable, then every graph. The device must be current. */
void sg_graphs_close(sg_graphs *g);

/* The key's entry if it has a graph or is eager-only; NULL otherwise (never
 * captured, evicted or invalidated). */
sg_graph *sg_graphs_find(sg_graphs *g, uint64_t key);

/* The key's entry whatever it holds; NULL if the key was never seen. */
sg_graph *sg_graphs_lookup(sg_graphs *g, uint64_t key);

/* The key's entry, made if missing (SG_ERR_OUT_OF_MEMORY if it cannot);
 * when graphs are disabled it is made eager-only, saying so. */
sg_status sg_graphs_get(sg_graphs *g, uint64_t key, sg_graph **out);

/* Destroys the entry's executable and graph (the device must be current);
 * the entry stays, with no graph. */
void sg_graph_drop(sg_graph *e);

/* Makes the entry eager-only with `reason` (printf-style), dropping any
 * graph it had. */
void sg_graph_make_eager(sg_graph *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Over all keys' live graphs. */
typedef struct sg_graph_totals {
  uint64_t graphs, nodes, alloc_bytes, conditionals;
} sg_graph_totals;
sg_graph_totals sg_graphs_totals(const sg_graphs *g);

/* Before `keep` gets a graph of `need` allocation-node bytes: evicts the
 * least recently used other graphs with allocation nodes until all fit in
 * the budget (0: no budget), then trims the device's graph memory. The
 * device must be current. */
sg_status sg_graphs_make_room(sg_graphs *g, sg_graph *keep, uint64_t need);

/* Returns idle graph memory of the session's device to the system. */
sg_status sg_graphs_trim(sg_graphs *g);

#endif

/* The graph cache: key table, totals, eviction, trim. */
#include "graphs.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "cuda_check.h"

#define FIRST_SLOT_COUNT 16u

static uint32_t slot_of(uint64_t key, uint32_t slot_count) {
  /* Fibonacci hashing: keys are often small consecutive integers. */
  return (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & (slot_count - 1);
}

sg_graph *sg_graphs_lookup(sg_graphs *g, uint64_t key) {
  if (g->last != NULL && g->last->key == key) {
    return g->last;
  }
  if (g->slot_count == 0) {
    return NULL;
  }
  for (uint32_t i = slot_of(key, g->slot_count);; i = (i + 1) & (g->slot_count - 1)) {
    sg_graph *e = g->slots[i];
    if (e == NULL) {
      return NULL;
    }
    if (e->key == key) {
      g->last = e;
      return e;
    }
  }
}

sg_graph *sg_graphs_find(sg_graphs *g, uint64_t key) {
  sg_graph *e = sg_graphs_lookup(g, key);
  return e != NULL && (e->exec != NULL || e->eager_only) ? e : NULL;
}

static void insert(sg_graph **slots, uint32_t slot_count, sg_graph *e) {
  uint32_t i = slot_of(e->key, slot_count);
  while (slots[i] != NULL) {
    i = (i + 1) & (slot_count - 1);
  }
  slots[i] = e;
}

/* Keeps the table at most half full. */
static sg_status grow(sg_graphs *g) {
  if ((g->key_count + 1) * 2 <= g->slot_count) {
    return SG_OK;
  }
  uint32_t count = g->slot_count == 0 ? FIRST_SLOT_COUNT : g->slot_count * 2;
  sg_graph **slots = count > g->slot_count ? calloc(count, sizeof *slots)
                                           : NULL; /* NULL: 2^31 keys */
  if (slots == NULL) {
    return sg_fail(g->diag, SG_ERR_OUT_OF_MEMORY,
                   "cannot grow the graph table to %u keys", count / 2);
  }
  for (uint32_t i = 0; i < g->slot_count; i++) {
    if (g->slots[i] != NULL) {
      insert(slots, count, g->slots[i]);
    }
  }
  free(g->slots);
  g->slots = slots;
  g->slot_count = count;
  return SG_OK;
}

static sg_status make_entry(sg_graphs *g, uint64_t key, sg_graph **out) {
  sg_status st = grow(g);
  sg_graph *e = st == SG_OK ? calloc(1, sizeof *e) : NULL;
  if (st == SG_OK && e == NULL) {
    st = sg_fail(g->diag, SG_ERR_OUT_OF_MEMORY, "cannot allocate key %llu's entry",
                 (unsigned long long)key);
  }
  if (st == SG_OK) {
    e->key = key;
    insert(g->slots, g->slot_count, e);
    g->key_count++;
    g->last = e;
    *out = e;
  }
  return st;
}

sg_status sg_graphs_get(sg_graphs *g, uint64_t key, sg_graph **out) {
  *out = sg_graphs_lookup(g, key);
  sg_status st = *out != NULL ? SG_OK : make_entry(g, key, out);
  if (st == SG_OK && g->disabled && !(*out)->eager_only) {
    sg_graph_make_eager(*out, "graphs are disabled (STEPGRAPH_DISABLE)");
  }
  return st;
}

sg_status sg_graphs_open(sg_graphs *g, sg_diag *diag, int device,
                         uint64_t budget) {
  g->diag = diag;
  g->device = device;
  g->budget = budget;
  return SG_OK;
}

void sg_graph_drop(sg_graph *e) {
  /* Executable first: it was made from the graph. An executable still in
   * flight is freed by CUDA when its launches complete. */
  if (e->exec != NULL) {
    (void)cudaGraphExecDestroy(e->exec);
    e->exec = NULL;
  }
  if (e->graph != NULL) {
    (void)cudaGraphDestroy(e->graph);
    e->graph = NULL;
  }
  e->nodes = 0;
  e->alloc_bytes = 0;
  e->conditionals = 0;
}

void sg_graphs_close(sg_graphs *g) {
  if (g->capturing != NULL) {
    /* Destroyed mid-capture: end it so the host's stream is usable. */
    cudaGraph_t partial = NULL;
    (void)cudaStreamEndCapture((cudaStream_t)g->capturing_stream, &partial);
    if (partial != NULL) {
      (void)cudaGraphDestroy(partial);
    }
    (void)cudaGetLastError();
    g->capturing = NULL;
  }
  bool had_alloc = false;
  for (uint32_t i = 0; i < g->slot_count; i++) {
    if (g->slots[i] != NULL) {
      had_alloc = had_alloc || g->slots[i]->alloc_bytes > 0;
      sg_graph_drop(g->slots[i]);
      free(g->slots[i]);
    }
  }
  free(g->slots);
  g->slots = NULL;
  g->slot_count = 0;
  g->key_count = 0;
  g->last = NULL;
  if (had_alloc) {
    (void)sg_graphs_trim(g);
  }
}

void sg_graph_make_eager(sg_graph *e, const char *fmt, ...) {
  sg_graph_drop(e);
  e->eager_only = true;
  e->eager_logged = false;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(e->reason, sizeof e->reason, fmt, ap);
  va_end(ap);
}

sg_graph_totals sg_graphs_totals(const sg_graphs *g) {
  sg_graph_totals t = {0, 0, 0, 0};
  for (uint32_t i = 0; i < g->slot_count; i++) {
    const sg_graph *e = g->slots[i];
    if (e != NULL && e->exec != NULL) {
      t.graphs++;
      t.nodes += e->nodes;
      t.alloc_bytes += e->alloc_bytes;
      t.conditionals += e->conditionals;
    }
  }
  return t;
}

sg_status sg_graphs_trim(sg_graphs *g) {
  return SG_CUDA(g->diag, cudaDeviceGraphMemTrim(g->device));
}

/* The least recently used graph with allocation nodes, other than keep. */
static sg_graph *lru_victim(sg_graphs *g, const sg_graph *keep,
                            uint64_t *others_bytes) {
  sg_graph *victim = NULL;
  *others_bytes = 0;
  for (uint32_t i = 0; i < g->slot_count; i++) {
    sg_graph *e = g->slots[i];
    if (e == NULL || e == keep || e->exec == NULL || e->alloc_bytes == 0) {
      continue;
    }
    *others_bytes += e->alloc_bytes;
    if (victim == NULL || e->last_used < victim->last_used) {
      victim = e;
    }
  }
  return victim;
}

sg_status sg_graphs_make_room(sg_graphs *g, sg_graph *keep, uint64_t need) {
  const uint64_t budget = g->budget;
  if (budget == 0) {
    return SG_OK;
  }
  uint32_t evicted = 0;
  uint64_t others = 0;
  for (;;) {
    sg_graph *victim = lru_victim(g, keep, &others);
    if (victim == NULL || others + need <= budget) {
      break;
    }
    sg_log(&g->diag->log, SG_LOG_INFO,
           "evicting key %llu's graph (%llu allocation bytes, least recently "
           "used) to fit key %llu's %llu bytes in graph_mem_budget %llu",
           (unsigned long long)victim->key,
           (unsigned long long)victim->alloc_bytes,
           (unsigned long long)keep->key, (unsigned long long)need,
           (unsigned long long)budget);
    sg_graph_drop(victim);
    g->evictions++;
    evicted++;
  }
  if (need > budget && !g->budget_warned) {
    g->budget_warned = true;
    sg_log(&g->diag->log, SG_LOG_WARN,
           "key %llu's graph alone has %llu bytes of allocation nodes, more "
           "than graph_mem_budget %llu; it is kept",
           (unsigned long long)keep->key, (unsigned long long)need,
           (unsigned long long)budget);
  }
  return evicted > 0 ? sg_graphs_trim(g) : SG_OK;
}

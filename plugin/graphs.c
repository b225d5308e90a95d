/* The graph cache: key table, eager-only answers, totals, eviction, trim. */
#define _POSIX_C_SOURCE 200809L
#include "graphs.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuda_check.h"
#include "rng_advance.h"
#include "static_copy.h"
#include "session.h"

#define FIRST_SLOT_COUNT 16u

double sg_now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

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
static sg_status grow(sg_graphs *g, sg_session *s) {
  if ((g->key_count + 1) * 2 <= g->slot_count) {
    return SG_OK;
  }
  uint32_t count = g->slot_count == 0 ? FIRST_SLOT_COUNT : g->slot_count * 2;
  sg_graph **slots = count > g->slot_count ? calloc(count, sizeof *slots)
                                           : NULL; /* NULL: 2^31 keys */
  if (slots == NULL) {
    return sg_fail(s, SG_ERR_OUT_OF_MEMORY,
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

sg_status sg_graphs_get(sg_graphs *g, sg_session *s, uint64_t key,
                        sg_graph **out) {
  *out = sg_graphs_lookup(g, key);
  if (*out != NULL) {
    return SG_OK;
  }
  sg_status st = grow(g, s);
  sg_graph *e = st == SG_OK ? calloc(1, sizeof *e) : NULL;
  if (st == SG_OK && e == NULL) {
    st = sg_fail(s, SG_ERR_OUT_OF_MEMORY, "cannot allocate key %llu's entry",
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

sg_status sg_graphs_open(sg_graphs *g, sg_session *s) {
  const char *v = getenv("STEPGRAPH_DISABLE");
  g->disabled = v != NULL && strcmp(v, "1") == 0;
  if (g->disabled) {
    sg_log(&s->log, SG_LOG_INFO,
           "STEPGRAPH_DISABLE=1: graphs are off; every step runs eagerly");
  }
  /* The plugin's kernels may first launch inside a capture (ours or the
   * host's), and with lazy loading that is where their modules would load:
   * load them now. */
  if (s->validation_only) {
    return SG_OK;
  }
  sg_status st = SG_CUDA(s, sg_k_rng_load());
  if (st == SG_OK) {
    st = SG_CUDA(s, sg_k_copy_load());
  }
  if (st == SG_OK) {
    st = SG_CUDA(s, sg_k_refresh_load());
  }
  return st;
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
}

void sg_graphs_close(sg_graphs *g, sg_session *s) {
  if (s->state == SG_STATE_CAPTURING) {
    /* Destroyed mid-capture: end it so the host's stream is usable. */
    cudaGraph_t partial = NULL;
    (void)cudaStreamEndCapture((cudaStream_t)g->capturing_stream, &partial);
    if (partial != NULL) {
      (void)cudaGraphDestroy(partial);
    }
    (void)cudaGetLastError();
    s->state = SG_STATE_READY;
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
    (void)sg_graphs_trim(s);
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

sg_status sg_graphs_answer_eager(sg_session *s, sg_graph *e) {
  char message[SG_ERROR_CAPACITY];
  snprintf(message, sizeof message, "%s: key %llu runs eagerly: %s",
           sg_current_entry(), (unsigned long long)e->key, e->reason);
  sg_error_set(&s->error, message);
  s->stats.eager_runs++;
  if (!e->eager_logged) {
    e->eager_logged = true;
    sg_log(&s->log, SG_LOG_INFO, "%s", message);
  }
  return SG_RUN_EAGERLY;
}

void sg_graphs_totals(const sg_graphs *g, uint64_t *graphs, uint64_t *nodes,
                      uint64_t *alloc_bytes) {
  *graphs = *nodes = *alloc_bytes = 0;
  for (uint32_t i = 0; i < g->slot_count; i++) {
    const sg_graph *e = g->slots[i];
    if (e != NULL && e->exec != NULL) {
      (*graphs)++;
      *nodes += e->nodes;
      *alloc_bytes += e->alloc_bytes;
    }
  }
}

sg_status sg_graphs_trim(sg_session *s) {
  return SG_CUDA(s, cudaDeviceGraphMemTrim(s->device));
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

sg_status sg_graphs_make_room(sg_graphs *g, sg_session *s, sg_graph *keep,
                              uint64_t need) {
  const uint64_t budget = s->config.graph_mem_budget;
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
    sg_log(&s->log, SG_LOG_INFO,
           "evicting key %llu's graph (%llu allocation bytes, least recently "
           "used) to fit key %llu's %llu bytes in graph_mem_budget %llu",
           (unsigned long long)victim->key,
           (unsigned long long)victim->alloc_bytes,
           (unsigned long long)keep->key, (unsigned long long)need,
           (unsigned long long)budget);
    sg_graph_drop(victim);
    s->stats.evictions++;
    evicted++;
  }
  if (need > budget && !g->budget_warned) {
    g->budget_warned = true;
    sg_log(&s->log, SG_LOG_WARN,
           "key %llu's graph alone has %llu bytes of allocation nodes, more "
           "than graph_mem_budget %llu; it is kept",
           (unsigned long long)keep->key, (unsigned long long)need,
           (unsigned long long)budget);
  }
  return evicted > 0 ? sg_graphs_trim(s) : SG_OK;
}

#include "run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"
#include "cond_step.h"

/* The graph key of the training step (one shape, one key). */
#define TR_KEY 1u
/* Eager steps that pay one-time costs (module loads, first cuBLASLt calls)
 * and are left out of the eager median. */
#define TR_COLD_STEPS 2u

typedef enum step_kind { KIND_EAGER, KIND_FIRST_LAUNCH, KIND_REPLAY } step_kind;

/* One event recorded before each step (and one after the last), read once
 * the run is over. */
typedef struct timeline {
  cudaEvent_t *ev;
  uint8_t *kind;
  uint32_t next;
} timeline;

static void mark(timeline *tl, tr_trainer *t, step_kind kind) {
  SG_CHECK_CUDA(cudaEventRecord(tl->ev[tl->next], t->stream));
  tl->kind[tl->next++] = (uint8_t)kind;
}

/* The timeline's next slot is the step's index. An eager step copies its
 * learning rate itself; replay and the driver copy it (host sources). */
static void eager_step(timeline *tl, tr_trainer *t) {
  const uint32_t step = tl->next;
  mark(tl, t, KIND_EAGER);
  tr_schedule_copy(&t->schedule, step, t->m.lr, t->stream);
  tr_cond_eager_start(t, t->stream);
  tr_step_enqueue(t, t->stream);
}

static void replay_step(timeline *tl, tr_trainer *t, step_kind kind) {
  const void *rate = tr_schedule_source(&t->schedule, tl->next);
  sg_replay_args a;
  memset(&a, 0, sizeof a);
  a.struct_size = sizeof a;
  a.key = TR_KEY;
  a.stream = t->stream;
  a.static_sources = &rate;
  a.static_source_count = 1;
  a.flags = SG_REPLAY_HOST_SOURCES;
  mark(tl, t, kind);
  CK_SG(t->api, t->session, t->api->replay(t->session, &a));
}

static void note_fallback(tr_trainer *t, tr_run_result *r, const char *what) {
  char detail[400] = "";
  t->api->last_error(t->session, detail, sizeof detail, NULL);
  snprintf(r->fallback, sizeof r->fallback, "%s: %s", what, detail);
  fprintf(stderr, "fp8_trainer: %s; running eagerly\n", r->fallback);
}

/* Records one step into the key's graph. False (with the reason noted) when
 * graphs are off or the capture failed: the host then runs eagerly. */
static bool capture(tr_trainer *t, tr_run_result *r) {
  sg_capture_args c;
  memset(&c, 0, sizeof c);
  c.struct_size = sizeof c;
  c.key = TR_KEY;
  c.stream = t->stream;
  CK_SG(t->api, t->session, t->api->pre_capture(t->session, t->stream));
  sg_status st = t->api->capture_begin(t->session, &c);
  if (st == SG_RUN_EAGERLY) {
    note_fallback(t, r, "capture_begin answered SG_RUN_EAGERLY");
    return false;
  }
  CK_SG(t->api, t->session, st);
  tr_step_enqueue(t, t->stream); /* recorded, not run */
  st = t->api->capture_end(t->session, &c);
  if (st == SG_ERR_CAPTURE_FAILED || st == SG_RUN_EAGERLY) {
    note_fallback(t, r, st == SG_RUN_EAGERLY ? "another rank's capture failed"
                                             : "capture failed");
    return false;
  }
  CK_SG(t->api, t->session, st);
  return true;
}

/* graph and stale: warm-up eagerly, capture one step, replay the rest (the
 * captured step itself runs at the first replay). */
static void run_graph(tr_trainer *t, const tr_options *o, timeline *tl,
                      tr_run_result *r) {
  uint32_t i = 0;
  for (; i < o->warmup; i++) {
    eager_step(tl, t);
  }
  r->mem_eager = tr_device_bytes_in_use();
  if (!capture(t, r)) {
    for (; i < o->steps; i++) {
      eager_step(tl, t);
    }
    return;
  }
  replay_step(tl, t, KIND_FIRST_LAUNCH);
  for (i++; i < o->steps; i++) {
    replay_step(tl, t, KIND_REPLAY);
  }
}

static sg_status driver_callback(void *user, sg_stream stream,
                                  const sg_step_context *ctx) {
  (void)ctx;
  tr_step_enqueue(user, stream);
  return SG_OK;
}

/* driver: every step through the plugin's step driver and our callback. */
static void run_driver(tr_trainer *t, const tr_options *o, timeline *tl,
                       tr_run_result *r) {
  static const step_kind kind_of[] = {
      [SG_STEP_WARMUP] = KIND_EAGER, [SG_STEP_CAPTURED] = KIND_FIRST_LAUNCH,
      [SG_STEP_REPLAYED] = KIND_REPLAY, [SG_STEP_EAGER] = KIND_EAGER};
  for (uint32_t i = 0; i < o->steps; i++) {
    const void *rate = tr_schedule_source(&t->schedule, i);
    sg_step_args a;
    memset(&a, 0, sizeof a);
    a.struct_size = sizeof a;
    a.key = TR_KEY;
    a.stream = t->stream;
    a.fn = driver_callback;
    a.user = t;
    a.static_sources = &rate;
    a.static_source_count = 1;
    a.flags = SG_STEP_HOST_SOURCES;
    const uint32_t at = tl->next;
    mark(tl, t, KIND_EAGER);
    CK_SG(t->api, t->session, t->api->step(t->session, &a));
    tl->kind[at] = (uint8_t)kind_of[a.outcome_out];
    /* Once, after the last warm-up step: the query is host work that
     * would otherwise sit inside the timed eager steps. */
    if (a.outcome_out == SG_STEP_WARMUP && i + 1 == o->warmup) {
      r->mem_eager = tr_device_bytes_in_use();
    }
  }
}

/* Medians of the eager steps (less the cold ones) and of the replays after
 * the first launch. */
static void summarise(const timeline *tl, uint32_t steps, uint32_t skip_eager,
                      tr_run_result *r) {
  double *eager = TR_CALLOC(steps, sizeof *eager, "step times");
  double *graph = TR_CALLOC(steps, sizeof *graph, "step times");
  uint32_t ne = 0, ng = 0;
  for (uint32_t i = 0; i < steps; i++) {
    float ms = 0.0f;
    SG_CHECK_CUDA(cudaEventElapsedTime(&ms, tl->ev[i], tl->ev[i + 1]));
    if (tl->kind[i] == KIND_EAGER && i >= skip_eager) {
      eager[ne++] = ms;
    } else if (tl->kind[i] == KIND_REPLAY) {
      graph[ng++] = ms;
    }
  }
  r->eager_ms = tr_median(eager, ne);
  r->graph_ms = tr_median(graph, ng);
  r->eager_samples = ne;
  r->graph_samples = ng;
  free(eager);
  free(graph);
}

static void finish(tr_trainer *t, timeline *tl, const tr_options *o,
                   tr_mode mode, tr_run_result *r) {
  SG_CHECK_CUDA(cudaEventRecord(tl->ev[tl->next], t->stream));
  SG_CHECK_CUDA(cudaStreamSynchronize(t->stream));
  summarise(tl, o->steps, mode == TR_MODE_EAGER ? o->warmup : TR_COLD_STEPS,
            r);
  r->losses = TR_CALLOC(o->steps, sizeof(float), "losses");
  SG_CHECK_CUDA(cudaMemcpy(r->losses, t->m.losses, o->steps * sizeof(float),
                           cudaMemcpyDeviceToHost));
  r->launches = t->launches;
  sg_graph_info gi;
  memset(&gi, 0, sizeof gi);
  gi.struct_size = sizeof gi;
  if (mode != TR_MODE_EAGER &&
      t->api->graph_info(t->session, TR_KEY, &gi) == SG_OK) {
    r->graph_nodes = gi.nodes;
    r->mem_graph = tr_device_bytes_in_use();
  }
  if (mode == TR_MODE_EAGER) {
    r->mem_eager = tr_device_bytes_in_use();
  }
}

void tr_run(tr_trainer *t, tr_mode mode, const tr_options *o,
            tr_run_result *r) {
  memset(r, 0, sizeof *r);
  r->mode = mode;
  r->steps = o->steps;
  timeline tl = {TR_CALLOC(o->steps + 1u, sizeof(cudaEvent_t), "step events"),
                 TR_CALLOC(o->steps, 1, "step kinds"), 0};
  for (uint32_t i = 0; i <= o->steps; i++) {
    SG_CHECK_CUDA(cudaEventCreate(&tl.ev[i]));
  }
  if (mode == TR_MODE_EAGER) {
    for (uint32_t i = 0; i < o->steps; i++) {
      eager_step(&tl, t);
    }
  } else if (mode == TR_MODE_DRIVER) {
    run_driver(t, o, &tl, r);
  } else {
    run_graph(t, o, &tl, r);
  }
  finish(t, &tl, o, mode, r);
  for (uint32_t i = 0; i <= o->steps; i++) {
    SG_CHECK_CUDA(cudaEventDestroy(tl.ev[i]));
  }
  free(tl.ev);
  free(tl.kind);
}

void tr_run_free(tr_run_result *r) {
  free(r->losses);
  r->losses = NULL;
}

size_t tr_device_bytes_in_use(void) {
  size_t free_bytes = 0, total = 0;
  SG_CHECK_CUDA(cudaMemGetInfo(&free_bytes, &total));
  return total - free_bytes;
}

static int compare_doubles(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double tr_median(double *ms, uint32_t n) {
  if (n == 0) {
    return -1.0;
  }
  qsort(ms, n, sizeof *ms, compare_doubles);
  return n % 2 ? ms[n / 2] : 0.5 * (ms[n / 2 - 1] + ms[n / 2]);
}

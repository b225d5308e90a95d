/* Conditional regions inside the plugin's capture.
 *
 * A stream records into one graph at a time, and a region's work must land
 * in its node's body. So opening a region ends the capture's segment (the
 * first end makes the step's graph the session's), adds the conditional
 * node after that segment's last work, and resumes capture on the same
 * stream into the node's body (cudaStreamBeginCaptureToGraph); closing it
 * ends the body and resumes capture into the parent after the node. The
 * host keeps launching on its one stream throughout, and what it launches
 * is recorded, never run, until replay.
 *
 * A failed CUDA call fails the capture, not the entry: the reason is kept
 * for capture_end, and if the stream stopped recording a throwaway capture
 * takes over, so that the rest of the host's step is still not run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cond.h"
#include "conditional.h"
#include "cuda_check.h"
#include "graph_walk.h"

static cudaStream_t capture_stream(const sg_session *s) {
  return (cudaStream_t)s->graphs.capturing_stream;
}

static enum cudaStreamCaptureMode mode_of(const sg_conds *c) {
  return (enum cudaStreamCaptureMode)c->mode;
}

/* Keeps the stream recording after a failure: an active segment goes on;
 * an invalidated one (whose launches would fail in the host's hands) or
 * none is replaced by a throwaway capture. */
static void keep_recording(sg_session *s) {
  sg_conds *c = &s->conds;
  enum cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  (void)cudaGetLastError();
  (void)cudaStreamIsCapturing(capture_stream(s), &status);
  if (status == cudaStreamCaptureStatusActive) {
    return;
  }
  if (status == cudaStreamCaptureStatusInvalidated) {
    cudaGraph_t ended = NULL;
    (void)cudaStreamEndCapture(capture_stream(s), &ended);
    if (ended != NULL && c->seg == SG_SEG_JUNK) {
      (void)cudaGraphDestroy(ended); /* bodies and outer: destroy_outer */
    }
  }
  c->seg = cudaStreamBeginCapture(capture_stream(s), mode_of(c)) == cudaSuccess
               ? SG_SEG_JUNK
               : SG_SEG_NONE;
  (void)cudaGetLastError();
}

static void fail_capture(sg_session *s, const char *reason) {
  sg_conds_fail(&s->conds, reason);
  keep_recording(s);
}

/* A failed call: the capture fails naming it. */
static void fail_call(sg_session *s, const char *call, cudaError_t err) {
  char reason[SG_COND_REASON_CAPACITY];
  snprintf(reason, sizeof reason, "%s: %s failed with %s (%s)",
           sg_current_entry(), call, cudaGetErrorName(err),
           cudaGetErrorString(err));
  fail_capture(s, reason);
}

/* Ends the segment being recorded. Only the first segment's graph is
 * new (it becomes the session's: `outer`); later segments record into
 * graphs the session already holds, whatever CUDA hands back for them. */
static cudaError_t end_segment(sg_session *s) {
  sg_conds *c = &s->conds;
  cudaGraph_t graph = NULL;
  cudaError_t err = cudaStreamEndCapture(capture_stream(s), &graph);
  if (err == cudaSuccess && c->seg == SG_SEG_FIRST) {
    c->outer = graph; /* CUDA's until now; the session's from here on */
    err = graph != NULL ? cudaSuccess : cudaErrorStreamCaptureInvalidated;
  }
  c->seg = SG_SEG_NONE;
  return err;
}

static cudaError_t resume(sg_session *s, cudaGraph_t graph,
                          const cudaGraphNode_t *after, size_t n,
                          sg_segment seg) {
  sg_conds *c = &s->conds;
  cudaError_t err = cudaStreamBeginCaptureToGraph(capture_stream(s), graph,
                                                  after, NULL, n, mode_of(c));
  if (err == cudaSuccess) {
    c->seg = seg;
  }
  return err;
}

/* The graph the stream records into now (active capture only). */
static cudaError_t recording_graph(sg_session *s, cudaGraph_t *graph) {
  enum cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  cudaError_t err = cudaStreamGetCaptureInfo(capture_stream(s), &status, NULL,
                                             graph, NULL, NULL, NULL);
  if (err == cudaSuccess && status != cudaStreamCaptureStatusActive) {
    err = cudaErrorStreamCaptureInvalidated;
  }
  return err;
}

/* The condition kernel, recorded where the node will follow. */
static cudaError_t set_condition(sg_session *s, const sg_region *r,
                                 const int32_t *value) {
  return r->kind == SG_REGION_GUARD
             ? sg_k_cond_if(r->handle, value, capture_stream(s))
             : sg_k_cond_loop_start(r->handle,
                                    sg_conds_word(&s->conds, r->word), value,
                                    capture_stream(s));
}

/* The nodes the next recorded node would depend on, copied (the array
 * CUDA returns lives only until the stream's next call). */
static cudaError_t frontier(sg_session *s, cudaGraphNode_t **deps,
                            size_t *n) {
  enum cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  const cudaGraphNode_t *live = NULL;
  *deps = NULL;
  cudaError_t err = cudaStreamGetCaptureInfo(capture_stream(s), &status, NULL,
                                             NULL, &live, NULL, n);
  if (err == cudaSuccess && *n > 0) {
    *deps = malloc(*n * sizeof **deps);
    if (*deps == NULL) {
      return cudaErrorMemoryAllocation;
    }
    memcpy(*deps, live, *n * sizeof **deps);
  }
  return err;
}

static cudaError_t add_node(sg_region *r,
                            const cudaGraphNode_t *deps, size_t n) {
  struct cudaGraphNodeParams p;
  memset(&p, 0, sizeof p);
  p.type = cudaGraphNodeTypeConditional;
  p.conditional.handle = (cudaGraphConditionalHandle)r->handle;
  p.conditional.type =
      r->kind == SG_REGION_GUARD ? cudaGraphCondTypeIf : cudaGraphCondTypeWhile;
  p.conditional.size = 1;
  cudaError_t err = cudaGraphAddNode(&r->node, r->parent, deps, NULL, n, &p);
  if (err == cudaSuccess) {
    r->body = p.conditional.phGraph_out[0];
  }
  return err;
}

/* End of segment, node after its last work, capture into the body.
 * Returns the failing call's name, or NULL. */
static const char *split_at_node(sg_session *s, sg_region *r,
                                 cudaError_t *err) {
  cudaGraphNode_t *deps = NULL;
  size_t n = 0;
  const char *call = NULL;
  if ((*err = frontier(s, &deps, &n)) != cudaSuccess) {
    call = "cudaStreamGetCaptureInfo";
  } else if ((*err = end_segment(s)) != cudaSuccess) {
    call = "cudaStreamEndCapture (forked streams must be joined back "
           "before a region opens)";
  } else if ((*err = add_node(r, deps, n)) != cudaSuccess) {
    call = "cudaGraphAddNode (conditional)";
  }
  free(deps);
  if (call != NULL) {
    return call;
  }
  if (sg_conds_add_body(&s->conds, r->body) != SG_OK) {
    *err = cudaErrorMemoryAllocation;
    return "remembering the body";
  }
  *err = resume(s, r->body, NULL, 0, SG_SEG_BODY);
  return *err != cudaSuccess ? "cudaStreamBeginCaptureToGraph (into the body)"
                             : NULL;
}

/* Handle, condition kernel, then the split. Returns the failing call's
 * name, or NULL. */
static const char *open_node(sg_session *s, sg_region *r,
                             const int32_t *value, cudaError_t *err) {
  cudaGraphConditionalHandle handle = 0;
  if ((*err = recording_graph(s, &r->parent)) != cudaSuccess) {
    return "cudaStreamGetCaptureInfo (the capture was invalidated before "
           "the region: an operation illegal during capture ran)";
  }
  *err = cudaGraphConditionalHandleCreate(&handle, r->parent, 0, 0);
  if (*err != cudaSuccess) {
    return "cudaGraphConditionalHandleCreate";
  }
  r->handle = handle;
  if ((*err = set_condition(s, r, value)) != cudaSuccess) {
    return "the condition kernel's launch";
  }
  return split_at_node(s, r, err);
}

/* A loop's index word: one no live graph holds, taken by this capture. */
static sg_status take_word(sg_session *s, uint32_t *word) {
  sg_conds *c = &s->conds;
  for (uint32_t i = SG_REGION_DEPTH; i < SG_INDEX_WORDS; i++) {
    sg_word_holder *h = &c->holders[i];
    const sg_graph *e = h->taken && !h->pending
                            ? sg_graphs_lookup(&s->graphs, h->key)
                            : NULL;
    const bool held = h->taken && (h->pending || (e != NULL && e->exec != NULL &&
                                                  e->captures == h->capture));
    if (!held) {
      *h = (sg_word_holder){true, true, s->graphs.capturing_key, 0};
      *word = i;
      return SG_OK;
    }
  }
  return sg_fail(&s->diag, SG_ERR_CAPACITY,
                 "all %u loop index words are held by live graphs' loops; "
                 "invalidate graphs that are not needed",
                 SG_INDEX_WORDS - SG_REGION_DEPTH);
}

sg_status sg_cond_capture_open(sg_session *s, uint32_t kind,
                               const int32_t *value,
                               const uint32_t **index_out) {
  sg_conds *c = &s->conds;
  if (c->depth == SG_REGION_DEPTH) {
    return sg_fail(&s->diag, SG_ERR_CAPACITY,
                   "%u regions are open already, the most that nest",
                   SG_REGION_DEPTH);
  }
  sg_region *r = &c->stack[c->depth];
  memset(r, 0, sizeof *r);
  r->kind = kind;
  r->captured = true;
  r->stream = s->graphs.capturing_stream;
  r->trip = value;
  sg_status st = kind == SG_REGION_LOOP ? take_word(s, &r->word) : SG_OK;
  if (st != SG_OK) {
    return st;
  }
  if (index_out != NULL) {
    *index_out = sg_conds_word(c, r->word);
  }
  cudaError_t err = cudaSuccess;
  const char *call = c->failed ? NULL : open_node(s, r, value, &err);
  if (call != NULL) {
    fail_call(s, call, err);
  }
  c->depth++;
  c->guards += kind == SG_REGION_GUARD;
  c->loops += kind == SG_REGION_LOOP;
  return SG_OK;
}

/* The body must not be empty (an empty node stands in) and must hold only
 * what CUDA allows there. Returns the reason it cannot stay (in why), or
 * NULL. A walk that fails leaves the judgement to instantiation. */
static const char *check_body(sg_session *s, const sg_region *r, char *why,
                              size_t cap) {
  const char *kind = r->kind == SG_REGION_GUARD ? "guard" : "loop";
  size_t n = 0;
  cudaGraphNode_t empty = NULL;
  if (cudaGraphGetNodes(r->body, NULL, &n) != cudaSuccess ||
      (n == 0 &&
       cudaGraphAddEmptyNode(&empty, r->body, NULL, 0) != cudaSuccess)) {
    snprintf(why, cap, "%s: cannot read or fill the %s's body",
             sg_current_entry(), kind);
    return why;
  }
  const char *bad = NULL;
  if (sg_graph_body_check(&s->diag, r->body, &bad) != SG_OK || bad == NULL) {
    return NULL;
  }
  snprintf(why, cap,
           "%s: the %s's body holds %s; CUDA allows only kernels, memsets, "
           "memcpys, child graphs and nested regions in a conditional body, "
           "so enqueue it before or after the region (a collective that "
           "captures as such a node cannot be guarded)",
           sg_current_entry(), kind, bad);
  return why;
}

void sg_cond_capture_close(sg_session *s) {
  sg_conds *c = &s->conds;
  sg_region *r = sg_conds_top(c);
  c->depth--;
  if (c->failed) {
    return;
  }
  cudaError_t err = cudaSuccess;
  if (r->kind == SG_REGION_LOOP &&
      (err = sg_k_cond_loop_step(r->handle, sg_conds_word(c, r->word), r->trip,
                                 capture_stream(s))) != cudaSuccess) {
    fail_call(s, "the loop step kernel's launch", err);
    return;
  }
  if ((err = end_segment(s)) != cudaSuccess) {
    fail_call(s, "cudaStreamEndCapture of the body (forked streams must be "
                 "joined back before the region closes)", err);
    return;
  }
  char why[SG_COND_REASON_CAPACITY];
  const char *reason = check_body(s, r, why, sizeof why);
  if (reason != NULL) {
    fail_capture(s, reason);
    return;
  }
  const sg_segment parent = c->depth > 0 ? SG_SEG_BODY : SG_SEG_OUTER;
  if ((err = resume(s, r->parent, &r->node, 1, parent)) != cudaSuccess) {
    fail_call(s, "cudaStreamBeginCaptureToGraph (after the region)", err);
  }
}

void sg_cond_capture_begin(sg_session *s, int mode) {
  sg_conds_capture_reset(&s->conds, mode);
}

static void destroy_outer(sg_conds *c) {
  if (c->outer != NULL) {
    (void)cudaGraphDestroy(c->outer); /* its bodies with it */
    c->outer = NULL;
  }
  c->body_count = 0;
}

cudaError_t sg_cond_capture_finish(sg_session *s, cudaGraph_t *graph) {
  sg_conds *c = &s->conds;
  const bool split = c->outer != NULL;
  cudaGraph_t ended = NULL;
  cudaError_t err = cudaStreamEndCapture(capture_stream(s), &ended);
  c->seg = SG_SEG_NONE;
  *graph = ended;
  if (split) { /* the last segment recorded into the outer graph */
    *graph = err == cudaSuccess ? c->outer : NULL;
    if (*graph == NULL) {
      destroy_outer(c);
    }
    c->outer = NULL; /* the caller's now */
  }
  return err;
}

static void release_pending(sg_conds *c) {
  for (uint32_t i = 0; i < SG_INDEX_WORDS; i++) {
    if (c->holders[i].pending) {
      c->holders[i] = (sg_word_holder){0};
    }
  }
}

cudaError_t sg_cond_capture_discard(sg_session *s) {
  sg_conds *c = &s->conds;
  enum cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  cudaError_t err = cudaSuccess;
  if (cudaStreamIsCapturing(capture_stream(s), &status) == cudaSuccess &&
      status != cudaStreamCaptureStatusNone) {
    cudaGraph_t ended = NULL;
    err = cudaStreamEndCapture(capture_stream(s), &ended);
    /* A body or the outer graph goes with the outer graph below. */
    if (ended != NULL && (c->seg == SG_SEG_FIRST || c->seg == SG_SEG_JUNK)) {
      (void)cudaGraphDestroy(ended);
    }
  }
  (void)cudaGetLastError();
  destroy_outer(c);
  release_pending(c);
  c->seg = SG_SEG_NONE;
  c->depth = 0;
  return err;
}

sg_status sg_cond_capture_count(sg_session *s, uint64_t *nodes) {
  sg_status st = SG_OK;
  for (uint32_t i = 0; i < s->conds.body_count && st == SG_OK; i++) {
    uint64_t n = 0, alloc = 0;
    st = sg_graph_walk(&s->diag, s->conds.bodies[i], &n, &alloc);
    *nodes += n;
  }
  return st;
}

void sg_cond_capture_commit(sg_session *s, const sg_graph *e) {
  sg_conds *c = &s->conds;
  for (uint32_t i = 0; i < SG_INDEX_WORDS; i++) {
    if (c->holders[i].pending) {
      c->holders[i] = (sg_word_holder){true, false, e->key, e->captures};
    }
  }
  c->body_count = 0;
}

/* The session's conditional regions (guards and loops): the stack of open
 * regions, the loop index words in device memory and who holds them, the
 * pinned word eager regions read the host's flags through, and the capture
 * in progress's conditional state (its segments, its graph once split, the
 * bodies it made). Storage only: cond_capture.c and cond_eager.c do the
 * work. */
#ifndef SG_CONDS_H
#define SG_CONDS_H

#include <cuda_runtime_api.h>
#include <stdbool.h>
#include <stdint.h>

#include "error.h"

/* Open regions at once (the ABI promises 8). */
#define SG_REGION_DEPTH 8u
/* Device index words: the first SG_REGION_DEPTH serve eager loops (one per
 * nesting depth), the rest captured loops, each held by the graph that
 * captured it. */
#define SG_INDEX_WORDS 1024u
#define SG_COND_REASON_CAPACITY 512

typedef enum sg_region_kind { SG_REGION_GUARD = 1, SG_REGION_LOOP = 2 } sg_region_kind;

/* What the capture stream records into now. A capture starts in FIRST
 * (cudaStreamBeginCapture's graph, CUDA's until it ends); opening a region
 * ends that segment, which makes the graph ours (`outer`), and resumes
 * capture into the region's BODY (owned by its node); closing it resumes
 * capture into the parent: OUTER or the enclosing BODY. JUNK: after a
 * failure, a throwaway capture that keeps the host's launches recorded and
 * not run until capture_end. NONE: between an end and a begin. */
typedef enum sg_segment {
  SG_SEG_NONE,
  SG_SEG_FIRST,
  SG_SEG_OUTER,
  SG_SEG_BODY,
  SG_SEG_JUNK
} sg_segment;

typedef struct sg_region {
  uint32_t kind;       /* sg_region_kind */
  bool captured;       /* a node of the capture in progress; else eager */
  sg_stream stream;
  /* Captured (NULL in a capture already failed): */
  cudaGraph_t parent;  /* the graph holding the node */
  cudaGraph_t body;
  cudaGraphNode_t node;
  uint64_t handle;     /* cudaGraphConditionalHandle */
  /* Loops: */
  uint32_t word;       /* index word */
  const int32_t *trip; /* captured: the host's trip count */
  int64_t trips, done; /* eager: the count read, iterations done */
} sg_region;

/* Who holds a captured loop's index word: the capture in progress
 * (pending), or graph `capture` of `key` (a word whose graph is gone is
 * free: the holder checks with the graph cache). */
typedef struct sg_word_holder {
  bool taken;
  bool pending;
  uint64_t key;
  uint64_t capture;
} sg_word_holder;

typedef struct sg_conds {
  sg_diag *diag;
  uint32_t *words;        /* device [SG_INDEX_WORDS]; NULL without device */
  int32_t *pinned;        /* host, pinned: eager reads land here */
  sg_word_holder *holders; /* [SG_INDEX_WORDS] */
  sg_region stack[SG_REGION_DEPTH];
  uint32_t depth;
  /* The capture in progress. */
  sg_segment seg;
  int mode;               /* its cudaStreamCaptureMode */
  cudaGraph_t outer;      /* the step's graph once split; NULL before */
  cudaGraph_t *bodies;    /* every body made, for counting their nodes */
  uint32_t body_count, body_capacity;
  bool failed;            /* a region operation failed: capture_end fails */
  char reason[SG_COND_REASON_CAPACITY];
  /* Counters for get_stats. */
  uint64_t guards, guards_skipped, loops;
} sg_conds;

/* with_device: allocates the index words and the pinned word (the device
 * is current). */
sg_status sg_conds_open(sg_conds *c, sg_diag *diag, bool with_device);
void sg_conds_close(sg_conds *c);

/* A new capture in CUDA mode `mode`: FIRST, no graph, no body, not failed,
 * no pending word. */
void sg_conds_capture_reset(sg_conds *c, int mode);

/* Remembers a body (for node counts); SG_ERR_OUT_OF_MEMORY if it cannot. */
sg_status sg_conds_add_body(sg_conds *c, cudaGraph_t body);

/* The innermost open region, or NULL. */
sg_region *sg_conds_top(sg_conds *c);

/* Records why the capture fails (the first reason is kept) and logs it. */
void sg_conds_fail(sg_conds *c, const char *reason);

/* The device address of index word i. */
uint32_t *sg_conds_word(const sg_conds *c, uint32_t i);

#endif

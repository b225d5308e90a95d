#include "conds.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"

sg_status sg_conds_open(sg_conds *c, sg_diag *diag, bool with_device) {
  c->diag = diag;
  c->holders = calloc(SG_INDEX_WORDS, sizeof *c->holders);
  if (c->holders == NULL) {
    return sg_fail(diag, SG_ERR_OUT_OF_MEMORY,
                   "cannot allocate the loop index table");
  }
  if (!with_device) {
    return SG_OK;
  }
  sg_status st = SG_CUDA(diag, cudaMalloc((void **)&c->words,
                                          SG_INDEX_WORDS * sizeof *c->words));
  if (st == SG_OK) {
    st = SG_CUDA(diag, cudaMemset(c->words, 0,
                                  SG_INDEX_WORDS * sizeof *c->words));
  }
  if (st == SG_OK) {
    st = SG_CUDA(diag, cudaMallocHost((void **)&c->pinned, sizeof *c->pinned));
  }
  return st;
}

void sg_conds_close(sg_conds *c) {
  if (c->pinned != NULL) {
    (void)SG_CUDA(c->diag, cudaFreeHost(c->pinned));
  }
  if (c->words != NULL) {
    (void)SG_CUDA(c->diag, cudaFree(c->words));
  }
  free(c->bodies);
  free(c->holders);
}

void sg_conds_capture_reset(sg_conds *c, int mode) {
  c->seg = SG_SEG_FIRST;
  c->mode = mode;
  c->outer = NULL;
  c->body_count = 0;
  c->failed = false;
  c->reason[0] = '\0';
  for (uint32_t i = 0; i < SG_INDEX_WORDS; i++) {
    if (c->holders[i].pending) {
      c->holders[i] = (sg_word_holder){0};
    }
  }
}

sg_status sg_conds_add_body(sg_conds *c, cudaGraph_t body) {
  if (c->body_count == c->body_capacity) {
    const uint32_t cap = c->body_capacity == 0 ? 16 : 2 * c->body_capacity;
    cudaGraph_t *grown = realloc(c->bodies, cap * sizeof *grown);
    if (grown == NULL) {
      return sg_fail(c->diag, SG_ERR_OUT_OF_MEMORY,
                     "cannot remember %u conditional bodies", cap);
    }
    c->bodies = grown;
    c->body_capacity = cap;
  }
  c->bodies[c->body_count++] = body;
  return SG_OK;
}

sg_region *sg_conds_top(sg_conds *c) {
  return c->depth > 0 ? &c->stack[c->depth - 1] : NULL;
}

void sg_conds_fail(sg_conds *c, const char *reason) {
  if (c->failed) {
    return;
  }
  c->failed = true;
  snprintf(c->reason, sizeof c->reason, "%s", reason);
  sg_log(&c->diag->log, SG_LOG_ERROR, "%s: %s; the capture will fail",
         sg_current_entry(), c->reason);
}

uint32_t *sg_conds_word(const sg_conds *c, uint32_t i) {
  return c->words + i;
}

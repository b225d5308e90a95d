/* The manual-path recipe of docs/INTEGRATION.md ("Capture once, replay
 * every step"), compiled and tested (test_manual_step.c): the text between
 * the snippet markers must be exactly the code block the guide shows
 * (docs_snippets checks it), so the recipe cannot drift from code that
 * runs. */
#ifndef SG_DOCS_MANUAL_STEP_H
#define SG_DOCS_MANUAL_STEP_H

#include <stdint.h>

#include "stepgraph.h"

/* snippet begin */
/* One training step on the manual path, after pre_capture. Every call runs
 * the step exactly once: the first call for a key captures it and replays
 * the graph (capture records, it does not run); later calls replay; when the
 * plugin answers SG_RUN_EAGERLY the host runs the step itself. run_step
 * enqueues the step on `stream`. *captured starts at 0 for each key.
 * Returns SG_OK, or the error that kept the step from running. */
static sg_status manual_step(const sg_api *api, sg_session *s, uint64_t key,
                             sg_stream stream, int *captured,
                             void (*run_step)(void *user, sg_stream stream),
                             void *user) {
  if (!*captured) {
    sg_capture_args c = {.struct_size = sizeof c, .key = key, .stream = stream};
    sg_status st = api->capture_begin(s, &c);
    if (st == SG_RUN_EAGERLY) { /* graphs disabled, or the key failed before */
      run_step(user, stream);
      return SG_OK;
    }
    if (st != SG_OK) {
      return st; /* api->last_error(s, ...) says why */
    }
    run_step(user, stream); /* recorded into the graph, not run */
    st = api->capture_end(s, &c);
    if (st == SG_ERR_CAPTURE_FAILED) { /* the step did not run: run it now */
      run_step(user, stream);          /* (the key is eager-only from now on) */
      return SG_OK;
    }
    if (st != SG_OK) {
      return st;
    }
    *captured = 1;
  }
  sg_replay_args r = {.struct_size = sizeof r, .key = key, .stream = stream};
  sg_status st = api->replay(s, &r);
  if (st == SG_RUN_EAGERLY) {
    run_step(user, stream);
    return SG_OK;
  }
  return st;
}
/* snippet end */

#endif /* SG_DOCS_MANUAL_STEP_H */

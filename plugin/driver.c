/* step: the step driver (warm-up, capture, replay, eager fallback); and
 * step_plan, its decision for hosts on the manual path. */
#include "args.h"
#include "cond.h"
#include "engine.h"
#include "entries.h"
#include "entry.h"

static sg_status run_fn(sg_session *s, const sg_step_args *in,
                        const sg_graph *e, uint32_t phase) {
  sg_step_context ctx = {0};
  ctx.struct_size = sizeof ctx;
  ctx.session = s;
  ctx.key = in->key;
  ctx.step_index = e->steps;
  ctx.phase = phase;
  return in->fn(in->user, in->stream, &ctx);
}

/* An eager step: the stale-transpose check (a captured one has it from
 * sg_engine_begin), the callback, and no region left open by it. */
static sg_status run_eager_fn(sg_session *s, const sg_step_args *in,
                              const sg_graph *e, uint32_t phase) {
  sg_status st = sg_detector_check(&s->detector, s->fp8.device_table,
                                   s->fp8.params, s->fp8.count, s->sm_count,
                                   (cudaStream_t)in->stream);
  if (st == SG_OK) {
    st = run_fn(s, in, e, phase);
  }
  const sg_status left = sg_cond_require_closed(s, "the step callback");
  return st != SG_OK ? st : left;
}

/* Graphs are off for the key: the callback runs eagerly; the reason is
 * logged once. */
static sg_status eager_step(sg_session *s, const sg_step_args *in,
                            sg_graph *e, uint32_t *outcome) {
  sg_engine_note_eager(s, e);
  *outcome = SG_STEP_EAGER;
  return run_eager_fn(s, in, e, SG_PHASE_EAGER);
}

/* Captures the callback (after pre_capture when the session is not READY)
 * and launches the new graph once, so the call still runs its step. A
 * failed capture runs the step eagerly instead. */
static sg_status capture_step(sg_session *s, const sg_step_args *in,
                              sg_graph *e, uint32_t *outcome) {
  sg_status st = s->state == SG_STATE_READY ? SG_OK
                                            : sg_pre_capture(s, in->stream);
  sg_graph *begun = NULL;
  if (st == SG_OK) {
    st = sg_engine_begin(s, in->key, in->stream, s->config.capture_mode,
                         &begun);
  }
  if (st != SG_OK) { /* not SG_RUN_EAGERLY: drive() checked the key */
    return st;
  }
  sg_status fn_st = run_fn(s, in, e, SG_PHASE_CAPTURE);
  if (fn_st != SG_OK) {
    bool invalidated = false;
    st = sg_engine_abandon(s, true, &invalidated);
    /* An invalidated capture explains the callback's error: fall back. */
    return st != SG_OK     ? st
           : invalidated ? eager_step(s, in, e, outcome)
                         : fn_st;
  }
  st = sg_engine_end(s);
  if (st == SG_ERR_CAPTURE_FAILED) {
    return eager_step(s, in, e, outcome);
  }
  if (st == SG_RUN_EAGERLY) { /* another rank failed; counted and logged */
    *outcome = SG_STEP_EAGER;
    return run_eager_fn(s, in, e, SG_PHASE_EAGER);
  }
  if (st == SG_OK) {
    st = sg_engine_launch(s, e, in->stream);
  }
  if (st == SG_OK) {
    *outcome = SG_STEP_CAPTURED;
  }
  return st;
}

/* What the key's next step is: the driver does it, step_plan says it. */
static uint32_t next_action(const sg_session *s, const sg_graph *e) {
  if (e->eager_only) {
    return SG_ACTION_EAGER;
  }
  if (e->steps < s->config.warmup_steps) {
    return SG_ACTION_WARMUP;
  }
  return e->exec != NULL ? SG_ACTION_REPLAY : SG_ACTION_CAPTURE;
}

static sg_status drive(sg_session *s, const sg_step_args *in,
                       uint32_t *outcome) {
  sg_graph *e = NULL;
  sg_status st = sg_graphs_get(&s->graphs, in->key, &e);
  if (st != SG_OK) {
    return st;
  }
  switch (next_action(s, e)) {
    case SG_ACTION_EAGER:
      st = eager_step(s, in, e, outcome);
      break;
    case SG_ACTION_WARMUP:
      *outcome = SG_STEP_WARMUP;
      st = run_eager_fn(s, in, e, SG_PHASE_WARMUP);
      break;
    case SG_ACTION_REPLAY:
      *outcome = SG_STEP_REPLAYED;
      st = sg_engine_launch(s, e, in->stream);
      break;
    default:
      st = capture_step(s, in, e, outcome);
  }
  if (st == SG_OK) {
    e->steps++;
  }
  return st;
}

static sg_status check_step_args(sg_session *s, const sg_step_args *in,
                                 sg_sources *src) {
  if (in->fn == NULL) {
    return sg_fail(&s->diag, SG_ERR_INVALID_ARGUMENT, "args->fn is NULL");
  }
  sg_status st = sg_statics_read_sources(
      &s->statics, in->static_sources, in->static_source_count, in->flags,
      SG_STEP_HOST_SOURCES, "SG_STEP_HOST_SOURCES", src);
  return st == SG_OK ? sg_check_stream_arg(&s->diag, in->stream, "args->stream")
                     : st;
}

sg_status sg_step(sg_session *s, sg_step_args *args) {
  sg_call c;
  sg_step_args in;
  sg_sources src;
  sg_status st = sg_enter(&c, s, "step");
  if (st == SG_OK) {
    st = SG_READ(&s->diag, sg_step_args, args, &in, "args");
  }
  if (st == SG_OK) {
    st = check_step_args(s, &in, &src);
  }
  if (st == SG_OK) {
    st = sg_require_not_capturing(s);
  }
  if (st == SG_OK) {
    st = sg_require_device(s);
  }
  /* Before the step in every phase; before a capture, so not in the graph. */
  if (st == SG_OK) {
    st = sg_engine_copy_sources(s, in.stream, &src);
  }
  uint32_t outcome = SG_STEP_EAGER;
  if (st == SG_OK) {
    st = drive(s, &in, &outcome);
  }
  if (st == SG_OK) {
    args->outcome_out = outcome; /* inside ABI 1.0's struct_size */
  }
  return sg_leave(&c, st);
}

sg_status sg_step_plan_get(sg_session *s, sg_step_plan *plan) {
  sg_call c;
  sg_step_plan in;
  sg_graph *e = NULL;
  sg_status st = sg_enter(&c, s, "step_plan");
  if (st == SG_OK) {
    st = SG_READ_SINCE(&s->diag, sg_step_plan, 1_1, plan, &in, "plan");
  }
  if (st == SG_OK) {
    st = sg_require_not_capturing(s);
  }
  if (st == SG_OK) {
    st = sg_graphs_get(&s->graphs, in.key, &e);
  }
  if (st == SG_OK) {
    in.action_out = next_action(s, e);
    in.pre_capture_out =
        in.action_out == SG_ACTION_CAPTURE && s->state != SG_STATE_READY;
    in.step_index_out = e->steps;
    st = SG_WRITE_SINCE(&s->diag, sg_step_plan, 1_1, plan, &in, "plan");
  }
  if (st == SG_OK) {
    e->steps++;
    if (in.action_out == SG_ACTION_EAGER) {
      sg_engine_note_eager(s, e); /* counted and logged as the driver does */
    }
  }
  return sg_leave(&c, st);
}

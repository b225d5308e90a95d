/* The graph entries on validation-only sessions: pre_capture, capture,
 * invalidate, the refresh hook, replay, the step driver, sync. Argument
 * and state errors must be reported as such (the header: "every argument
 * check and every state transition work"); what needs the GPU answers
 * SG_ERR_NO_DEVICE; nothing is ever captured, so nothing has a graph. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

/* An args pointer: NULL now and then (refused), else a host struct of a
 * random struct_size. */
static bool decode_null(fz_in *in) { return fz_u8(in) % 16 == 0; }

static uint32_t decode_mode(fz_in *in) {
  const uint8_t b = fz_u8(in);
  return b < 200 ? b % 3u : (uint32_t)fz_number(in);
}

static uint32_t decode_flags(fz_in *in) {
  return fz_u8(in) % 8 == 0 ? (uint32_t)fz_number(in) : 0;
}

void fz_op_pre_capture(fz_in *in) {
  fz_model *m = fz_pick_session(in, NULL);
  const sg_stream stream = fz_stream(in);
  fz_call c;
  fz_begin(&c, "pre_capture", m,
           fz_needs(m, fz_bad_stream(stream) ? FZ_IA : FZ_ONE(SG_OK)));
  sg_status st = fz_api->pre_capture(fz_handle(m), stream);
  fz_end(&c, st);
  if (st == SG_OK) {
    m->ready = true;
  }
}

/* capture_begin and capture_end share their args. */
static void capture(fz_in *in, bool begin) {
  fz_model *m = fz_pick_session(in, NULL);
  const bool null_args = decode_null(in);
  sg_capture_args a; /* one field per statement: the decoding order */
  a.struct_size = fz_struct_size(in, sizeof a);
  a.key = fz_number(in);
  a.stream = fz_stream(in);
  a.capture_mode = decode_mode(in);
  a.flags = decode_flags(in);
  sg_capture_args *host = fz_struct_in(&a, sizeof a, a.struct_size);
  fz_set e = fz_struct_errors(null_args, a.struct_size,
                           SG_V1_0_SIZE_sg_capture_args);
  if (e == 0 && (a.flags != 0 || fz_bad_stream(a.stream))) {
    e = FZ_IA;
  }
  /* The header says capture_end does not use capture_mode; the plugin
   * refuses an unknown one there too, which the model lets pass. */
  if (e == 0 && a.capture_mode > SG_CAPTURE_RELAXED) {
    e = begin ? FZ_IA : FZ_IA | FZ_ONE(SG_ERR_INVALID_STATE);
  }
  if (e == 0) { /* never capturing; begin needs READY, then the GPU */
    e = !begin ? FZ_ONE(SG_ERR_INVALID_STATE)
        : m != NULL && m->ready ? FZ_NO_DEVICE
                                : FZ_ONE(SG_ERR_INVALID_STATE);
  }
  const char *entry = begin ? "capture_begin" : "capture_end";
  fz_call c;
  fz_begin(&c, entry, m, fz_needs(m, e));
  const sg_capture_args *arg = null_args ? NULL : host;
  sg_status st = begin ? fz_api->capture_begin(fz_handle(m), arg)
                       : fz_api->capture_end(fz_handle(m), arg);
  fz_end(&c, st);
  free(host);
}

void fz_op_capture_begin(fz_in *in) { capture(in, true); }
void fz_op_capture_end(fz_in *in) { capture(in, false); }

void fz_op_invalidate(fz_in *in) {
  fz_model *m = fz_pick_session(in, NULL);
  const uint64_t key = fz_number(in);
  fz_call c;
  fz_begin(&c, "invalidate", m, fz_needs(m, FZ_ONE(SG_ERR_NOT_FOUND)));
  fz_end(&c, fz_api->invalidate(fz_handle(m), key));
}

static uint32_t decode_group(fz_in *in) {
  const uint8_t g = fz_u8(in) % 6;
  return g < 4 ? g : g == 4 ? SG_ALL_GROUPS : (uint32_t)fz_number(in);
}

/* The selection check of post_optimizer_step, from the model's params. */
static fz_set selection_errors(const fz_model *m, const sg_refresh_args *a) {
  uint32_t selected = 0;
  bool masterless = false;
  for (uint32_t i = 0; m != NULL && i < m->fp8_count; i++) {
    if (a->group == SG_ALL_GROUPS || m->params[i].group == a->group) {
      selected++;
      masterless |= !m->params[i].has_master;
    }
  }
  if (a->group != SG_ALL_GROUPS && selected == 0) {
    return FZ_IA; /* an unknown group */
  }
  if (a->mode != SG_REFRESH_TRANSPOSE && masterless) {
    return FZ_ONE(SG_ERR_INVALID_STATE);
  }
  /* With nothing registered nothing is launched: success, or the
   * validation-only answer (the header allows either reading). */
  return m != NULL && m->fp8_count == 0
             ? FZ_ONE(SG_OK) | FZ_NO_DEVICE
             : FZ_NO_DEVICE;
}

void fz_op_refresh(fz_in *in) {
  fz_model *m = fz_pick_session(in, NULL);
  const sg_stream stream = fz_stream(in); /* any stream: not checked */
  const bool null_args = decode_null(in);
  sg_refresh_args a;
  memset(&a, 0, sizeof a);
  a.struct_size = fz_struct_size(in, sizeof a);
  a.mode = decode_mode(in);
  a.group = decode_group(in);
  a.noop_flag = (const int32_t *)fz_pointer(in, 0x7000);
  a.flags = decode_flags(in);
  a.reserved0 = decode_flags(in);
  sg_refresh_args *host = fz_struct_in(&a, sizeof a, a.struct_size);
  fz_set e = fz_struct_errors(null_args, a.struct_size,
                           SG_V1_0_SIZE_sg_refresh_args);
  if (e == 0 && (a.mode > SG_REFRESH_CAST_TRANSPOSE ||
                 (a.flags & ~(uint32_t)SG_REFRESH_REDUCE_AMAX) != 0 ||
                 a.reserved0 != 0)) {
    e = FZ_IA;
  }
  /* The amax reduction: cast modes only, and ranks to reduce over. */
  if (e == 0 && (a.flags & SG_REFRESH_REDUCE_AMAX) != 0) {
    e = a.mode == SG_REFRESH_TRANSPOSE  ? FZ_IA
        : m != NULL && !m->communicator ? FZ_ONE(SG_ERR_INVALID_STATE)
                                        : 0;
  }
  fz_call c;
  fz_begin(&c, "post_optimizer_step", m,
           fz_needs(m, e ? e : selection_errors(m, &a)));
  fz_end(&c, fz_api->post_optimizer_step(fz_handle(m), stream,
                                         null_args ? NULL : host));
  free(host);
}

void fz_op_replay(fz_in *in) {
  fz_model *m = fz_pick_session(in, NULL);
  const uint32_t statics = m ? m->static_count : 0;
  const bool null_args = decode_null(in);
  sg_replay_args a;
  memset(&a, 0, sizeof a);
  a.struct_size = fz_struct_size(in, sizeof a);
  a.key = fz_number(in);
  a.stream = fz_stream(in);
  a.static_source_count = fz_u8(in) % 8 == 0 ? (uint32_t)fz_number(in)
                                             : fz_u8(in) % (statics + 2);
  a.flags = decode_flags(in);
  /* Exactly the sources the count names (a count past the registered
   * buffers must be refused before any is read: then only a few). */
  const uint32_t n = a.static_source_count <= statics ? a.static_source_count
                     : a.static_source_count < 4      ? a.static_source_count
                                                      : 4;
  const void **sources = NULL;
  if (fz_u8(in) % 8 != 0) {
    sources = fz_alloc(n * sizeof *sources);
    for (uint32_t i = 0; i < n; i++) {
      sources[i] = (const void *)fz_pointer(in, 0x9000000);
    }
  }
  a.static_sources = sources;
  sg_replay_args *host = fz_struct_in(&a, sizeof a, a.struct_size);
  fz_set e = fz_struct_errors(null_args, a.struct_size,
                           SG_V1_0_SIZE_sg_replay_args);
  if (e == 0 && ((a.flags & ~(uint32_t)SG_REPLAY_HOST_SOURCES) != 0 ||
                 a.static_source_count > statics ||
                 (a.static_source_count > 0 && sources == NULL) ||
                 fz_bad_stream(a.stream))) {
    e = FZ_IA;
  }
  fz_call c;
  fz_begin(&c, "replay", m,
           fz_needs(m, e ? e : FZ_ONE(SG_ERR_INVALID_STATE))); /* no graph */
  fz_end(&c, fz_api->replay(fz_handle(m), null_args ? NULL : host));
  free(host);
  free(sources);
}

/* If the driver ever runs the host's step, the context must be sound. */
static sg_status step_fn(void *user, sg_stream stream,
                         const sg_step_context *ctx) {
  const sg_step_args *a = user;
  if (ctx == NULL || ctx->struct_size < SG_V1_0_SIZE_sg_step_context ||
      stream != a->stream || ctx->key != a->key ||
      ctx->phase > SG_PHASE_EAGER) {
    fz_fail("step: the callback got an unsound context");
  }
  return SG_OK;
}

void fz_op_step(fz_in *in) {
  fz_model *m = fz_pick_session(in, NULL);
  const bool null_args = decode_null(in);
  sg_step_args a;
  memset(&a, 0, sizeof a);
  a.struct_size = fz_struct_size(in, sizeof a);
  a.key = fz_number(in);
  a.stream = fz_stream(in);
  a.fn = fz_u8(in) % 8 == 0 ? NULL : step_fn;
  a.user = &a;
  a.outcome_out = 0xA5A5A5A5u; /* written on SG_OK only */
  a.reserved0 = decode_flags(in);
  fz_out o = fz_out_alloc(a.struct_size, sizeof a);
  memcpy(o.p, &a, o.owned < sizeof a ? o.owned : sizeof a);
  uint8_t *was = fz_alloc(o.owned);
  memcpy(was, o.p, o.owned);
  fz_set e =
      fz_struct_errors(null_args, a.struct_size, SG_V1_0_SIZE_sg_step_args);
  if (e == 0 && (a.fn == NULL || fz_bad_stream(a.stream))) {
    e = FZ_IA;
  }
  fz_call c;
  fz_begin(&c, "step", m, fz_needs(m, e ? e : FZ_NO_DEVICE));
  sg_status st = fz_api->step(fz_handle(m),
                              null_args ? NULL : (sg_step_args *)o.p);
  fz_end(&c, st);
  if (st != SG_OK && memcmp(was, o.p, o.owned) != 0) {
    fz_fail("step failed (%d) but wrote into args", (int)st);
  }
  free(was);
  fz_out_check_free(&o, "step");
}

void fz_op_sync(fz_in *in) {
  fz_model *m = fz_pick_session(in, NULL);
  const sg_stream stream = fz_stream(in);
  const uint32_t timeout = (uint32_t)fz_number(in);
  fz_call c;
  fz_begin(&c, "sync", m,
           fz_needs(m, fz_bad_stream(stream) ? FZ_IA : FZ_NO_DEVICE));
  fz_end(&c, fz_api->sync(fz_handle(m), stream, timeout));
}

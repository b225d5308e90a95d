/* The pre-capture hook: everything that must hold before capture begins. */
#include <stdio.h>

#include "args.h"
#include "cuda_check.h"
#include "engine.h"
#include "entries.h"
#include "entry.h"
#include "nvtx.h"

/* `what` names the pointer in messages ("registered param 3's data"). */
static sg_status check_pointer(sg_session *s, const void *ptr,
                               const char *what) {
  struct cudaPointerAttributes a;
  if (ptr == NULL) {
    return SG_OK;
  }
  sg_status st = SG_CUDA(&s->diag, cudaPointerGetAttributes(&a, ptr));
  if (st != SG_OK) {
    return st;
  }
  bool device_memory = a.type == cudaMemoryTypeDevice ||
                       a.type == cudaMemoryTypeManaged;
  if (!device_memory || a.device != s->device) {
    return sg_fail(&s->diag, SG_ERR_INVALID_ARGUMENT,
                   "%s (%p) is not device memory of device %d (freed, host "
                   "memory, or another device)",
                   what, ptr, s->device);
  }
  return SG_OK;
}

static sg_status check_param(sg_session *s, const sg_k_param *p, uint32_t i) {
  const struct { const void *ptr; const char *field; } fields[] = {
      {p->w, "data"},       {p->wt, "transpose"},
      {p->master, "master"}, {p->scale, "scale"},
      {p->scale_inv, "scale_inv"}, {p->amax, "amax"},
      {p->grid, "block_scale_inv"}, {p->grid_t, "block_scale_inv_t"},
  };
  sg_status st = SG_OK;
  char what[64];
  for (size_t k = 0; k < sizeof fields / sizeof fields[0] && st == SG_OK; k++) {
    snprintf(what, sizeof what, "registered param %u's %s", i,
             fields[k].field);
    st = check_pointer(s, fields[k].ptr, what);
  }
  return st;
}

/* Registered addresses are baked into graphs: each must still be memory of
 * the session's device. */
static sg_status check_registered(sg_session *s) {
  sg_status st = SG_OK;
  for (uint32_t i = 0; i < s->fp8.count && st == SG_OK; i++) {
    st = check_param(s, &s->fp8.params[i], i);
  }
  char what[64];
  for (uint32_t i = 0; i < s->statics.count && st == SG_OK; i++) {
    snprintf(what, sizeof what, "registered static buffer %u's data", i);
    st = check_pointer(s, s->statics.buffers[i].data, what);
  }
  return st;
}

/* Device work of pre_capture: checks, table upload ordered on the host's
 * stream, and a wait for that stream alone (never the device: another
 * thread may be capturing). */
static sg_status prepare_device(sg_session *s, sg_stream stream) {
  sg_status st = sg_engine_check_stream(s, stream, "stream");
  if (st == SG_OK) {
    st = check_registered(s);
  }
  if (st == SG_OK) {
    st = sg_registry_upload(&s->fp8, (cudaStream_t)stream); /* waits */
  }
  return st;
}

static void log_ready(const sg_session *s, sg_stream stream) {
  if (s->validation_only) {
    sg_log(&s->diag.log, SG_LOG_DEBUG,
           "pre_capture: %u FP8 params and %u static buffers registered; "
           "validation-only: no pointer, stream or device was checked",
           s->fp8.count, s->statics.count);
    return;
  }
  sg_log(&s->diag.log, SG_LOG_DEBUG,
         "pre_capture: %u FP8 params and %u static buffers are device "
         "memory of device %d; device table uploaded on stream %p, which "
         "was waited for",
         s->fp8.count, s->statics.count, s->device, (void *)stream);
}

sg_status sg_pre_capture(sg_session *s, sg_stream stream) {
  SG_NVTX_RANGE("pre_capture");
  sg_call c;
  sg_status st = sg_enter(&c, s, "pre_capture");
  if (st == SG_OK) {
    st = sg_require_not_capturing(s);
  }
  if (st == SG_OK) {
    st = sg_check_stream_arg(&s->diag, stream, "stream");
  }
  if (st == SG_OK) {
    st = sg_comm_require_usable(&s->comm);
  }
  if (st == SG_OK && !s->validation_only) {
    st = prepare_device(s, stream);
  }
  if (st == SG_OK) {
    s->state = SG_STATE_READY;
    log_ready(s, stream);
  }
  return sg_leave(&c, st);
}

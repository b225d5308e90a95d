/* The pre-capture hook: everything that must hold before capture begins. */
#include <stdio.h>

#include "args.h"
#include "cuda_check.h"
#include "entries.h"
#include "nvtx.h"
#include "session.h"

static sg_status check_pointer(sg_session *s, const void *ptr, uint32_t i,
                               const char *field) {
  struct cudaPointerAttributes a;
  if (ptr == NULL) {
    return SG_OK;
  }
  sg_status st = SG_CUDA(s, cudaPointerGetAttributes(&a, ptr));
  if (st != SG_OK) {
    return st;
  }
  bool device_memory = a.type == cudaMemoryTypeDevice ||
                       a.type == cudaMemoryTypeManaged;
  if (!device_memory || a.device != s->device) {
    return sg_fail(s, SG_ERR_INVALID_ARGUMENT,
                   "registered param %u's %s (%p) is not device memory of "
                   "device %d (freed, host memory, or another device)",
                   i, field, ptr, s->device);
  }
  return SG_OK;
}

/* Registered addresses are baked into graphs: each must still be memory of
 * the session's device. */
static sg_status check_registered(sg_session *s) {
  sg_status st = SG_OK;
  for (uint32_t i = 0; i < s->fp8.count && st == SG_OK; i++) {
    const sg_k_param *p = &s->fp8.params[i];
    st = check_pointer(s, p->w, i, "data");
    if (st == SG_OK) st = check_pointer(s, p->wt, i, "transpose");
    if (st == SG_OK) st = check_pointer(s, p->master, i, "master");
    if (st == SG_OK) st = check_pointer(s, p->scale, i, "scale");
    if (st == SG_OK) st = check_pointer(s, p->scale_inv, i, "scale_inv");
    if (st == SG_OK) st = check_pointer(s, p->amax, i, "amax");
  }
  return st;
}

static sg_status check_stream(sg_session *s, sg_stream stream) {
  enum cudaStreamCaptureStatus capturing;
  int device = -1;
  sg_status st = SG_CUDA(s, cudaStreamIsCapturing(stream, &capturing));
  if (st == SG_OK && capturing != cudaStreamCaptureStatusNone) {
    return sg_fail(s, SG_ERR_INVALID_STATE,
                   "stream is already capturing; call pre_capture before "
                   "the capture begins");
  }
  if (st == SG_OK) {
    st = SG_CUDA(s, cudaStreamGetDevice(stream, &device));
  }
  if (st == SG_OK && device != s->device) {
    return sg_fail(s, SG_ERR_INVALID_ARGUMENT,
                   "stream belongs to device %d, the session to device %d",
                   device, s->device);
  }
  return st;
}

/* Device work of pre_capture: checks, table upload ordered on the host's
 * stream, and a wait for that stream alone (never the device: another
 * thread may be capturing). */
static sg_status prepare_device(sg_session *s, sg_stream stream) {
  sg_status st = check_stream(s, stream);
  if (st == SG_OK) {
    st = check_registered(s);
  }
  if (st == SG_OK) {
    st = sg_registry_upload(&s->fp8, s, stream); /* waits for stream */
  }
  return st;
}

sg_status sg_pre_capture(sg_session *s, sg_stream stream) {
  SG_NVTX_RANGE("pre_capture");
  sg_call c;
  sg_status st = sg_enter(&c, s, "pre_capture");
  if (st == SG_OK) {
    st = sg_require_not_capturing(s);
  }
  if (st == SG_OK) {
    st = sg_check_stream_arg(s, stream, "stream");
  }
  if (st == SG_OK && !s->validation_only) {
    st = prepare_device(s, stream);
  }
  if (st == SG_OK) {
    s->state = SG_STATE_READY;
    sg_log(&s->log, SG_LOG_DEBUG,
           "pre_capture: %u FP8 params and %u static buffers checked%s; "
           "stream %p checked and drained",
           s->fp8.count, s->statics.count,
           s->validation_only ? " (host side only: validation-only)"
                              : ", device table uploaded",
           (void *)stream);
  }
  return sg_leave(&c, st);
}

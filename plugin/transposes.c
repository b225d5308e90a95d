/* check_transposes and transpose_report: the stale-transpose detector's
 * entries (its state is detector.c). */
#include "args.h"
#include "cuda_check.h"
#include "entries.h"
#include "entry.h"

sg_status sg_check_transposes(sg_session *s, sg_stream stream) {
  sg_call c;
  sg_status st = sg_enter(&c, s, "check_transposes");
  if (st == SG_OK && s->detector.enabled) {
    st = sg_require_device(s);
    if (st == SG_OK) {
      st = sg_detector_check(&s->detector, s->fp8.device_table, s->fp8.params,
                             s->fp8.count, s->sm_count, (cudaStream_t)stream);
    }
  }
  return sg_leave(&c, st);
}

static sg_status check_report_args(sg_session *s, sg_stream stream,
                                   const sg_transpose_report *in) {
  if (in->reserved0 != 0) {
    return sg_fail(&s->diag, SG_ERR_INVALID_ARGUMENT,
                   "out->reserved0 is %u, must be 0", (unsigned)in->reserved0);
  }
  sg_status st = sg_require_not_capturing(s);
  if (st == SG_OK) {
    st = sg_check_stream_arg(&s->diag, stream, "stream");
  }
  if (st == SG_OK && s->detector.enabled) {
    st = sg_require_device(s);
  }
  return st;
}

static void fill_report(const sg_session *s, sg_transpose_report *r) {
  const sg_findings *f = &s->detector.found;
  r->enabled = s->detector.enabled ? 1u : 0u;
  r->stale_params = (uint32_t)f->stale_params;
  r->checks = f->checks;
  r->first_stale_check = f->first_check;
  r->first_stale_param = f->first_param;
  r->first_stale_group = sg_registry_group(&s->fp8, f->first_param);
}

sg_status sg_transpose_report_get(sg_session *s, sg_stream stream,
                                  sg_transpose_report *out) {
  sg_call c;
  sg_transpose_report in;
  sg_status st = sg_enter(&c, s, "transpose_report");
  if (st == SG_OK) {
    st = SG_READ_SINCE(&s->diag, sg_transpose_report, 1_1, out, &in, "out");
  }
  if (st == SG_OK) {
    st = check_report_args(s, stream, &in);
  }
  if (st == SG_OK) {
    st = sg_detector_read(&s->detector, (cudaStream_t)stream, s->fp8.params,
                          s->fp8.count, in.mismatches,
                          in.mismatches != NULL ? in.mismatch_capacity : 0);
  }
  if (st == SG_OK) {
    fill_report(s, &in);
    st = SG_WRITE_SINCE(&s->diag, sg_transpose_report, 1_1, out, &in, "out");
  }
  return sg_leave(&c, st);
}

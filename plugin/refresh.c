/* post_optimizer_step: the FP8 refresh hook, one kernel launch. */
#include "args.h"
#include "cuda_check.h"
#include "entries.h"
#include "entry.h"
#include "nvtx.h"

static sg_status check_refresh_args(sg_session *s, const sg_refresh_args *in) {
  if (in->mode > SG_REFRESH_CAST_TRANSPOSE) {
    return sg_fail(&s->diag, SG_ERR_INVALID_ARGUMENT,
                   "args->mode is %u (known: TRANSPOSE, CAST, CAST_TRANSPOSE)",
                   (unsigned)in->mode);
  }
  if (in->flags != 0 || in->reserved0 != 0) {
    return sg_fail(&s->diag, SG_ERR_INVALID_ARGUMENT,
                   "args->flags/reserved0 are 0x%x/0x%x, must be 0",
                   (unsigned)in->flags, (unsigned)in->reserved0);
  }
  return SG_OK;
}

/* The selected parameters exist and, for the cast modes, have masters:
 * the registry's plan of the selection, host metadata only, so this stays
 * capture-safe (and costs a search, not a pass over the parameters). */
static sg_status check_selection(sg_session *s, const sg_refresh_args *in,
                                 const sg_k_plan **plan_out) {
  const sg_k_plan *plan = sg_registry_plan(&s->fp8, in->group);
  if (plan == NULL) {
    return sg_fail(&s->diag, SG_ERR_INVALID_ARGUMENT,
                   "args->group %u has no registered parameter",
                   (unsigned)in->group);
  }
  if (in->mode != SG_REFRESH_TRANSPOSE && plan->first_without_master != UINT32_MAX) {
    return sg_fail(&s->diag, SG_ERR_INVALID_STATE,
                   "registered param %u has no master, so it cannot be "
                   "refreshed in a cast mode",
                   (unsigned)plan->first_without_master);
  }
  *plan_out = plan;
  return SG_OK;
}

/* The kernels the selection's recipes need (refresh.h, sg_k_refresh_kernels),
 * the tile modes in the layout its shapes suit: both from the registered
 * parameters at each call (host metadata, like the selection check). A
 * captured launch keeps what it was captured with, which stays correct for
 * any table of the same recipes, only maybe slower. */
static sg_status launch(sg_session *s, sg_stream stream,
                        const sg_refresh_args *in, const sg_k_plan *plan) {
  sg_status st = SG_CUDA(&s->diag, sg_k_refresh_launch(s->fp8.device_table, in->mode,
                                                in->group, plan, in->noop_flag,
                                                &s->refresh_device,
                                                (cudaStream_t)stream));
  if (st == SG_OK) {
    s->stats.refreshes++;
  }
  return st;
}

sg_status sg_post_optimizer_step(sg_session *s, sg_stream stream,
                                 const sg_refresh_args *args) {
  SG_NVTX_RANGE("refresh");
  sg_call c;
  sg_refresh_args in;
  sg_status st = sg_enter(&c, s, "post_optimizer_step");
  if (st == SG_OK) {
    st = SG_READ(&s->diag, sg_refresh_args, args, &in, "args");
  }
  if (st == SG_OK) {
    st = check_refresh_args(s, &in);
  }
  const sg_k_plan *plan = NULL;
  if (st == SG_OK) {
    st = check_selection(s, &in, &plan);
  }
  if (st == SG_OK) {
    st = sg_require_device(s);
  }
  if (st == SG_OK && s->fp8.count > 0) {
    st = launch(s, stream, &in, plan);
  }
  return sg_leave(&c, st);
}

/* post_optimizer_step: the FP8 refresh hook, one kernel launch (and with
 * SG_REFRESH_REDUCE_AMAX the cross-rank amax reduction after it). */
#include "args.h"
#include "cuda_check.h"
#include "entries.h"
#include "entry.h"
#include "nvtx.h"

#define KNOWN_FLAGS SG_REFRESH_REDUCE_AMAX

/* SG_REFRESH_REDUCE_AMAX: amax exists only in the cast modes, and the
 * reduction needs ranks to reduce over. */
static sg_status check_reduce(sg_session *s, const sg_refresh_args *in) {
  if (in->mode == SG_REFRESH_TRANSPOSE) {
    return sg_fail(&s->diag, SG_ERR_INVALID_ARGUMENT,
                   "args->flags has SG_REFRESH_REDUCE_AMAX but args->mode is "
                   "TRANSPOSE, which computes no amax");
  }
  if (!sg_comm_active(&s->comm)) {
    return sg_fail(&s->diag, SG_ERR_INVALID_STATE,
                   "args->flags has SG_REFRESH_REDUCE_AMAX but the session "
                   "has no communicator (config->nccl_comm)");
  }
  return SG_OK;
}

static sg_status check_refresh_args(sg_session *s, const sg_refresh_args *in) {
  if (in->mode > SG_REFRESH_CAST_TRANSPOSE) {
    return sg_fail(&s->diag, SG_ERR_INVALID_ARGUMENT,
                   "args->mode is %u (known: TRANSPOSE, CAST, CAST_TRANSPOSE)",
                   (unsigned)in->mode);
  }
  if ((in->flags & ~(uint32_t)KNOWN_FLAGS) != 0 || in->reserved0 != 0) {
    return sg_fail(&s->diag, SG_ERR_INVALID_ARGUMENT,
                   "args->flags/reserved0 are 0x%x/0x%x: unknown flag bits "
                   "(known: SG_REFRESH_REDUCE_AMAX 0x1) or reserved0 not 0",
                   (unsigned)in->flags, (unsigned)in->reserved0);
  }
  if ((in->flags & SG_REFRESH_REDUCE_AMAX) != 0) {
    return check_reduce(s, in);
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
 * the tile modes in the layout its shapes suit and the instances its tiles
 * allow: all from the registered parameters at each call (host metadata,
 * like the selection check). A captured launch keeps what it was captured
 * with, which is right for those parameters only: the whole-tile instances
 * would move a parameter registered later with edge or unaligned tiles as
 * whole aligned ones, past its bytes. So a launch into any capture (the
 * host's own, or the plugin's) closes registration, as capture_begin does
 * (sg_require_open_registry). */
static sg_status launch(sg_session *s, sg_stream stream,
                        const sg_refresh_args *in, const sg_k_plan *plan) {
  enum cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusNone;
  sg_status st = SG_CUDA(&s->diag, cudaStreamIsCapturing((cudaStream_t)stream, &capturing));
  if (st == SG_OK) {
    st = SG_CUDA(&s->diag, sg_k_refresh_launch(sg_registry_table(&s->fp8, in->group), in->mode,
                                               in->group, plan, in->noop_flag,
                                               &s->refresh_device, (cudaStream_t)stream));
  }
  if (st == SG_OK) {
    s->stats.refreshes++;
    s->frozen = s->frozen || capturing != cudaStreamCaptureStatusNone;
  }
  return st;
}

/* The registration-order span [first, first + span) of the selected
 * parameters, which the amax reduction covers; each of them must scale
 * from its amax (the delayed recipe): a current-scaling cast has already
 * used its own rank's amax, and block scaling keeps none. */
typedef struct selection {
  uint32_t first, span;
} selection;

static sg_status reduce_selection(sg_session *s, const sg_refresh_args *in,
                                  selection *sel) {
  uint32_t selected = 0;
  for (uint32_t i = 0; i < s->fp8.count; i++) {
    const sg_k_param *p = &s->fp8.params[i];
    if (in->group != SG_ALL_GROUPS && p->group != in->group) {
      continue;
    }
    if (p->recipe != SG_K_RECIPE_DELAYED) {
      return sg_fail(&s->diag, SG_ERR_INVALID_ARGUMENT,
                     "args->flags has SG_REFRESH_REDUCE_AMAX but registered "
                     "param %u does not use the delayed recipe, whose scales "
                     "come from the reduced amax",
                     i);
    }
    if (selected++ == 0) {
      sel->first = i;
    }
    sel->span = i + 1 - sel->first;
  }
  return SG_OK;
}

/* SG_REFRESH_REDUCE_AMAX: one collective for the whole selection, after
 * the refresh in stream order. */
static sg_status reduce_amax(sg_session *s, sg_stream stream,
                             const sg_refresh_args *in, const selection *sel) {
  return sg_comm_reduce_amax(&s->comm, s->fp8.device_table, s->fp8.count,
                             in->group, sel->first, sel->span,
                             (cudaStream_t)stream);
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
  const bool reduce = st == SG_OK && (in.flags & SG_REFRESH_REDUCE_AMAX) != 0;
  selection sel = {0, 0};
  if (st == SG_OK && reduce) {
    st = reduce_selection(s, &in, &sel);
  }
  if (st == SG_OK) {
    st = sg_require_device(s);
  }
  if (st == SG_OK && s->fp8.count > 0) {
    st = launch(s, stream, &in, plan);
  }
  if (st == SG_OK && s->fp8.count > 0 && reduce) {
    st = reduce_amax(s, stream, &in, &sel);
  }
  return sg_leave(&c, st);
}

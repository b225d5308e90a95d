#include "nccl_check.h"

#include <stdio.h>

#include "nccl_abi.h"

const sg_nccl_field sg_nccl_fields[SG_NCCL_FIELD_COUNT] = {
    {"all_reduce", "ncclAllReduce", offsetof(sg_nccl_functions, all_reduce)},
    {"comm_get_async_error", "ncclCommGetAsyncError",
     offsetof(sg_nccl_functions, comm_get_async_error)},
    {"comm_abort", "ncclCommAbort", offsetof(sg_nccl_functions, comm_abort)},
    {"get_version", "ncclGetVersion", offsetof(sg_nccl_functions, get_version)},
    {"comm_count", "ncclCommCount", offsetof(sg_nccl_functions, comm_count)},
    {"comm_user_rank", "ncclCommUserRank",
     offsetof(sg_nccl_functions, comm_user_rank)},
    {"comm_cu_device", "ncclCommCuDevice",
     offsetof(sg_nccl_functions, comm_cu_device)},
    {"get_error_string", "ncclGetErrorString",
     offsetof(sg_nccl_functions, get_error_string)},
};

static const char *result_name(int32_t result) {
  static const char *const names[] = {
      "ncclSuccess",        "ncclUnhandledCudaError", "ncclSystemError",
      "ncclInternalError",  "ncclInvalidArgument",    "ncclInvalidUsage",
      "ncclRemoteError",    "ncclInProgress"};
  if (result >= 0 && result < (int32_t)(sizeof names / sizeof names[0])) {
    return names[result];
  }
  return "unknown ncclResult_t";
}

void sg_nccl_describe(const sg_nccl_functions *f, int32_t result, char *buf,
                      size_t cap) {
  const char *text = f != NULL && f->get_error_string != NULL
                         ? f->get_error_string(result)
                         : NULL;
  snprintf(buf, cap, "%s %d (%s)", result_name(result), (int)result,
           text != NULL ? text : "no text");
}

sg_status sg_nccl_check(sg_diag *d, const sg_nccl_functions *f,
                        int32_t result, const char *call) {
  if (result == SG_NCCL_SUCCESS) {
    return SG_OK;
  }
  char what[256];
  sg_nccl_describe(f, result, what, sizeof what);
  return sg_fail(d, SG_ERR_NCCL, "%s failed: %s", call, what);
}

void sg_nccl_version_text(int32_t code, char *buf, size_t cap) {
  const int32_t major_unit = code >= 10000 ? 10000 : 1000;
  snprintf(buf, cap, "%d.%d.%d", (int)(code / major_unit),
           (int)(code % major_unit / 100), (int)(code % 100));
}

/* Real NCCL as a host passes it (config->nccl), and one check for its
 * return codes, for the tests that link NCCL. Header-only. */
#ifndef SG_REAL_NCCL_H
#define SG_REAL_NCCL_H

#include <check.h>
#include <nccl.h>
#include <string.h>

#include "stepgraph.h"

#define NT_NCCL(call)                                                     \
  do {                                                                    \
    ncclResult_t nt_r_ = (call);                                          \
    ck_assert_msg(nt_r_ == ncclSuccess, "%s: %s", #call,                  \
                  ncclGetErrorString(nt_r_));                             \
  } while (0)

/* The host's own NCCL, as config->nccl wants it. */
static inline sg_nccl_functions nt_real_table(void) {
  sg_nccl_functions t;
  memset(&t, 0, sizeof t);
  t.struct_size = sizeof t;
  t.all_reduce = (int32_t(*)(const void *, void *, size_t, int32_t, int32_t,
                             sg_nccl_comm, sg_stream))ncclAllReduce;
  t.comm_get_async_error =
      (int32_t(*)(sg_nccl_comm, int32_t *))ncclCommGetAsyncError;
  t.comm_abort = (int32_t(*)(sg_nccl_comm))ncclCommAbort;
  t.get_version = (int32_t(*)(int32_t *))ncclGetVersion;
  t.comm_count = (int32_t(*)(sg_nccl_comm, int32_t *))ncclCommCount;
  t.comm_user_rank = (int32_t(*)(sg_nccl_comm, int32_t *))ncclCommUserRank;
  t.comm_cu_device = (int32_t(*)(sg_nccl_comm, int32_t *))ncclCommCuDevice;
  t.get_error_string = (const char *(*)(int32_t))ncclGetErrorString;
  return t;
}

#endif

/* Real NCCL's functions as a host passes them in config->nccl: each NCCL
 * function cast to the table's type (its enums as int32_t). For the tests
 * and benchmarks that link NCCL. Header-only. */
#ifndef SG_NCCL_TABLE_H
#define SG_NCCL_TABLE_H

#include <nccl.h>
#include <string.h>

#include "stepgraph.h"

/* The host's own NCCL, as config->nccl wants it. */
static inline sg_nccl_functions sg_real_nccl_table(void) {
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

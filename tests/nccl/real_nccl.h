/* One check for real NCCL's return codes, for the tests that link NCCL,
 * and its table (nccl_table.h). Header-only. */
#ifndef SG_REAL_NCCL_H
#define SG_REAL_NCCL_H

#include <check.h>
#include <nccl.h>
#include <string.h>

#include "nccl_table.h"

#define NT_NCCL(call)                                                     \
  do {                                                                    \
    ncclResult_t nt_r_ = (call);                                          \
    ck_assert_msg(nt_r_ == ncclSuccess, "%s: %s", #call,                  \
                  ncclGetErrorString(nt_r_));                             \
  } while (0)

#endif

/* The few NCCL constants the plugin passes through sg_nccl_functions, as
 * NCCL's nccl.h numbers them (tests/nccl checks them against nccl.h). The
 * plugin never includes nccl.h: it builds and runs without NCCL, and talks
 * to whichever copy the host gives it. */
#ifndef SG_NCCL_ABI_H
#define SG_NCCL_ABI_H

/* ncclResult_t */
enum {
  SG_NCCL_SUCCESS = 0,
  SG_NCCL_UNHANDLED_CUDA_ERROR = 1,
  SG_NCCL_SYSTEM_ERROR = 2,
  SG_NCCL_INTERNAL_ERROR = 3,
  SG_NCCL_INVALID_ARGUMENT = 4,
  SG_NCCL_INVALID_USAGE = 5,
  SG_NCCL_REMOTE_ERROR = 6,
  SG_NCCL_IN_PROGRESS = 7
};

/* ncclDataType_t and ncclRedOp_t values the plugin uses. */
enum { SG_NCCL_UINT32 = 3, SG_NCCL_UINT64 = 5 };
enum { SG_NCCL_SUM = 0, SG_NCCL_MAX = 2 };

/* NCCL_VERSION(2, 9, 0): from 2.9 on, collectives can be captured into CUDA
 * graphs, which the plugin's graphs (and its in-graph amax reduction)
 * need. Codes of 2.9 and later are major*10000 + minor*100 + patch; older
 * ones (major*1000 + ...) are all smaller. */
#define SG_NCCL_MIN_VERSION 20900

#endif

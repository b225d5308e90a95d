/* The trainer's NCCL, loaded with dlopen like the plugin: the single-GPU
 * trainer runs without NCCL installed, and the communicator's own copy is
 * the one whose functions the plugin gets (sg_nccl_functions). The few NCCL
 * types and constants the trainer uses are declared here with nccl.h's
 * layout and numbers. */
#ifndef TR_NCCL_HOST_H
#define TR_NCCL_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stepgraph.h"

/* ncclUniqueId. */
typedef struct tr_nccl_id {
  char internal[128];
} tr_nccl_id;

/* ncclDataType_t and ncclRedOp_t values (nccl.h's). */
enum { TR_NCCL_UINT8 = 1, TR_NCCL_FLOAT32 = 7 };
enum { TR_NCCL_SUM = 0 };

typedef struct tr_nccl {
  void *lib;
  char path[4096]; /* what was loaded */
  int32_t (*get_unique_id)(tr_nccl_id *id);
  int32_t (*comm_init_rank)(sg_nccl_comm *comm, int32_t nranks, tr_nccl_id id,
                            int32_t rank);
  int32_t (*comm_destroy)(sg_nccl_comm comm);
  int32_t (*group_start)(void);
  int32_t (*group_end)(void);
  int32_t (*reduce_scatter)(const void *send, void *recv, size_t recvcount,
                            int32_t datatype, int32_t op, sg_nccl_comm comm,
                            sg_stream stream);
  int32_t (*all_gather)(const void *send, void *recv, size_t sendcount,
                        int32_t datatype, sg_nccl_comm comm, sg_stream stream);
  sg_nccl_functions plugin; /* what the plugin's config->nccl gets */
} tr_nccl;

/* dlopens $STEPGRAPH_NCCL_LIBRARY, else libnccl.so.2, and resolves every
 * function. On failure prints why and returns false. Touches no GPU (the
 * --ranks parent calls it before forking). */
bool tr_nccl_load(tr_nccl *n);

/* Exits with "<file>:<line>: <call> failed: <ncclResult> (<text>)" unless
 * result is ncclSuccess. */
void tr_check_nccl(const tr_nccl *n, int32_t result, const char *call,
                   const char *file, int line);
#define CK_NCCL(n, call) tr_check_nccl((n), (call), #call, __FILE__, __LINE__)

#endif

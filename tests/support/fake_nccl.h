/* A C test double of NCCL behind sg_nccl_functions: the calls a stepgraph
 * session makes, answered as NCCL would for a communicator of
 * fake.nranks ranks in which this process is fake.rank, with knobs that
 * inject what other ranks (or the network) do. It needs no NCCL and no GPU;
 * the device side of a collective is a hook (fake.collective) that GPU
 * tests install. State is one global: the tests using it are
 * single-threaded, and fake_nccl_reset() starts each case afresh. */
#ifndef SG_FAKE_NCCL_H
#define SG_FAKE_NCCL_H

#include <stddef.h>
#include <stdint.h>

#include "stepgraph.h"

/* The only communicator the double knows; others are ncclInvalidArgument. */
#define FAKE_COMM ((sg_nccl_comm)(uintptr_t)0xC0FFEE)

/* ncclResult_t values the tests use (nccl.h's numbers). */
enum {
  FAKE_SUCCESS = 0,
  FAKE_INVALID_ARGUMENT = 4,
  FAKE_INVALID_USAGE = 5,
  FAKE_REMOTE_ERROR = 6,
  FAKE_IN_PROGRESS = 7
};

typedef struct fake_nccl {
  int32_t version;          /* ncclGetVersion's answer */
  int32_t nranks, rank;     /* ncclCommCount, ncclCommUserRank */
  int32_t device;           /* ncclCommCuDevice */
  int32_t query_result;     /* what the three queries return */
  int32_t async_error;      /* ncclCommGetAsyncError's report */
  int32_t pending_polls;    /* reports ncclInProgress this many times first */
  int32_t collective_result; /* all_reduce's return (ncclInProgress: a
                                non-blocking communicator) */
  int calls, async_polls, aborts;
  /* The device side of all_reduce; NULL: all_reduce is ncclInvalidUsage. */
  int32_t (*collective)(const void *send, void *recv, size_t count,
                        int32_t datatype, int32_t op, sg_stream stream);
  void (*on_abort)(void); /* after comm_abort is counted; may be NULL */
} fake_nccl;

extern fake_nccl fake;

/* Version 2.28.9, the given ranks, device 0, every call succeeding, no
 * hooks. */
void fake_nccl_reset(int32_t nranks, int32_t rank);

/* The double as the table a host passes in config->nccl. */
sg_nccl_functions fake_nccl_table(void);

/* The functions themselves (the fake libnccl.so.2 exports them under
 * NCCL's names). */
int32_t fake_all_reduce(const void *send, void *recv, size_t count,
                        int32_t datatype, int32_t op, sg_nccl_comm comm,
                        sg_stream stream);
int32_t fake_get_async_error(sg_nccl_comm comm, int32_t *error);
int32_t fake_abort(sg_nccl_comm comm);
int32_t fake_get_version(int32_t *version);
int32_t fake_count(sg_nccl_comm comm, int32_t *count);
int32_t fake_user_rank(sg_nccl_comm comm, int32_t *rank);
int32_t fake_cu_device(sg_nccl_comm comm, int32_t *device);
const char *fake_error_string(int32_t result);

#endif

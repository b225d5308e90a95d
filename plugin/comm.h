/* The session's communicator (ABI 1.1): the NCCL functions that go with it
 * (the host's table, or a copy the plugin loaded), its rank and size, the
 * plugin's stream and buffers for the agreement after each capture and for
 * the refresh's amax reduction, the bounded waits, the abort, and the mark
 * that makes the session unusable after a communicator failure. A part:
 * it reports through the session's sg_diag and knows neither the session
 * nor its graphs. A single-GPU session has none (handle NULL). */
#ifndef SG_COMM_H
#define SG_COMM_H

#include <cuda_runtime_api.h>
#include <stdbool.h>
#include <stdint.h>

#include "error.h"

#define SG_COMM_DEFAULT_TIMEOUT_MS 600000u
#define SG_COMM_FAILURE_CAPACITY 600

typedef struct sg_comm {
  sg_diag *diag;
  sg_nccl_comm handle; /* NULL: single-GPU session; nothing below is set */
  sg_nccl_functions nccl;
  void *library; /* the dlopen handle when the plugin loaded NCCL */
  int32_t rank, nranks, version;
  uint32_t timeout_ms;    /* the agreement's bound */
  bool abort_on_timeout;  /* SG_NCCL_TIMEOUT_ABORT */
  bool forced_failure;    /* STEPGRAPH_TEST_FAIL_CAPTURE_RANK is this rank */
  cudaStream_t stream;    /* the agreement's */
  cudaEvent_t ordered;    /* after the capture stream's work */
  cudaEvent_t done;       /* the last agreement's result has landed */
  uint64_t *agree_dev;    /* [words]: one bit per rank that failed */
  uint64_t *agree_host;   /* pinned: [words] contribution, [words] result */
  uint32_t words;
  uint32_t *amax_dev;     /* [amax_capacity] amax bits for the reduction */
  uint32_t amax_capacity;
  bool unusable;
  char failure[SG_COMM_FAILURE_CAPACITY]; /* why unusable */
} sg_comm;

/* With cfg->nccl_comm: checks the host's table (or loads NCCL), the
 * version, and reads rank, size and device (which must be `device`); with
 * with_device also makes the stream, events and buffers (the device is
 * current; amax_capacity: the session's param_capacity). Without a
 * communicator it does nothing. On failure what was made stays for
 * sg_comm_close. */
sg_status sg_comm_open(sg_comm *c, sg_diag *d, const sg_session_config *cfg,
                       int device, bool with_device, uint32_t amax_capacity);
void sg_comm_close(sg_comm *c);

static inline bool sg_comm_active(const sg_comm *c) {
  return c->handle != NULL;
}

/* SG_OK, or SG_ERR_NCCL saying why the session is unusable. */
sg_status sg_comm_require_usable(sg_comm *c);

/* Polls the communicator's asynchronous error once: an error fails with
 * SG_ERR_NCCL and NCCL's text, makes the session unusable and, with
 * SG_NCCL_TIMEOUT_ABORT, aborts the communicator. */
sg_status sg_comm_check_async(sg_comm *c);

/* A bounded wait ran out: aborts the communicator when the config says so
 * (then the session is unusable) and fails with SG_ERR_TIMEOUT and
 * "<what>", saying what was done. */
sg_status sg_comm_timed_out(sg_comm *c, const char *what);

/* The agreement: this rank's outcome (ok or not) into one all-reduce among
 * all ranks, on the plugin's stream after the work on `after`, waited for
 * with the config's bound. *failed_out: one bit per rank that failed
 * (valid until the next agreement). SG_ERR_TIMEOUT or SG_ERR_NCCL when no
 * answer came; `about` ("key 7") names the agreement in their messages. */
sg_status sg_comm_agree(sg_comm *c, cudaStream_t after, bool ok,
                        const char *about, const uint64_t **failed_out);

/* Whether bit `rank` is set; "ranks 1, 3 of 4" into buf for the set
 * bits (the list cut short with "..." when buf is too small). */
bool sg_comm_rank_set(const uint64_t *bits, int32_t rank);
void sg_comm_list_ranks(const sg_comm *c, const uint64_t *bits, char *buf,
                        size_t cap);

/* The amax reduction on `stream`: gather of the span's amax from the
 * refresh table, one all-reduce MAX, scatter back. count: registered
 * parameters (the grid's size hint). Capture-safe. */
sg_status sg_comm_reduce_amax(sg_comm *c, const void *device_table,
                              uint32_t count, uint32_t group, uint32_t first,
                              uint32_t span, cudaStream_t stream);

#endif

/* The communicator part: its checks at session_create, its device
 * resources, the unusable mark, the asynchronous-error poll and the abort.
 * The collectives themselves are in comm_collectives.c. */
#include "comm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "amax_reduce.h"
#include "args.h"
#include "cuda_check.h"
#include "nccl_abi.h"
#include "nccl_check.h"
#include "nccl_loader.h"

#define FAIL_RANK_ENV "STEPGRAPH_TEST_FAIL_CAPTURE_RANK"

/* An NCCL call through the table, named for messages. */
#define NCCL(c, name, call) sg_nccl_check((c)->diag, &(c)->nccl, (call), name)

/* The host's table: the struct_size rules, then every field present and
 * wholly inside struct_size (a pointer cut by it would be garbage). */
static sg_status read_table(sg_comm *c, const sg_nccl_functions *t) {
  sg_status st =
      SG_READ(c->diag, sg_nccl_functions, t, &c->nccl, "config->nccl");
  for (size_t i = 0; i < SG_NCCL_FIELD_COUNT && st == SG_OK; i++) {
    void *fn = NULL;
    const size_t at = sg_nccl_fields[i].offset;
    if (c->nccl.struct_size >= at + sizeof fn) {
      memcpy(&fn, (const char *)&c->nccl + at, sizeof fn);
    }
    if (fn == NULL) {
      st = sg_fail(c->diag, SG_ERR_INVALID_ARGUMENT,
                   "config->nccl->%s is NULL or beyond its struct_size %zu: "
                   "it must be %s (every field of ABI 1.1's "
                   "sg_nccl_functions is required)",
                   sg_nccl_fields[i].field, t->struct_size,
                   sg_nccl_fields[i].symbol);
    }
  }
  return st;
}

static sg_status find_functions(sg_comm *c, const sg_session_config *cfg,
                                char *where, size_t cap) {
  if (cfg->nccl != NULL) {
    snprintf(where, cap, "the host's table (config->nccl)");
    return read_table(c, cfg->nccl);
  }
  return sg_nccl_load(c->diag, &c->nccl, &c->library, where, cap);
}

static sg_status check_version(sg_comm *c) {
  sg_status st = NCCL(c, "ncclGetVersion", c->nccl.get_version(&c->version));
  char text[32];
  sg_nccl_version_text(c->version, text, sizeof text);
  if (st == SG_OK && c->version < SG_NCCL_MIN_VERSION) {
    st = sg_fail(c->diag, SG_ERR_NCCL,
                 "NCCL %s (ncclGetVersion %d) is too old: stepgraph needs "
                 "2.9.0 or newer, the first NCCL that captures collectives "
                 "into CUDA graphs",
                 text, (int)c->version);
  }
  return st;
}

/* Rank, size and device of the communicator, checked. */
static sg_status read_comm(sg_comm *c, int device) {
  int32_t dev = -1;
  sg_status st = NCCL(c, "ncclCommCount",
                      c->nccl.comm_count(c->handle, &c->nranks));
  if (st == SG_OK) {
    st = NCCL(c, "ncclCommUserRank",
               c->nccl.comm_user_rank(c->handle, &c->rank));
  }
  if (st == SG_OK) {
    st = NCCL(c, "ncclCommCuDevice",
               c->nccl.comm_cu_device(c->handle, &dev));
  }
  if (st == SG_OK && (c->nranks < 1 || c->rank < 0 || c->rank >= c->nranks)) {
    st = sg_fail(c->diag, SG_ERR_NCCL,
                 "the communicator says rank %d of %d ranks, which is not a "
                 "rank of it",
                 (int)c->rank, (int)c->nranks);
  }
  if (st == SG_OK && dev != device) {
    st = sg_fail(c->diag, SG_ERR_INVALID_ARGUMENT,
                 "config->device is %d but the communicator's device "
                 "(ncclCommCuDevice) is %d",
                 device, (int)dev);
  }
  return st;
}

/* STEPGRAPH_TEST_FAIL_CAPTURE_RANK=r: rank r's captures count as failed,
 * so that multi-GPU tests can make one rank fail. Unreadable values warn
 * once and are ignored. */
static void read_fail_switch(sg_comm *c) {
  static int warned;
  const char *v = getenv(FAIL_RANK_ENV);
  if (v == NULL || *v == '\0') {
    return;
  }
  char *end = NULL;
  long r = strtol(v, &end, 10);
  if (*end != '\0' || r < 0 || r > INT32_MAX) {
    sg_log_env_warning(&c->diag->log, &warned,
                       FAIL_RANK_ENV "=\"%s\" is not a rank; ignored", v);
    return;
  }
  c->forced_failure = r == c->rank;
}

static sg_status open_device(sg_comm *c, uint32_t amax_capacity) {
  sg_diag *d = c->diag;
  c->words = (uint32_t)((c->nranks + 63) / 64);
  c->amax_capacity = amax_capacity;
  /* Its kernels may first launch inside a capture: load them now. */
  sg_status st = SG_CUDA(d, sg_k_amax_load());
  if (st == SG_OK) {
    st = SG_CUDA(d, cudaStreamCreateWithFlags(&c->stream,
                                              cudaStreamNonBlocking));
  }
  if (st == SG_OK) {
    st = SG_CUDA(d, cudaEventCreateWithFlags(&c->ordered,
                                             cudaEventDisableTiming));
  }
  if (st == SG_OK) {
    st = SG_CUDA(d, cudaEventCreateWithFlags(&c->done,
                                             cudaEventDisableTiming));
  }
  if (st == SG_OK) {
    st = SG_CUDA(d, cudaMalloc((void **)&c->agree_dev,
                               c->words * sizeof(uint64_t)));
  }
  if (st == SG_OK) {
    st = SG_CUDA(d, cudaMallocHost((void **)&c->agree_host,
                                   2u * c->words * sizeof(uint64_t)));
  }
  if (st == SG_OK) {
    st = SG_CUDA(d, cudaMalloc((void **)&c->amax_dev,
                               (size_t)amax_capacity * sizeof(uint32_t)));
  }
  return st;
}

static void log_opened(const sg_comm *c, const char *where) {
  char version[32];
  sg_nccl_version_text(c->version, version, sizeof version);
  sg_log(&c->diag->log, SG_LOG_INFO,
         "multi-GPU session: rank %d of %d; NCCL %s from %s; agreement "
         "timeout %u ms; on timeout: %s%s",
         (int)c->rank, (int)c->nranks, version, where, c->timeout_ms,
         c->abort_on_timeout ? "abort the communicator" : "return",
         c->forced_failure ? "; " FAIL_RANK_ENV " makes this rank's captures "
                             "fail"
                           : "");
}

sg_status sg_comm_open(sg_comm *c, sg_diag *d, const sg_session_config *cfg,
                       int device, bool with_device, uint32_t amax_capacity) {
  memset(c, 0, sizeof *c);
  c->diag = d;
  if (cfg->nccl_comm == NULL) {
    return SG_OK;
  }
  c->timeout_ms = cfg->nccl_timeout_ms != 0 ? cfg->nccl_timeout_ms
                                            : SG_COMM_DEFAULT_TIMEOUT_MS;
  c->abort_on_timeout = cfg->nccl_on_timeout == SG_NCCL_TIMEOUT_ABORT;
  char where[640];
  sg_status st = find_functions(c, cfg, where, sizeof where);
  if (st == SG_OK) {
    st = check_version(c);
  }
  c->handle = cfg->nccl_comm; /* the host's: close never touches it */
  if (st == SG_OK) {
    st = read_comm(c, device);
  }
  if (st == SG_OK && with_device) {
    st = open_device(c, amax_capacity);
  }
  if (st == SG_OK) {
    read_fail_switch(c);
    log_opened(c, where);
  }
  return st;
}

void sg_comm_close(sg_comm *c) {
  sg_diag *d = c->diag;
  /* cudaFree and cudaFreeHost wait for the device: an agreement still in
   * flight finishes (or was aborted) before its buffers go. */
  if (c->amax_dev != NULL) {
    (void)SG_CUDA(d, cudaFree(c->amax_dev));
  }
  if (c->agree_host != NULL) {
    (void)SG_CUDA(d, cudaFreeHost(c->agree_host));
  }
  if (c->agree_dev != NULL) {
    (void)SG_CUDA(d, cudaFree(c->agree_dev));
  }
  if (c->done != NULL) {
    (void)SG_CUDA(d, cudaEventDestroy(c->done));
  }
  if (c->ordered != NULL) {
    (void)SG_CUDA(d, cudaEventDestroy(c->ordered));
  }
  if (c->stream != NULL) {
    (void)SG_CUDA(d, cudaStreamDestroy(c->stream));
  }
  sg_nccl_unload(c->library);
  memset(c, 0, sizeof *c);
}

/* From now on the session answers device entries with SG_ERR_NCCL. The
 * first failure is the one kept. */
static void mark_unusable(sg_comm *c, const char *why) {
  if (!c->unusable) {
    c->unusable = true;
    snprintf(c->failure, sizeof c->failure, "%s", why);
  }
}

sg_status sg_comm_require_usable(sg_comm *c) {
  if (!c->unusable) {
    return SG_OK;
  }
  return sg_fail(c->diag, SG_ERR_NCCL,
                 "the session is unusable since %s; destroy it, then the "
                 "communicator",
                 c->failure);
}

/* Aborts the communicator (SG_NCCL_TIMEOUT_ABORT); a failing abort is
 * logged: the session is unusable either way. */
static void abort_comm(sg_comm *c, const char *why) {
  char text[SG_COMM_FAILURE_CAPACITY];
  const int32_t r = c->nccl.comm_abort(c->handle);
  char result[256];
  sg_nccl_describe(&c->nccl, r, result, sizeof result);
  /* Both parts bounded so that the whole always fits. */
  snprintf(text, sizeof text, "%.256s; the communicator was aborted "
           "(config.nccl_on_timeout; ncclCommAbort returned %.200s)",
           why, result);
  sg_log(&c->diag->log, SG_LOG_ERROR, "%s", text);
  mark_unusable(c, text);
}

sg_status sg_comm_check_async(sg_comm *c) {
  int32_t async = SG_NCCL_SUCCESS;
  sg_status st = NCCL(c, "ncclCommGetAsyncError",
                      c->nccl.comm_get_async_error(c->handle, &async));
  if (st != SG_OK || async == SG_NCCL_SUCCESS || async == SG_NCCL_IN_PROGRESS) {
    return st;
  }
  char why[SG_COMM_FAILURE_CAPACITY], what[256];
  sg_nccl_describe(&c->nccl, async, what, sizeof what);
  snprintf(why, sizeof why,
           "the communicator reported an asynchronous error: %s", what);
  if (c->abort_on_timeout) {
    abort_comm(c, why);
  } else {
    mark_unusable(c, why);
  }
  return sg_fail(c->diag, SG_ERR_NCCL, "%s", c->failure);
}

sg_status sg_comm_timed_out(sg_comm *c, const char *what) {
  if (!c->abort_on_timeout) {
    return sg_fail(c->diag, SG_ERR_TIMEOUT,
                   "%s; the communicator was left alone "
                   "(config.nccl_on_timeout is SG_NCCL_TIMEOUT_RETURN)",
                   what);
  }
  abort_comm(c, what);
  return sg_fail(c->diag, SG_ERR_TIMEOUT, "%s", c->failure);
}

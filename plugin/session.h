/* The session: the state every entry works on, and its construction.
 * Each part keeps its own state in its own file (registry.h, statics.h,
 * rng.h, graphs.h, comm.h) and reports through the session's sg_diag; the entry
 * protocol (entry.h) locks the session and makes its device current. */
#ifndef SG_SESSION_H
#define SG_SESSION_H

#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdbool.h>

#include "comm.h"
#include "conds.h"
#include "detector.h"
#include "error.h"
#include "graphs.h"
#include "registry.h"
#include "rng.h"
#include "statics.h"
#include "stepgraph.h"

/* OPEN: registering; pre_capture moves to READY; capture_begin to CAPTURING
 * and capture_end back to READY. Registering again returns to OPEN (the
 * tables must be checked again) until the first capture freezes them. */
typedef enum sg_state {
  SG_STATE_OPEN,
  SG_STATE_READY,
  SG_STATE_CAPTURING
} sg_state;

struct sg_session {
  pthread_mutex_t lock; /* recursive: the step callback re-enters */
  sg_diag diag;         /* the detail message and the logger */
  sg_session_config config; /* the host's, defaults filled in */
  bool validation_only;
  bool frozen; /* a capture has begun, or a refresh was captured: registration is closed */
  sg_state state;
  int device;
  int sm_count;
  /* The refresh kernels' launch facts for the device (grid sizes, the wide
   * layout), queried once at creation: a launch queries nothing. */
  sg_k_refresh_device refresh_device;
  cudaStream_t aux_stream; /* the plugin's own, for table uploads */
  char *dump_dir; /* STEPGRAPH_DUMP_DIR at creation (owned), or NULL */
  sg_registry fp8;
  sg_statics statics;
  sg_rng rng;
  sg_graphs graphs;
  sg_conds conds;       /* guards and loops */
  sg_detector detector; /* the stale-transpose detector */
  sg_comm comm; /* multi-GPU sessions only (ABI 1.1) */
  sg_stats stats;
};

/* Checks *config (defaults filled in; failures in the thread's message)
 * and builds a session on its device, which is made current for the call
 * and restored after. On failure nothing is left allocated. */
sg_status sg_session_new(const sg_session_config *config, sg_session **out);

/* Releases everything the session holds, graph executables first. The
 * device is made current for the call and restored after. */
void sg_session_free(sg_session *s);

#endif

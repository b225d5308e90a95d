/* The session: its state machine, its lock, and the helpers every entry uses
 * to enter, fail and leave. Each subsystem keeps its own part of the state
 * (registry.h, statics.h, rng.h, graphs.h). */
#ifndef SG_SESSION_H
#define SG_SESSION_H

#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdbool.h>

#include "cuda_check.h"
#include "error.h"
#include "graphs.h"
#include "log.h"
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
  sg_error error;
  sg_logger log;
  sg_session_config config; /* the host's, defaults filled in */
  bool validation_only;
  bool frozen; /* a capture has begun: registration is closed */
  sg_state state;
  int device;
  int sm_count;
  cudaStream_t aux_stream; /* the plugin's own, for table uploads */
  sg_registry fp8;
  sg_statics statics;
  sg_rng rng;
  sg_graphs graphs;
  sg_stats stats;
};

/* One entry call in flight: which session, and the entry's name for
 * messages (restored on leave, since the step callback nests entries). */
typedef struct sg_call {
  sg_session *session;
  const char *prev_entry;
  bool locked;
  sg_device_scope device; /* the caller's device, restored on leave */
} sg_call;

/* Begins an entry: names it for messages, takes the session's lock and
 * makes the session's device current for the calling thread (not in
 * validation-only sessions). A NULL session is an SG_ERR_INVALID_ARGUMENT
 * (thread's message). */
sg_status sg_enter(sg_call *c, sg_session *s, const char *entry);

/* Ends an entry begun by sg_enter (whatever it returned): restores the
 * caller's device, unlocks; passes st on. */
sg_status sg_leave(sg_call *c, sg_status st);

/* Records "<entry>: <message>" as the detail (the session's, or the
 * thread's when s is NULL), logs it, and returns code. */
sg_status sg_fail(sg_session *s, sg_status code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The name of the entry running on this thread ("" outside any). */
const char *sg_current_entry(void);

/* Guards shared by entries: each returns SG_OK or fails with a message. */
sg_status sg_require_device(sg_session *s);
sg_status sg_require_not_capturing(sg_session *s);
sg_status sg_require_open_registry(sg_session *s);
/* For entries that wait for `stream`: not while capturing, a real stream
 * (not the legacy or per-thread handle), a device. */
sg_status sg_require_sync_allowed(sg_session *s, sg_stream stream);

#endif

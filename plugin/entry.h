/* The entry protocol: what every entry of the table does first and last,
 * and the guards entries share. */
#ifndef SG_ENTRY_H
#define SG_ENTRY_H

#include <stdbool.h>

#include "cuda_check.h"
#include "session.h"

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

/* Begins an entry that takes no session (session_create): names it only. */
void sg_enter_unlocked(sg_call *c, const char *entry);

/* Ends an entry begun by sg_enter (whatever it returned): restores the
 * caller's device, unlocks; passes st on. */
sg_status sg_leave(sg_call *c, sg_status st);

/* Guards shared by entries: each returns SG_OK or fails with a message.
 * sg_require_device: a GPU session that a communicator failure has not
 * made unusable (comm.h); registration checks the latter too. */
sg_status sg_require_device(sg_session *s);
/* For device entries that also serve validation-only sessions (the RNG's):
 * refuses only a multi-GPU session made unusable by an NCCL error or an
 * abort, as sg_require_device does for the others. */
sg_status sg_require_usable(sg_session *s);
sg_status sg_require_not_capturing(sg_session *s);
sg_status sg_require_open_registry(sg_session *s);
/* For entries that wait for `stream`: not while capturing, not the legacy
 * stream, a device. */
sg_status sg_require_sync_allowed(sg_session *s, sg_stream stream);

#endif

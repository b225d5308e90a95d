/* The capture and replay engine, shared by the entries capture_begin,
 * capture_end, replay, step and pre_capture. Every function expects the
 * entry protocol's state: the session locked, its device current. */
#ifndef SG_ENGINE_H
#define SG_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

#include "session.h"

/* The stream is not capturing and belongs to the session's device; `name`
 * names the argument in messages. */
sg_status sg_engine_check_stream(sg_session *s, sg_stream stream,
                                 const char *name);

/* Begins capturing `key` on `stream` in sg_capture_mode `mode` (the session
 * must be READY; it becomes CAPTURING). SG_RUN_EAGERLY (see
 * sg_engine_answer_eager) when graphs are disabled or the key is
 * eager-only. *entry_out: the key's entry (also on SG_RUN_EAGERLY). */
sg_status sg_engine_begin(sg_session *s, uint64_t key, sg_stream stream,
                          uint32_t mode, sg_graph **entry_out);

/* Ends the capture in progress and instantiates or updates its graph; on a
 * failed capture, SG_ERR_CAPTURE_FAILED and the key becomes eager-only.
 * With a communicator it ends with the agreement (agreement.h): when only
 * other ranks failed it answers SG_RUN_EAGERLY for the key. */
sg_status sg_engine_end(sg_session *s);

/* Ends the capture in progress and throws it away (the step callback gave
 * up, or the session is destroyed mid-capture). *invalidated_out: whether
 * CUDA had already invalidated it; then the key is eager-only, as after a
 * failed capture_end. With a communicator and `agree` (the step driver;
 * not session_destroy, which must not wait) the key becomes eager-only in
 * every case and this rank takes part in the agreement as a failure: SG_OK
 * once the ranks agreed, else the agreement's SG_ERR_TIMEOUT or
 * SG_ERR_NCCL. */
sg_status sg_engine_abandon(sg_session *s, bool agree, bool *invalidated_out);

/* Copies the sources (checked against the registered buffers by the
 * caller) into their static buffers on `stream`: one kernel launch per 64.
 * Host sources are each checked first; if one is refused nothing is
 * enqueued. */
sg_status sg_engine_copy_sources(sg_session *s, sg_stream stream,
                                 const sg_sources *src);

/* One launch of the entry's executable on `stream`. */
sg_status sg_engine_launch(sg_session *s, sg_graph *e, sg_stream stream);

/* The answer for an eager-only key: counts the eager run, sets the detail
 * message "<entry>: key K runs eagerly: <reason>", logs it the first time
 * only, and returns SG_RUN_EAGERLY. */
sg_status sg_engine_answer_eager(sg_session *s, sg_graph *e);

/* The same for the step driver, which runs the step itself and succeeds:
 * counts and logs once, leaves the detail message alone. */
void sg_engine_note_eager(sg_session *s, sg_graph *e);

#endif

/* Conditional regions (guards and loops), for the entries guard_begin,
 * guard_end, loop_begin, loop_next and for the engine. Three files:
 * cond_route.c decides whether an entry works in the session's capture or
 * eagerly and checks what the closing entries close; cond_capture.c builds
 * the conditional nodes of a capture; cond_eager.c runs regions eagerly.
 * Every function expects the entry protocol's state (session locked, its
 * device current). */
#ifndef SG_COND_H
#define SG_COND_H

#include <stdbool.h>
#include <stdint.h>

#include "session.h"

/* --- cond_route.c ---------------------------------------------------------- */

/* The arguments every opening entry takes: `stream` a real stream, `ptr`
 * (named ptr_name) and both outs not NULL (index_out may be NULL for a
 * guard, which has none). */
sg_status sg_cond_check_open(sg_session *s, sg_stream stream,
                             const int32_t *ptr, const char *ptr_name,
                             const void *out, const char *out_name);

/* *captured: true while the session captures (stream must be the capture
 * stream); false when it does not (stream must not be capturing: a capture
 * the host began itself gets SG_ERR_INVALID_STATE). */
sg_status sg_cond_route(sg_session *s, sg_stream stream, bool *captured);

/* The innermost region, which must be of `kind` and opened on `stream`;
 * SG_ERR_INVALID_STATE / SG_ERR_INVALID_ARGUMENT saying what is open. */
sg_status sg_cond_require_top(sg_session *s, sg_stream stream, uint32_t kind,
                              sg_region **out);

/* Closes every region left open (eagerly: nothing is enqueued) and fails
 * with SG_ERR_INVALID_STATE saying that `who` left them; SG_OK when none
 * was open. */
sg_status sg_cond_require_closed(sg_session *s, const char *who);

/* --- cond_capture.c -------------------------------------------------------- */

/* Opens a captured region of `kind` on the capture stream: value is the
 * guard's flag or the loop's trip count; *index_out (loops) gets its index
 * word. SG_ERR_CAPACITY when 8 are open or no index word is free; a CUDA
 * failure does not fail the entry but the capture (capture_end reports
 * it), keeping the stream recording. */
sg_status sg_cond_capture_open(sg_session *s, uint32_t kind,
                               const int32_t *value,
                               const uint32_t **index_out);

/* Closes the innermost captured region (sg_cond_require_top checked it). */
void sg_cond_capture_close(sg_session *s);

/* The engine's part. A capture has begun in CUDA mode `mode`. */
void sg_cond_capture_begin(sg_session *s, int mode);

/* Ends the capture's last segment: *graph gets the whole step's graph
 * (the caller owns it), or NULL with the error (all of it destroyed). */
cudaError_t sg_cond_capture_finish(sg_session *s, cudaGraph_t *graph);

/* Ends whatever the capture stream records and destroys all of the
 * capture (regions, bodies, words it took); the stream is not capturing
 * after it. Returns what ending it returned (cudaSuccess when it was not
 * capturing any more). */
cudaError_t sg_cond_capture_discard(sg_session *s);

/* The capture's bodies' nodes, counted once each (added to *nodes). */
sg_status sg_cond_capture_count(sg_session *s, uint64_t *nodes);

/* The capture became graph e->captures of key e->key: its loops' index
 * words are that graph's now. */
void sg_cond_capture_commit(sg_session *s, const sg_graph *e);

/* --- cond_eager.c ---------------------------------------------------------- */

/* Eager regions: guard_begin waits for the stream and reads *flag;
 * loop_begin reads *trip and resets the index; loop_next advances it. */
sg_status sg_cond_eager_guard(sg_session *s, sg_stream stream,
                              const int32_t *flag, uint32_t *run_body);
sg_status sg_cond_eager_loop(sg_session *s, sg_stream stream,
                             const int32_t *trip, const uint32_t **index_out,
                             uint32_t *again);
sg_status sg_cond_eager_next(sg_session *s, sg_region *r, uint32_t *again);
/* guard_end of an eager guard: nothing to enqueue. */
void sg_cond_eager_end(sg_session *s);

#endif

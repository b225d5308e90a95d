/* Bounded waits by polling: sync's wait for a stream, the agreement's wait
 * for its collective, a non-blocking communicator's call in progress. A
 * leaf: the caller says what one poll looks at. */
#ifndef SG_POLL_H
#define SG_POLL_H

#include <stdbool.h>
#include <stdint.h>

#include "stepgraph.h"

/* One poll: sets *done when the wait is over; a status other than SG_OK
 * ends the wait with it. */
typedef sg_status (*sg_poll_fn)(void *ctx, bool *done);

/* Calls fn (at least once) until it is done (SG_OK) or fails (its status),
 * or until timeout_ms have passed: SG_ERR_TIMEOUT, with no message (the
 * caller names what timed out). Between polls it sleeps 10 us, doubling
 * up to 1 ms, so a short wait stays short and a timeout is late by about
 * 1 ms at most. */
sg_status sg_poll_until(sg_poll_fn fn, void *ctx, uint32_t timeout_ms);

#endif

/* The agreement after a capture in a session with a communicator: no rank
 * may replay a graph the others will not match. Beside the engine (layer
 * 3), which calls it at the end of every capture; it uses the session,
 * its graph cache and its communicator below it. */
#ifndef SG_AGREEMENT_H
#define SG_AGREEMENT_H

#include "session.h"

/* Settles key e's capture among the ranks. `local` is this rank's status
 * for it (SG_OK: the key's graph is installed; else the failure, whose
 * message is the session's detail); `stream` the capture stream, whose
 * work the agreement is ordered after. Without a communicator: `local`.
 * Otherwise:
 *   SG_OK                  every rank succeeded;
 *   SG_ERR_CAPTURE_FAILED  this rank failed: the key is eager-only, the
 *                          detail keeps the cause and names every rank
 *                          that failed;
 *   SG_RUN_EAGERLY         only other ranks failed: the key's graph is
 *                          dropped and the key is eager-only with a reason
 *                          naming them (the caller answers for it);
 *   SG_ERR_TIMEOUT, SG_ERR_NCCL  no agreement: the key is eager-only. */
sg_status sg_agreement_settle(sg_session *s, sg_graph *e, cudaStream_t stream,
                              sg_status local);

#endif

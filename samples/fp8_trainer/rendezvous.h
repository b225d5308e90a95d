/* How the ranks of a job started from outside (torchrun-style RANK,
 * WORLD_SIZE, LOCAL_RANK) get NCCL's unique id without MPI: rank 0 makes
 * it and leaves it in a file on a path every rank can read; the others
 * wait for the file. Use a fresh path per job: rank 0 replaces a file left
 * there and removes its own once every rank has joined (tr_dist_open). */
#ifndef TR_RENDEZVOUS_H
#define TR_RENDEZVOUS_H

#include <stdint.h>

#include "nccl_host.h"

/* How long the other ranks wait for rank 0's file. */
#define TR_RENDEZVOUS_WAIT_S 300

/* Rank 0: makes the id and publishes it atomically (a temporary file,
 * then rename). Others: read it once it is complete. Exits on failure. */
void tr_rendezvous(const tr_nccl *n, const char *path, uint32_t rank,
                   tr_nccl_id *id);

#endif

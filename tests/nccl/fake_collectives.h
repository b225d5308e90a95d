/* The device side of the NCCL test double (fake.collective): an
 * all-reduce among this rank and injected "other ranks", or one that never
 * completes until the communicator is aborted. Everything it enqueues is
 * capturable (copies through pinned memory and a host function; a spin
 * kernel), so it works eagerly and inside graphs. */
#ifndef SG_FAKE_COLLECTIVES_H
#define SG_FAKE_COLLECTIVES_H

#include <stdint.h>

#include "fake_nccl.h"

#define FAKE_MAX_ELEMS 4096u

/* What the other ranks contribute, combined with this rank's data the way
 * the op says: SUM for uint64 (the agreement's failure bits), MAX for
 * uint32 (the amax bits). `seen` keeps this rank's own contribution of the
 * last all-reduce. */
typedef struct fake_peers {
  uint64_t sum_u64[FAKE_MAX_ELEMS];
  uint32_t max_u32[FAKE_MAX_ELEMS];
  uint64_t seen[FAKE_MAX_ELEMS];
  size_t seen_count;
} fake_peers;

extern fake_peers peers;

/* Installs the reducing all-reduce (peers zeroed: a world where every
 * other rank contributes nothing). Allocates its pinned staging once. */
void fake_collectives_reduce(void);

/* Installs an all-reduce whose kernel spins until comm_abort (or
 * fake_collectives_release) sets a host-mapped flag, or 30 s pass. */
void fake_collectives_hang(void);

/* Lets a spinning all-reduce finish without an abort. */
void fake_collectives_release(void);

#endif

#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include "rendezvous.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "checks.h"

/* What the file holds: a tag (so a truncated or foreign file is not taken
 * for an id), then the id. */
static const char tag[8] = "SGNCCL1";

static void publish(const char *path, const tr_nccl_id *id) {
  char tmp[4200];
  snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
  FILE *f = fopen(tmp, "wb");
  if (f == NULL || fwrite(tag, sizeof tag, 1, f) != 1 ||
      fwrite(id, sizeof *id, 1, f) != 1 || fclose(f) != 0 ||
      rename(tmp, path) != 0) {
    tr_die(__FILE__, __LINE__, "writing the rendezvous file", path,
           strerror(errno));
  }
}

/* true once the file is there and whole. */
static bool try_read(const char *path, tr_nccl_id *id) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) {
    return false;
  }
  char got[sizeof tag];
  const bool ok = fread(got, sizeof got, 1, f) == 1 &&
                  memcmp(got, tag, sizeof tag) == 0 &&
                  fread(id, sizeof *id, 1, f) == 1;
  fclose(f);
  return ok;
}

void tr_rendezvous(const tr_nccl *n, const char *path, uint32_t rank,
                   tr_nccl_id *id) {
  if (rank == 0) {
    CK_NCCL(n, n->get_unique_id(id));
    publish(path, id);
    return;
  }
  const struct timespec pause = {0, 50 * 1000 * 1000};
  for (int waited = 0; waited < TR_RENDEZVOUS_WAIT_S * 20; waited++) {
    if (try_read(path, id)) {
      return;
    }
    nanosleep(&pause, NULL);
  }
  fprintf(stderr,
          "fp8_trainer: rank %u: no NCCL id in %s after %d s (is rank 0 "
          "running, and the path shared?)\n",
          rank, path, TR_RENDEZVOUS_WAIT_S);
  exit(TR_EXIT_FAILURE);
}

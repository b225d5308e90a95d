#define _POSIX_C_SOURCE 200809L /* kill */
#include "ranks.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "checks.h"
#include "rendezvous.h"

bool tr_ranks_requested(const tr_options *o) {
  return o->ranks > 0 ||
         (getenv("RANK") != NULL && getenv("WORLD_SIZE") != NULL);
}

/* One rank in this process: its communicator around the body. */
static int run_rank(const tr_plugin *p, const tr_options *o, tr_rank_fn body,
                    const tr_nccl *n, const tr_world *w) {
  tr_dist d;
  tr_dist_open(&d, n, w, o->shard_optimizer, o->buckets, o->layers);
  printf("rank %u of %u on GPU %d (NCCL from %s)%s\n", w->rank, w->size,
         w->device, n->path,
         o->shard_optimizer ? ", sharded optimizer" : "");
  const int rc = body(p, o, &d); /* its sessions are gone when it returns */
  tr_dist_close(&d);
  return rc;
}

/* The first failure decides; the others are stopped (SIGTERM) since they
 * would wait in a collective for the failed rank. */
static int wait_ranks(const pid_t *pids, uint32_t n) {
  int first = 0;
  for (uint32_t done = 0; done < n; done++) {
    int status = 0;
    const pid_t pid = wait(&status);
    if (pid < 0) {
      perror("fp8_trainer: wait");
      return TR_EXIT_FAILURE;
    }
    const int rc = WIFEXITED(status) ? WEXITSTATUS(status)
                                     : 128 + WTERMSIG(status);
    if (rc != 0 && first == 0) {
      first = rc;
      for (uint32_t r = 0; r < n; r++) {
        if (pids[r] == pid) {
          fprintf(stderr, "fp8_trainer: rank %u ended with status %d; "
                  "stopping the others\n", r, rc);
        } else {
          kill(pids[r], SIGTERM);
        }
      }
    }
  }
  return first;
}

static int fork_ranks(const tr_plugin *p, const tr_options *o,
                      tr_rank_fn body, const tr_nccl *n) {
  tr_world w;
  memset(&w, 0, sizeof w);
  w.size = o->ranks;
  CK_NCCL(n, n->get_unique_id(&w.id)); /* NCCL only: no CUDA here */
  pid_t *pids = TR_CALLOC(o->ranks, sizeof *pids, "rank pids");
  fflush(stdout);
  fflush(stderr);
  for (uint32_t r = 0; r < o->ranks; r++) {
    pids[r] = fork();
    if (pids[r] < 0) {
      perror("fp8_trainer: fork");
      exit(TR_EXIT_FAILURE);
    }
    if (pids[r] == 0) {
      setvbuf(stdout, NULL, _IOLBF, 0); /* ranks' lines do not mix */
      w.rank = r;
      w.device = (int)r;
      exit(tr_gpu_usable(w.device) ? run_rank(p, o, body, n, &w)
                                   : TR_EXIT_NO_GPU);
    }
  }
  const int rc = wait_ranks(pids, o->ranks);
  free(pids);
  return rc;
}

static uint32_t env_u32(const char *name, uint32_t fallback) {
  const char *v = getenv(name);
  if (v == NULL) {
    return fallback;
  }
  char *end = NULL;
  const unsigned long x = strtoul(v, &end, 10);
  if (*v == '\0' || *end != '\0' || x > 65535) {
    fprintf(stderr, "fp8_trainer: %s=\"%s\" is not a rank number\n", name, v);
    exit(TR_EXIT_USAGE);
  }
  return (uint32_t)x;
}

/* torchrun-style: this process is rank RANK of WORLD_SIZE, on GPU
 * LOCAL_RANK (default 0). */
static int join_ranks(const tr_plugin *p, const tr_options *o,
                      tr_rank_fn body, const tr_nccl *n) {
  tr_world w;
  memset(&w, 0, sizeof w);
  w.rank = env_u32("RANK", 0);
  w.size = env_u32("WORLD_SIZE", 0);
  w.device = (int)env_u32("LOCAL_RANK", 0);
  if (w.size == 0 || w.rank >= w.size) {
    fprintf(stderr, "fp8_trainer: RANK %u is not a rank of WORLD_SIZE %u\n",
            w.rank, w.size);
    return TR_EXIT_USAGE;
  }
  if (!tr_gpu_usable(w.device)) {
    return TR_EXIT_NO_GPU; /* before rank 0 leaves a file behind */
  }
  tr_rendezvous(n, o->rendezvous, w.rank, &w.id);
  w.rendezvous_owned = w.rank == 0 ? o->rendezvous : NULL;
  return run_rank(p, o, body, n, &w);
}

int tr_ranks_run(const tr_plugin *p, const tr_options *o, tr_rank_fn body) {
  static tr_nccl n; /* the plugin calls through it until the end */
  if (!tr_nccl_load(&n)) {
    return TR_EXIT_FAILURE;
  }
  return o->ranks > 0 ? fork_ranks(p, o, body, &n)
                      : join_ranks(p, o, body, &n);
}

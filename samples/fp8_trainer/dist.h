/* One rank of a data-parallel run: its NCCL communicator, its place in the
 * world, and how the sharded optimizer splits every weight (rank r owns
 * elements [r * shard, (r + 1) * shard) of each layer's flat master). The
 * step's collectives are in dist_step.h. */
#ifndef TR_DIST_H
#define TR_DIST_H

#include <stdbool.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "nccl_host.h"

typedef struct tr_world {
  uint32_t rank, size;
  int device;                   /* this rank's GPU */
  tr_nccl_id id;                /* NCCL's unique id of the job */
  const char *rendezvous_owned; /* rank 0's file to remove once joined */
} tr_world;

typedef struct tr_dist {
  const tr_nccl *nccl;
  sg_nccl_comm comm;
  uint32_t rank, size;
  int device;
  bool shard;       /* --shard-optimizer */
  uint32_t buckets; /* parameter groups of the W all-gather, <= layers */
  cudaStream_t side; /* the transposes' stream, forked from the step's */
  cudaEvent_t join;  /* the side stream's work is done */
  cudaEvent_t *bucket_done; /* [buckets]: its all-gather is done */
} tr_dist;

/* Makes this rank's communicator (ncclCommInitRank; every rank of the
 * world must call it) on w->device, which is current afterwards, and the
 * side stream and events. Exits on failure. */
void tr_dist_open(tr_dist *d, const tr_nccl *n, const tr_world *w,
                  bool shard, uint32_t buckets, uint32_t layers);

/* After every session on the communicator is destroyed. */
void tr_dist_close(tr_dist *d);

/* Elements of one weight (of `weight`) each rank owns; exits unless the
 * world divides it into 16-byte aligned shards. */
uint64_t tr_dist_shard(const tr_dist *d, uint64_t weight);

/* Layer l's parameter group (bucket). */
uint32_t tr_dist_bucket(const tr_dist *d, uint32_t l, uint32_t layers);

/* Sets every descriptor's group to its layer's bucket and, sharded, its
 * cast range to the rank's shard. */
void tr_dist_shard_descs(const tr_dist *d, sg_fp8_param_desc *descs,
                         uint32_t layers, uint64_t weight);

#endif

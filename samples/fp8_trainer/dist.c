#include "dist.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "checks.h"

void tr_dist_open(tr_dist *d, const tr_nccl *n, const tr_world *w,
                  bool shard, uint32_t buckets, uint32_t layers) {
  memset(d, 0, sizeof *d);
  d->nccl = n;
  d->rank = w->rank;
  d->size = w->size;
  d->device = w->device;
  d->shard = shard;
  d->buckets = buckets < layers ? buckets : layers;
  SG_CHECK_CUDA(cudaSetDevice(w->device));
  CK_NCCL(n, n->comm_init_rank(&d->comm, (int32_t)w->size, w->id,
                               (int32_t)w->rank));
  if (w->rendezvous_owned != NULL) {
    /* Every rank has joined: the id must not outlive the job. */
    unlink(w->rendezvous_owned);
  }
  SG_CHECK_CUDA(cudaStreamCreateWithFlags(&d->side, cudaStreamNonBlocking));
  SG_CHECK_CUDA(cudaEventCreateWithFlags(&d->join, cudaEventDisableTiming));
  d->bucket_done = TR_CALLOC(d->buckets, sizeof *d->bucket_done, "events");
  for (uint32_t b = 0; b < d->buckets; b++) {
    SG_CHECK_CUDA(cudaEventCreateWithFlags(&d->bucket_done[b],
                                     cudaEventDisableTiming));
  }
}

void tr_dist_close(tr_dist *d) {
  for (uint32_t b = 0; b < d->buckets; b++) {
    SG_CHECK_CUDA(cudaEventDestroy(d->bucket_done[b]));
  }
  free(d->bucket_done);
  SG_CHECK_CUDA(cudaEventDestroy(d->join));
  SG_CHECK_CUDA(cudaStreamDestroy(d->side));
  CK_NCCL(d->nccl, d->nccl->comm_destroy(d->comm));
  memset(d, 0, sizeof *d);
}

uint64_t tr_dist_shard(const tr_dist *d, uint64_t weight) {
  /* 4 floats: AdamW's 16-byte vectors start each shard. */
  if (weight % ((uint64_t)d->size * 4u) != 0) {
    fprintf(stderr,
            "fp8_trainer: %u ranks cannot split a weight of %llu elements "
            "into shards of a multiple of 4\n",
            d->size, (unsigned long long)weight);
    exit(TR_EXIT_USAGE);
  }
  return weight / d->size;
}

uint32_t tr_dist_bucket(const tr_dist *d, uint32_t l, uint32_t layers) {
  return (uint32_t)((uint64_t)l * d->buckets / layers);
}

void tr_dist_shard_descs(const tr_dist *d, sg_fp8_param_desc *descs,
                         uint32_t layers, uint64_t weight) {
  const uint64_t shard = d->shard ? tr_dist_shard(d, weight) : 0;
  for (uint32_t l = 0; l < layers; l++) {
    descs[l].group = tr_dist_bucket(d, l, layers);
    if (d->shard) {
      descs[l].range_begin = d->rank * shard;
      descs[l].range_end = (d->rank + 1u) * shard;
    }
  }
}

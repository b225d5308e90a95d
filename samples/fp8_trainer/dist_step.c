#include "dist_step.h"

#include "checks.h"

/* This rank's shard of layer l in a per-layer flat buffer. */
static size_t own(const tr_trainer *t, uint32_t l) {
  const uint64_t shard = tr_dist_shard(t->cfg.dist, t->m.weight);
  return (size_t)l * t->m.weight + (size_t)t->cfg.dist->rank * shard;
}

void tr_dist_reduce_gradients(tr_trainer *t, cudaStream_t s) {
  const tr_dist *d = t->cfg.dist;
  const tr_nccl *n = d->nccl;
  tr_model *m = &t->m;
  if (!d->shard) {
    CK_NCCL(n, n->plugin.all_reduce(m->grad, m->grad,
                                    (size_t)m->d.layers * m->weight,
                                    TR_NCCL_FLOAT32, TR_NCCL_SUM, d->comm,
                                    (sg_stream)s));
    t->launches++;
    return;
  }
  /* In place: rank r's sum lands at its own shard of each layer. */
  const uint64_t shard = tr_dist_shard(d, m->weight);
  CK_NCCL(n, n->group_start());
  for (uint32_t l = 0; l < m->d.layers; l++) {
    CK_NCCL(n, n->reduce_scatter(m->grad + (size_t)l * m->weight,
                                 m->grad + own(t, l), shard, TR_NCCL_FLOAT32,
                                 TR_NCCL_SUM, d->comm, (sg_stream)s));
  }
  CK_NCCL(n, n->group_end());
  t->launches++;
}

/* W's all-gather bucket by bucket on the step's stream (every collective
 * of the communicator on one stream); each bucket's transpose refresh runs
 * on the forked stream as soon as that bucket's all-gather is done, while
 * the next bucket's is in flight. The fork joins back at the end. */
static void gather_and_transpose(tr_trainer *t, cudaStream_t s) {
  const tr_dist *d = t->cfg.dist;
  const tr_nccl *n = d->nccl;
  tr_model *m = &t->m;
  const uint64_t shard = tr_dist_shard(d, m->weight);
  uint32_t l = 0;
  for (uint32_t b = 0; b < d->buckets; b++) {
    CK_NCCL(n, n->group_start());
    for (; l < m->d.layers && tr_dist_bucket(d, l, m->d.layers) == b; l++) {
      CK_NCCL(n, n->all_gather(m->w + own(t, l), m->w + (size_t)l * m->weight,
                               shard, TR_NCCL_UINT8, d->comm, (sg_stream)s));
    }
    CK_NCCL(n, n->group_end());
    SG_CHECK_CUDA(cudaEventRecord(d->bucket_done[b], s));
    SG_CHECK_CUDA(cudaStreamWaitEvent(d->side, d->bucket_done[b], 0));
    tr_refresh_group(t, d->side, SG_REFRESH_TRANSPOSE, b);
    t->launches += 2;
  }
  SG_CHECK_CUDA(cudaEventRecord(d->join, d->side));
  SG_CHECK_CUDA(cudaStreamWaitEvent(s, d->join, 0));
}

void tr_dist_sharded_optimizer(tr_trainer *t, cudaStream_t s,
                               const tr_k_adamw_hyper *h) {
  tr_model *m = &t->m;
  const uint64_t shard = tr_dist_shard(t->cfg.dist, m->weight);
  for (uint32_t l = 0; l < m->d.layers; l++) {
    const size_t o = own(t, l);
    SG_CHECK_CUDA(tr_k_adamw(m->master + o, m->grad + o, m->adam_m + o,
                       m->adam_v + o, shard, m->step, m->lr, *h, s));
  }
  tr_refresh(t, s, SG_REFRESH_CAST); /* this rank's shard of W, and amax */
  t->launches += m->d.layers + 1;
  gather_and_transpose(t, s);
}

void tr_dist_gather_masters(tr_trainer *t) {
  const tr_dist *d = t->cfg.dist;
  if (!d->shard) {
    return;
  }
  const tr_nccl *n = d->nccl;
  tr_model *m = &t->m;
  const uint64_t shard = tr_dist_shard(d, m->weight);
  CK_NCCL(n, n->group_start());
  for (uint32_t l = 0; l < m->d.layers; l++) {
    CK_NCCL(n, n->all_gather(m->master + own(t, l),
                             m->master + (size_t)l * m->weight, shard,
                             TR_NCCL_FLOAT32, d->comm, (sg_stream)t->stream));
  }
  CK_NCCL(n, n->group_end());
  SG_CHECK_CUDA(cudaStreamSynchronize(t->stream));
}

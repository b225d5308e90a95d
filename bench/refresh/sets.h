/* The benchmark's parameter sets and their device memory: every tensor of a
 * set in one W arena, one Wt arena and one master arena (FP32-sized; BF16
 * runs reuse it), repeated over `copies` rotation copies when the set is too
 * small to leave the L2 between timed runs, with one table per copy and
 * master dtype. */
#ifndef SG_BENCH_SETS_H
#define SG_BENCH_SETS_H

#include <stddef.h>
#include <stdint.h>

#include "refresh.h"

#ifdef __cplusplus /* bench_cond calls these from C */
extern "C" {
#endif

typedef struct bench_shape {
  uint64_t rows, cols;
} bench_shape;

typedef struct bench_set {
  const char *name;
  uint32_t count;
  bench_shape *shapes;
  uint64_t elements;          /* per copy */
  uint32_t copies;
  size_t *off_w, *off_m;      /* element offsets of each tensor in its arena */
  size_t w_bytes, m_elems;    /* arena sizes per copy */
  uint8_t *w, *wt;            /* device: copies * w_bytes */
  float *master;              /* device: copies * m_elems FP32 (BF16 uses the start) */
  float *scalars;             /* device: copies * count * {scale, scale_inv, amax} */
  void *tables[2];            /* device: copies tables per master dtype (FP32, BF16) */
  size_t table_bytes;
  uint32_t layout;            /* sg_k_refresh_layout's choice for the whole set */
} bench_set;

/* Fills `set` for "gpt", "small" or "mixed"; returns 0 for an unknown name.
 * min_bytes: each copy must be at least this large in transpose traffic
 * (2 bytes per element), or the set is repeated. */
int bench_set_create(bench_set *set, const char *name, size_t min_bytes);
void bench_set_destroy(bench_set *set);

/* Random, finite, nonzero inputs for a master dtype in every copy. */
void bench_set_fill(bench_set *set, uint32_t master_dtype);

/* Table of one copy for a master dtype (SG_K_MASTER_FP32 or _BF16). */
const void *bench_set_table(const bench_set *set, uint32_t master_dtype, uint32_t copy);

/* Host description of tensor i of copy 0 with device pointers, as built. */
sg_k_param bench_set_param(const bench_set *set, uint32_t master_dtype, uint32_t copy,
                           uint32_t i);

#ifdef __cplusplus
}
#endif

#endif /* SG_BENCH_SETS_H */

/* The benchmark's parameter sets and their device memory: every tensor of a
 * set in one W arena, one Wt arena and one master arena (FP32-sized; BF16
 * runs reuse it), plus the block-scaling grids, repeated over `copies`
 * rotation copies when the set is too small to leave the L2 between timed
 * runs, with one table per copy, recipe and master dtype. */
#ifndef SG_BENCH_SETS_H
#define SG_BENCH_SETS_H

#include <stddef.h>
#include <stdint.h>

#include "refresh.h"
#include "shape_list.h"

enum { BENCH_RECIPES = 3 }; /* SG_K_RECIPE_DELAYED, _CURRENT, _BLOCK */

#ifdef __cplusplus /* bench_cond calls these from C */
extern "C" {
#endif

typedef struct bench_set {
  const char *name;
  const char *about;          /* what the shapes are */
  uint32_t count;
  bench_shape *shapes;
  uint64_t elements;          /* per copy */
  uint32_t copies;
  size_t *off_w, *off_m, *off_g; /* offsets of each tensor in its arenas */
  size_t w_bytes, m_elems, g_floats; /* arena sizes per copy */
  uint8_t *w, *wt;            /* device: copies * w_bytes */
  float *master;              /* device: copies * m_elems FP32 (BF16 uses the start) */
  float *scalars;             /* device: copies * count * {scale, scale_inv, amax} */
  float *grid, *grid_t;       /* device: copies * g_floats, W's and Wt's grids */
  /* device: per recipe and master dtype, `copies` grouped tables, then
   * `copies` merged ones (all groups' launches, as the plugin's) */
  void *tables[BENCH_RECIPES][2];
  size_t table_bytes;
  sg_k_plan plan[BENCH_RECIPES];          /* of the whole set (merged), per recipe */
  sg_k_plan *tensor_plans[BENCH_RECIPES]; /* [count]: each tensor alone (its group) */
  int one_group; /* every tensor in group 0 (no per-tensor baseline) */
} bench_set;

/* The names bench_set_create knows, in the order --set all runs them; the
 * zoo's sets are the ones starting with "zoo". */
extern const char *const bench_set_names[];
extern const uint32_t bench_set_name_count;

/* Fills `set` for one of bench_set_names, or for a list of shapes
 * "[N*]RxC[,...]" (N tensors of R x C; the set is named "shapes"); returns 0
 * for an unknown name or a list that does not parse.
 * min_bytes: each copy must be at least this large in transpose traffic
 * (2 bytes per element), or the set is repeated. one_group: every tensor in
 * group 0, as a model registered in one group (a split transpose needs
 * its selection in one group); else tensor i in group i, so that the
 * per-tensor baseline can launch each. */
int bench_set_create(bench_set *set, const char *name, size_t min_bytes, int one_group);
void bench_set_destroy(bench_set *set);

/* Random, finite, nonzero inputs for a master dtype in every copy. */
void bench_set_fill(bench_set *set, uint32_t master_dtype);

/* Table of one copy for a recipe and master dtype (SG_K_MASTER_FP32 or
 * _BF16) for a launch of `group`: the merged one for SG_K_ALL_GROUPS, as
 * the plugin launches all groups, else the grouped one. */
const void *bench_set_table(const bench_set *set, uint32_t recipe, uint32_t master_dtype,
                            uint32_t copy, uint32_t group);

/* Host description of tensor i of a copy with device pointers, as built. */
sg_k_param bench_set_param(const bench_set *set, uint32_t recipe, uint32_t master_dtype,
                           uint32_t copy, uint32_t i);

/* The plan of a launch of the set's `recipe` tables for `group`
 * (SG_K_ALL_GROUPS: all, or one tensor's index, its group), in `layout`
 * (-1: the plan's own). */
sg_k_plan bench_set_plan(const bench_set *set, uint32_t recipe, uint32_t group, int layout);

#ifdef __cplusplus
}
#endif

#endif /* SG_BENCH_SETS_H */

/* Host side of a launch's plan (refresh.h, sg_k_refresh_plan): what one
 * selection of parameters needs, and every group's at once, which a caller
 * keeps so that a launch costs a search instead of a pass over thousands of
 * parameters (4096 of them took ~8 us of host time a launch). */
#include <stdbool.h>
#include <stdlib.h>

#include "refresh_table.h"

SG_K_STATIC_ASSERT((int)SG_K_KERNEL_CAST == (int)SG_K_MODE_CAST &&
                       (int)SG_K_KERNEL_CAST_TRANSPOSE == (int)SG_K_MODE_CAST_TRANSPOSE,
                   "a cast mode's kernel and work list share the mode's number");

/* The lists whose tiles can be whole (sg_k_plan.whole): none of an empty
 * selection is partial. */
static const uint32_t kTileLists =
    1u << SG_K_LIST_TRANSPOSE | 1u << SG_K_LIST_CAST_TRANSPOSE;

/* A selection's running sums: its tiles, those suiting the wide layout,
 * the same two over its whole-tile parameters (the `w` ones), and whether
 * it spans groups (a split needs one group's run of the table); the
 * cast-transpose's items of the whole-tile parameters and of the rest, and
 * whether some whole-tile parameter casts tiles that are not whole (an
 * unaligned master); block scaling's tiles, and those of 64 rows or fewer. */
typedef struct plan_sums {
  uint64_t tiles, wide, whole_tiles, whole_wide;
  uint64_t ct_whole, ct_rest;
  uint64_t block_tiles, block_short;
  bool ct_partial;
  uint32_t group;
  bool groups;
  sg_k_plan plan;
} plan_sums;

static void sums_start(plan_sums *s) {
  *s = (plan_sums){0};
  s->plan = (sg_k_plan){SG_K_LAYOUT_NARROW, 0, 0, UINT32_MAX, kTileLists, 0, 0,
                        SG_K_LAYOUT_NARROW, 0, 0};
}

/* Block scaling's tiles of p (a dense vector goes in spans: none), and
 * those with 64 rows or fewer: its last row of tiles where that is so. */
static void add_block_tiles(plan_sums *s, const sg_k_param *p,
                            const uint64_t items[SG_K_LIST_COUNT]) {
  if (items[SG_K_LIST_BLOCK] == 0 || sg_k_spans(p)) {
    return;
  }
  const uint64_t bottom = p->rows % SG_K_TILE;
  s->block_tiles += items[SG_K_LIST_BLOCK];
  s->block_short +=
      bottom != 0 && bottom <= SG_K_TILE / 2 ? sg_k_ceil_div(p->cols, SG_K_TILE) : 0;
}

/* Adds parameter p, index `index` in the caller's array; indices come in
 * increasing order, so the first without a master is the first one seen. */
static void sums_add(plan_sums *s, const sg_k_param *p, uint32_t index) {
  uint64_t items[SG_K_LIST_COUNT];
  sg_k_param_items(p, items);
  const uint64_t t = sg_k_tiles_of(p);
  const uint64_t wide = sg_k_suits_wide(p) ? t : 0;
  const uint32_t whole = sg_k_whole_lists(p);
  const bool whole_t = (whole & (1u << SG_K_LIST_TRANSPOSE)) != 0;
  s->tiles += t;
  s->wide += wide;
  s->whole_tiles += whole_t ? t : 0;
  s->whole_wide += whole_t ? wide : 0;
  const uint64_t ct = items[SG_K_LIST_CAST_TRANSPOSE];
  s->ct_whole += whole_t ? ct : 0;
  s->ct_rest += whole_t ? 0 : ct;
  s->ct_partial |= whole_t && (whole & (1u << SG_K_LIST_CAST_TRANSPOSE)) == 0;
  add_block_tiles(s, p, items);
  s->groups |= s->plan.params > 0 && p->group != s->group;
  s->group = p->group;
  for (uint32_t l = 0; l < SG_K_LIST_COUNT; l++) {
    s->plan.lists |= items[l] > 0 ? 1u << l : 0u;
  }
  s->plan.whole &= whole;
  s->plan.grids |= sg_k_grid_lists(p);
  s->plan.realign |= (sg_k_realigned(p) ? 1u << SG_K_LIST_TRANSPOSE : 0u) |
                     (sg_k_ct_realigned(p) ? 1u << SG_K_LIST_CAST_TRANSPOSE : 0u);
  s->plan.params++;
  if (p->master_dtype == SG_K_MASTER_NONE && s->plan.first_without_master == UINT32_MAX) {
    s->plan.first_without_master = index;
  }
}

/* The split (sg_k_plan.split) pays where the whole part holds 3/4 of the
 * tiles, the share that decides the layout too: splitting every selection
 * cost the mixed set a point (its whole [4096, 4096] tensors are two thirds
 * of its bytes, 40% of its tiles, and its slow rest no longer overlapped
 * them); one odd embedding among a model's weights is a few percent. The
 * cast-transpose splits at the same cut, in the same layouts, where both
 * parts have its tiles and every whole-tile parameter's are whole (its
 * master's rows aligned too): as one launch, zoo-embeddings' delayed
 * cast-transpose from FP32 took 970 us on the H200, its two parameters
 * launched alone 920. Block scaling pairs its short tiles where they are
 * 3/4 of its tiles: on the H200 the pairing instance saved the many-small
 * set (all short) 4-13% a row, and cost the mixed set (12% short) 18% on
 * its FP32 cast, where its other code runs the tall tiles; the break-even
 * share is about 60%. */
static sg_k_plan sums_end(plan_sums *s) {
  const uint64_t rest = s->tiles - s->whole_tiles;
  s->plan.pairs =
      s->block_short > 0 && s->block_short >= s->block_tiles - s->block_tiles / 4 ? 1u : 0u;
  s->plan.layout = sg_k_layout_for(s->tiles, s->wide);
  s->plan.rest_layout = s->plan.layout;
  if (!s->groups && s->whole_tiles > 0 && rest > 0 &&
      s->whole_tiles >= s->tiles - s->tiles / 4) {
    const bool ct = s->ct_whole > 0 && s->ct_rest > 0 && !s->ct_partial;
    s->plan.split = 1u << SG_K_LIST_TRANSPOSE | (ct ? 1u << SG_K_LIST_CAST_TRANSPOSE : 0u);
    s->plan.layout = sg_k_layout_for(s->whole_tiles, s->whole_wide);
    s->plan.rest_layout = sg_k_layout_for(rest, s->wide - s->whole_wide);
  }
  return s->plan;
}

/* merged: the parameters as one run (the merged table), so that a
 * transpose may split however they are grouped. */
static sg_k_plan plan_over(const sg_k_param *params, uint32_t count, uint32_t group,
                           bool merged) {
  plan_sums s;
  sums_start(&s);
  for (uint32_t i = 0; params != NULL && i < count; i++) {
    if (group == SG_K_ALL_GROUPS || params[i].group == group) {
      sums_add(&s, &params[i], i);
    }
  }
  s.groups = s.groups && !merged;
  return sums_end(&s);
}

sg_k_plan sg_k_refresh_plan(const sg_k_param *params, uint32_t count, uint32_t group) {
  return plan_over(params, count, group, false);
}

sg_k_plan sg_k_refresh_plan_merged(const sg_k_param *params, uint32_t count) {
  return plan_over(params, count, SG_K_ALL_GROUPS, true);
}

uint32_t sg_k_refresh_layout(const sg_k_param *params, uint32_t count, uint32_t group) {
  return sg_k_refresh_plan(params, count, group).layout;
}

/* Orders (group, index) pairs; the index waits in plan.params. */
static int by_group_then_index(const void *a, const void *b) {
  const sg_k_group_plan *x = a;
  const sg_k_group_plan *y = b;
  if (x->group != y->group) {
    return x->group < y->group ? -1 : 1;
  }
  return x->plan.params < y->plan.params ? -1 : (x->plan.params > y->plan.params);
}

/* out doubles as the sort's scratch: each pair is read before its slot is
 * overwritten by a group's plan (there are never more groups than pairs
 * read so far). */
uint32_t sg_k_refresh_group_plans(const sg_k_param *params, uint32_t count,
                                  sg_k_group_plan *out) {
  if (params == NULL || out == NULL) {
    return 0;
  }
  for (uint32_t i = 0; i < count; i++) {
    out[i].group = params[i].group;
    out[i].plan.params = i;
  }
  qsort(out, count, sizeof *out, by_group_then_index);
  uint32_t groups = 0;
  for (uint32_t i = 0; i < count;) {
    const uint32_t group = out[i].group;
    plan_sums s;
    sums_start(&s);
    for (; i < count && out[i].group == group; i++) {
      const uint32_t index = out[i].plan.params;
      sums_add(&s, &params[index], index);
    }
    out[groups].group = group;
    out[groups].plan = sums_end(&s);
    groups++;
  }
  return groups;
}

const sg_k_plan *sg_k_refresh_find_plan(const sg_k_group_plan *plans, uint32_t n,
                                        uint32_t group) {
  uint32_t lo = 0;
  uint32_t hi = n;
  while (lo < hi) {
    const uint32_t mid = lo + (hi - lo) / 2;
    if (plans[mid].group < group) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo < n && plans[lo].group == group ? &plans[lo].plan : NULL;
}

uint32_t sg_k_refresh_kernels(uint32_t mode, const sg_k_plan *plan, uint32_t kernels[3]) {
  uint32_t n = 0;
  const uint32_t lists = plan->lists;
  if (mode == SG_K_MODE_TRANSPOSE) {
    if ((lists & (1u << SG_K_LIST_TRANSPOSE)) != 0) {
      kernels[n++] = SG_K_KERNEL_TRANSPOSE;
    }
    /* block scaling's grids, where the whole instance (no grid code) moves
     * tiles; the general instance moves them with the tiles */
    if ((lists & plan->grids & (plan->whole | plan->split) & (1u << SG_K_LIST_TRANSPOSE)) != 0) {
      kernels[n++] = SG_K_KERNEL_GRID;
    }
    return n;
  }
  if (mode != SG_K_MODE_CAST && mode != SG_K_MODE_CAST_TRANSPOSE) {
    return 0;
  }
  if ((lists & (1u << SG_K_LIST_AMAX)) != 0) { /* the scales the cast reads */
    kernels[n++] = SG_K_KERNEL_AMAX;
  }
  if ((lists & (1u << mode)) != 0) {
    kernels[n++] = mode; /* the mode's kernel shares its number */
  }
  if ((lists & (1u << SG_K_LIST_BLOCK)) != 0) {
    kernels[n++] = mode == SG_K_MODE_CAST ? SG_K_KERNEL_BLOCK_CAST
                                          : SG_K_KERNEL_BLOCK_CAST_TRANSPOSE;
  }
  return n;
}

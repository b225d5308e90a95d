/* Host side of the layout choice (refresh.h, sg_k_refresh_layout): which of
 * the two ways of dealing tiles suits the parameters a launch refreshes,
 * and whether its tiles carry grids (the plan's `grids`; whether they are
 * all whole, the plan's `whole`, is the table's SG_K_VEC_WHOLE_T, in
 * refresh_table.c). The plans (refresh_plan.c) sum these over a
 * selection. */
#include <stdbool.h>

#include "refresh_table.h"

/* Fills whole 2 x 2 chunks of tiles that move as 16-byte vectors. On the
 * many-small set one block per multiprocessor moving chunks of 64 x 128
 * tensors took 41.7 us against 27 us for four blocks of single tiles, and
 * element-wise (unaligned) tiles ran 45% slower on a quarter of the
 * threads; on the GPT set the wide layout gives the transpose 91% of the
 * copy's bandwidth against 80%. */
bool sg_k_suits_wide(const sg_k_param *p) {
  return p->rows >= 2u * SG_K_TILE && p->cols >= 2u * SG_K_TILE &&
         sg_k_rows_aligned16(p->w, p->ld_w, 1) && sg_k_rows_aligned16(p->wt, p->ld_wt, 1);
}

uint32_t sg_k_layout_for(uint64_t tiles, uint64_t wide) {
  return tiles > 0 && wide >= tiles - tiles / 4 ? SG_K_LAYOUT_WIDE : SG_K_LAYOUT_NARROW;
}

/* Block scaling's transpose also moves each tile's scale_inv from W's grid
 * to Wt's (in the general instance, or the grid transpose after the whole
 * one's tiles); its cast-transpose is in the block list, not a tile
 * list. */
uint32_t sg_k_grid_lists(const sg_k_param *p) {
  return p->recipe == SG_K_RECIPE_BLOCK ? 1u << SG_K_LIST_TRANSPOSE : 0u;
}

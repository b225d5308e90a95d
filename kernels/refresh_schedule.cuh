/* Which work items a block does: its group's contiguous run of descriptors
 * and their items, split over the grid. Every warp computes this itself from
 * the device table (no barrier, no host involvement). */
#ifndef SG_KERNELS_REFRESH_SCHEDULE_CUH
#define SG_KERNELS_REFRESH_SCHEDULE_CUH

#include <stdint.h>

#include "refresh_table.h"

/* The first p in [lo, hi) where pred(p) is false, for a pred that is true on
 * a prefix. A 32-way search: each round the warp probes 32 evenly spaced
 * positions at once, so thousands of descriptors take 3 dependent loads
 * instead of 12. All 32 lanes must call it with the same arguments. */
template <class Pred>
__device__ __forceinline__ uint32_t sg_k_partition_point(uint32_t lo, uint32_t hi, Pred pred) {
  const uint32_t lane = threadIdx.x & 31u;
  while (lo < hi) {
    const uint32_t pos = lo + static_cast<uint32_t>(uint64_t{hi - lo} * lane / 32u);
    const uint32_t trues = __ballot_sync(0xFFFFFFFFu, pred(pos));
    if (trues == 0) {
      return lo;
    }
    const int last = 31 - __clz(trues);
    const uint32_t next = __shfl_sync(0xFFFFFFFFu, pos, last < 31 ? last + 1 : 31);
    lo = __shfl_sync(0xFFFFFFFFu, pos, last) + 1u;
    hi = last < 31 ? next : hi;
  }
  return lo;
}

/* The group's descriptors [pb, pe) and their items [ib, ie) in one mode. */
struct sg_k_group_items {
  uint32_t pb, pe;
  uint64_t ib, ie;
};

template <uint32_t MODE>
__device__ __forceinline__ sg_k_group_items sg_k_group(const sg_k_table *table,
                                                       const sg_k_desc *descs, uint32_t group) {
  const uint32_t count = table->count;
  sg_k_group_items g{0, count, 0, 0};
  if (group != SG_K_ALL_GROUPS) {
    g.pb = sg_k_partition_point(0u, count, [&](uint32_t p) { return descs[p].group < group; });
    g.pe = sg_k_partition_point(g.pb, count, [&](uint32_t p) { return descs[p].group <= group; });
  }
  g.ib = g.pb < count ? descs[g.pb].item_first[MODE] : table->total_items[MODE];
  g.ie = g.pe < count ? descs[g.pe].item_first[MODE] : table->total_items[MODE];
  return g;
}

/* The last descriptor in [lo, pe) whose first item is <= j: it holds item j
 * (empty descriptors sharing its first item come before it). */
template <uint32_t MODE>
__device__ __forceinline__ uint32_t sg_k_holder(const sg_k_desc *descs, uint32_t lo, uint32_t pe,
                                                uint64_t j) {
  return sg_k_partition_point(lo, pe, [&](uint32_t p) { return descs[p].item_first[MODE] <= j; }) -
         1u;
}

/* Cast mode: a contiguous share of the group's items per block, so each
 * block streams long runs of the owned ranges. */
struct sg_k_work {
  uint64_t begin, end; /* table-wide item indices of this block */
  uint32_t param;      /* descriptor holding item `begin` */
};

template <uint32_t MODE>
__device__ __forceinline__ sg_k_work sg_k_block_work(const sg_k_table *table,
                                                     const sg_k_desc *descs, uint32_t group) {
  const sg_k_group_items g = sg_k_group<MODE>(table, descs, group);
  const uint64_t n = g.ie - g.ib;
  const uint64_t per = n / gridDim.x;
  const uint64_t extra = n % gridDim.x;
  sg_k_work w;
  w.begin = g.ib + blockIdx.x * per + min(uint64_t{blockIdx.x}, extra);
  w.end = w.begin + per + (blockIdx.x < extra ? 1u : 0u);
  w.param = w.begin == w.end ? g.pb : sg_k_holder<MODE>(descs, g.pb, g.pe, w.begin);
  return w;
}

/* Tile modes: block b takes items ib + b, ib + b + G, ... (G blocks), so at
 * any moment neighbouring blocks work on neighbouring tiles and W and Wt
 * rows are read and written in long runs across blocks, not as 128-byte
 * pieces scattered over a parameter. */
struct sg_k_stride_cursor {
  const sg_k_desc *descs;
  uint64_t j, end; /* current item; end of the group's items */
  uint32_t p, pe;  /* descriptor holding j; end of the group */
};

template <uint32_t MODE>
__device__ __forceinline__ sg_k_stride_cursor sg_k_stride_start(const sg_k_table *table,
                                                                const sg_k_desc *descs,
                                                                uint32_t group) {
  const sg_k_group_items g = sg_k_group<MODE>(table, descs, group);
  sg_k_stride_cursor c{descs, g.ib + blockIdx.x, g.ie, g.pb, g.pe};
  if (c.j < c.end) {
    c.p = sg_k_holder<MODE>(descs, g.pb, g.pe, c.j);
  }
  return c;
}

/* Moves to the block's next item; searches only when it left the
 * descriptor (every step in the many-small set, rarely for large tensors). */
template <uint32_t MODE>
__device__ __forceinline__ void sg_k_stride_next(sg_k_stride_cursor &c) {
  c.j += gridDim.x;
  const sg_k_desc &d = c.descs[c.p];
  if (c.j < c.end && c.j >= d.item_first[MODE] + d.items[MODE]) {
    c.p = sg_k_holder<MODE>(c.descs, c.p + 1u, c.pe, c.j);
  }
}

#endif /* SG_KERNELS_REFRESH_SCHEDULE_CUH */

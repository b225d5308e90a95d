/* Which work items a block does (the cast mode's: which items a warp does):
 * its group's contiguous run of descriptors and their items, split over the
 * grid. Every thread computes this itself from the device table (no host
 * involvement); the tile modes walk it with a cursor that loads the next
 * descriptor one step before it is needed. */
#ifndef SG_KERNELS_REFRESH_SCHEDULE_CUH
#define SG_KERNELS_REFRESH_SCHEDULE_CUH

#include <stdint.h>

#include "refresh_table.h"

/* a / b, through the 32-bit divider when both fit (almost always): a 64-bit
 * division is a long subroutine, and the tile modes divide for every tile. */
__host__ __device__ __forceinline__ uint64_t sg_k_div(uint64_t a, uint64_t b) {
  if (((a | b) >> 32) == 0) {
    return static_cast<uint32_t>(a) / static_cast<uint32_t>(b);
  }
  return a / b;
}

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

/* What a launch reads of the table's header (the kernel loads it while it
 * reads the no-op flag). */
struct sg_k_table_head {
  uint32_t count;
  uint64_t total; /* the launch's mode's items */
};

/* The group's descriptors [pb, pe) and their items [ib, ie) in one mode.
 * All groups: no search, and the first descriptor's items start at 0. */
struct sg_k_group_items {
  uint32_t pb, pe;
  uint64_t ib, ie;
};

template <uint32_t MODE>
__device__ __forceinline__ sg_k_group_items sg_k_group(const sg_k_table_head &head,
                                                       const sg_k_desc *descs, uint32_t group) {
  const uint32_t count = head.count;
  if (group == SG_K_ALL_GROUPS) {
    return sg_k_group_items{0, count, 0, head.total};
  }
  sg_k_group_items g;
  g.pb = sg_k_partition_point(0u, count, [&](uint32_t p) { return descs[p].group < group; });
  g.pe = sg_k_partition_point(g.pb, count, [&](uint32_t p) { return descs[p].group <= group; });
  g.ib = g.pb < count ? descs[g.pb].item_first[MODE] : head.total;
  g.ie = g.pe < count ? descs[g.pe].item_first[MODE] : head.total;
  return g;
}

/* The part of a group's run a split transpose moves (SG_K_PART_*): the
 * table puts the group's whole-tile parameters first, so each part is a
 * run too, cut where SG_K_VEC_WHOLE_T ends. The cut also stops at the end
 * of the run's first group: a plan made for one group, launched over a
 * table that has gained others (all groups), still sends only whole
 * parameters to the whole instance; the rest go to the general one. */
template <uint32_t MODE>
__device__ __forceinline__ sg_k_group_items sg_k_part(const sg_k_table_head &head,
                                                      const sg_k_desc *descs, sg_k_group_items g,
                                                      uint32_t part) {
  if (part == SG_K_PART_ALL) {
    return g;
  }
  const uint32_t first_group = g.pb < g.pe ? descs[g.pb].group : 0u;
  const uint32_t cut = sg_k_partition_point(g.pb, g.pe, [&](uint32_t p) {
    return (descs[p].vec & SG_K_VEC_WHOLE_T) != 0 && descs[p].group == first_group;
  });
  const uint64_t at = cut < head.count ? descs[cut].item_first[MODE] : head.total;
  if (part == SG_K_PART_WHOLE) {
    g.pe = cut;
    g.ie = at;
  } else {
    g.pb = cut;
    g.ib = at;
  }
  return g;
}

/* Whether d holds item j. */
template <uint32_t MODE>
__device__ __forceinline__ bool sg_k_holds(const sg_k_desc &d, uint64_t j) {
  return d.item_first[MODE] <= j && j - d.item_first[MODE] < d.items[MODE];
}

/* The descriptor in [lo, pe) holding item j (which some descriptor there
 * holds). `guess` is checked first: in a run of equally sized parameters it
 * is right, which saves the search's three dependent loads per lookup (the
 * many-small set looks up every item). The search finds the last descriptor
 * whose first item is <= j (empty ones sharing its first item come before). */
template <uint32_t MODE>
__device__ __forceinline__ uint32_t sg_k_holder(const sg_k_desc *descs, uint32_t lo, uint32_t pe,
                                                uint64_t j, uint64_t guess) {
  if (guess >= lo && guess < pe && sg_k_holds<MODE>(descs[guess], j)) {
    return static_cast<uint32_t>(guess);
  }
  return sg_k_partition_point(lo, pe, [&](uint32_t p) { return descs[p].item_first[MODE] <= j; }) -
         1u;
}

/* The guess for item j of group g: where it would be if every descriptor
 * had the group's average item count. */
__device__ __forceinline__ uint64_t sg_k_guess(const sg_k_group_items &g, uint64_t j) {
  const uint64_t avg = sg_k_div(g.ie - g.ib, g.pe - g.pb);
  return g.pb + sg_k_div(j - g.ib, avg > 0 ? avg : 1);
}

/* Worker `me`'s contiguous share of n things dealt to `workers`: [begin,
 * end), the first n % workers shares one longer. Host and device code
 * (tested on the CPU). */
struct sg_k_share {
  uint64_t begin, end;
};

__host__ __device__ __forceinline__ sg_k_share sg_k_share_of(uint64_t n, uint64_t workers,
                                                             uint64_t me) {
  const uint64_t per = n / workers;
  const uint64_t extra = n % workers;
  sg_k_share s;
  s.begin = me * per + (me < extra ? me : extra);
  s.end = s.begin + per + (me < extra ? 1u : 0u);
  return s;
}

/* Cast mode and the amax pass: each warp, on its own, takes a contiguous
 * share of the group's items, so that no barrier ties a parameter's end to
 * the block's slowest warp: with one share per block and a barrier per
 * parameter, the many-small set's blocks waited out every parameter's two
 * rounds of loads, and a block of tiny parameters ran longer than one of
 * large ones with as many items. Whole items, not parts of one: a warp then
 * never shares a one-item parameter (and its fenced amax merge) with
 * another; quarter items measured slower on the mixed and GPT sets
 * (docs/REFRESH.md). */
struct sg_k_work {
  uint64_t begin, end; /* table-wide item indices of this warp */
  uint32_t param;      /* descriptor holding item `begin` */
  uint32_t pe;         /* end of the group */
};

/* All 32 lanes of a warp, with the same result. */
template <uint32_t MODE>
__device__ __forceinline__ sg_k_work sg_k_warp_work(const sg_k_table_head &head,
                                                    const sg_k_desc *descs, uint32_t group) {
  const uint32_t warps_per_block = blockDim.x >> 5;
  const sg_k_group_items g = sg_k_group<MODE>(head, descs, group);
  const sg_k_share share = sg_k_share_of(g.ie - g.ib, uint64_t{gridDim.x} * warps_per_block,
                                         uint64_t{blockIdx.x} * warps_per_block +
                                             (threadIdx.x >> 5));
  sg_k_work w;
  w.begin = g.ib + share.begin;
  w.end = g.ib + share.end;
  w.param = w.begin == w.end ? g.pb
                             : sg_k_holder<MODE>(descs, g.pb, g.pe, w.begin, sg_k_guess(g, w.begin));
  w.pe = g.pe;
  return w;
}

/* A warp's walk over its share w: the descriptor p holding the next of
 * its items, p's own items [lo, hi) of w, and whether w goes on past them.
 * sg_k_items_next moves a walk (started at w.begin and w.param) to its next
 * run, false once w is done. Host and device code (tested on the CPU). */
struct sg_k_items_run {
  uint64_t i;  /* the next item of w (table-wide) */
  uint32_t p;  /* the descriptor to look at next */
  uint64_t lo, hi;
  bool more;
};

template <uint32_t MODE>
__host__ __device__ __forceinline__ bool sg_k_items_next(const sg_k_desc *descs,
                                                         const sg_k_work &w,
                                                         sg_k_items_run &run) {
  for (; run.i < w.end; run.p++) {
    const uint64_t first = descs[run.p].item_first[MODE];
    const uint64_t last = first + descs[run.p].items[MODE];
    const uint64_t stop = last < w.end ? last : w.end;
    if (stop > run.i) {
      run.lo = run.i - first;
      run.hi = stop - first;
      run.more = stop < w.end;
      run.i = stop;
      return true;
    }
  }
  return false;
}

/* What the tile modes read of a descriptor. Loaded a chunk ahead by the
 * cursor (plain loads: nothing waits for them until the chunk is issued),
 * so the lookups of the next parameters overlap the current chunk. */
struct sg_k_view {
  uint8_t *w, *wt;
  const char *master;
  const float *scale;
  uint64_t ld_w, ld_wt, ld_master, rows, cols, tiles_per_row;
  uint64_t first, items; /* this mode's items */
  uint32_t format, master_dtype, vec;
};

template <uint32_t MODE>
__device__ __forceinline__ sg_k_view sg_k_load_view(const sg_k_desc &d) {
  return sg_k_view{d.w,         d.wt,        static_cast<const char *>(d.master),
                   d.scale,     d.ld_w,      d.ld_wt,
                   d.ld_master, d.rows,      d.cols,
                   d.tiles_per_row,          d.item_first[MODE],
                   d.items[MODE],            d.format,
                   d.master_dtype,           d.vec};
}

/* Tile modes deal chunks of K = kRows x kCols consecutive items round-robin:
 * block b takes chunks b, b + G, b + 2G, ... (G blocks), so at any moment
 * neighbouring blocks work on neighbouring tiles and W and Wt are read and
 * written in long runs across blocks, not as 128-byte pieces scattered over
 * a parameter. Inside a parameter, consecutive items are ordered so that a
 * chunk is a kRows x kCols block of tiles, and consecutive chunks go down
 * a super-band of SUPER chunk rows before they move right
 * (sg_k_tile_origin): the blocks in flight then cover SUPER chunk rows of
 * W and write Wt rows in runs of up to SUPER x kRows tiles, where 1 gives
 * runs of kRows tiles on parameters wider than the grid's chunks. */
template <uint32_t ROWS, uint32_t COLS, uint32_t SUPER = 1>
struct sg_k_chunk {
  static constexpr uint32_t kRows = ROWS, kCols = COLS, K = ROWS * COLS, kSuper = SUPER;
};

/* The block's current chunk: items [j, stop), and for each the view of the
 * descriptor guessed to hold it (sg_k_cursor_item settles it).
 *
 * The last round of chunks is dealt evenly: with K > 1 the items past the
 * last full round (tail .. end, fewer than K x G) go m = ceil(that / G) to
 * a block, where whole chunks would give the first of them K items and the
 * rest none. Llama-3 70B TP8's 1632 chunks over 132 blocks are 12.36
 * rounds: dealt whole, the launch took 13 rounds (95% busy). Single-tile
 * chunks (K = 1) have no such round and keep stop unused, so that their
 * instances carry none of it (it spilled 48 bytes in the narrow ones). */
template <uint32_t MODE, class Chunk>
struct sg_k_cursor {
  const sg_k_desc *descs;
  uint64_t j, stop, end; /* the chunk's items [j, stop); the group's end */
  uint64_t tail, m;      /* the last round's first item; its items a block */
  uint32_t lo, pe;       /* the group's descriptors */
  uint32_t p[Chunk::K];
  sg_k_view view[Chunk::K];
};

/* Loads the views of the chunk's items: an item inside the descriptor of
 * `base` (the last item settled before) shares its view; one past it gets
 * the descriptor it would be in if the following ones had base's size
 * (right for equally sized parameters, checked by sg_k_cursor_item). */
template <uint32_t MODE, class Chunk>
__device__ __forceinline__ void sg_k_cursor_load(sg_k_cursor<MODE, Chunk> &c, uint32_t base_p,
                                                 const sg_k_view &base) {
  const uint64_t past = base.first + base.items;
  const uint64_t size = base.items > 0 ? base.items : 1;
#pragma unroll
  for (uint32_t t = 0; t < Chunk::K; t++) {
    const uint64_t j = c.j + t;
    if (sg_k_cursor_has(c, j) && j >= past) {
      c.p[t] = static_cast<uint32_t>(min(base_p + 1u + sg_k_div(j - past, size),
                                         uint64_t{c.pe - 1u}));
      c.view[t] = sg_k_load_view<MODE>(c.descs[c.p[t]]);
    } else {
      c.p[t] = base_p;
      c.view[t] = base;
    }
  }
}

/* Whether the block's chunk has item j (at or past c.j). */
template <uint32_t MODE, class Chunk>
__device__ __forceinline__ bool sg_k_cursor_has(const sg_k_cursor<MODE, Chunk> &c, uint64_t j) {
  return j < (Chunk::K == 1 ? c.end : c.stop);
}

/* Sets the block's chunk that starts at item j: one of the full rounds,
 * or (j past them) the block's share of the last round, or (j UINT64_MAX,
 * after that share) none. */
template <uint32_t MODE, class Chunk>
__device__ __forceinline__ void sg_k_cursor_chunk(sg_k_cursor<MODE, Chunk> &c, uint64_t j) {
  if constexpr (Chunk::K == 1) {
    c.j = j;
  } else if (j < c.tail) {
    c.j = j;
    c.stop = j + Chunk::K;
  } else if (j < c.tail + uint64_t{Chunk::K} * gridDim.x) {
    c.j = min(c.tail + c.m * blockIdx.x, c.end);
    c.stop = min(c.j + c.m, c.end);
  } else {
    c.j = c.stop = c.end;
  }
}

template <uint32_t MODE, class Chunk>
__device__ __forceinline__ sg_k_cursor<MODE, Chunk> sg_k_cursor_start(
    const sg_k_table_head &head, const sg_k_desc *descs, uint32_t group,
    uint32_t part = SG_K_PART_ALL) {
  const sg_k_group_items g = sg_k_part<MODE>(head, descs, sg_k_group<MODE>(head, descs, group), part);
  sg_k_cursor<MODE, Chunk> c;
  c.descs = descs;
  const uint64_t round = uint64_t{Chunk::K} * gridDim.x;
  c.end = g.ie;
  if constexpr (Chunk::K > 1) {
    c.tail = g.ib + sg_k_div(g.ie - g.ib, round) * round;
    c.m = sg_k_div(g.ie - c.tail + gridDim.x - 1u, gridDim.x);
  }
  c.lo = g.pb;
  c.pe = g.pe;
  sg_k_cursor_chunk(c, g.ib + uint64_t{Chunk::K} * blockIdx.x);
  if (sg_k_cursor_has(c, c.j)) {
    const uint32_t p = static_cast<uint32_t>(min(sg_k_guess(g, c.j), uint64_t{g.pe - 1u}));
    const sg_k_view v = sg_k_load_view<MODE>(descs[p]);
    sg_k_cursor_load(c, p, v);
  }
  return c;
}

/* Whether the chunk has item t (a constant: the views stay in registers);
 * if so, settles its view (the guess usually holds it; otherwise all
 * threads search together). */
template <uint32_t MODE, class Chunk>
__device__ __forceinline__ bool sg_k_cursor_item(sg_k_cursor<MODE, Chunk> &c, uint32_t t) {
  const uint64_t j = c.j + t;
  if (!sg_k_cursor_has(c, j)) {
    return false;
  }
  const sg_k_view &v = c.view[t];
  if (v.first > j || j - v.first >= v.items) {
    c.p[t] = sg_k_holder<MODE>(c.descs, c.lo, c.pe, j, c.p[t]);
    c.view[t] = sg_k_load_view<MODE>(c.descs[c.p[t]]);
  }
  return true;
}

/* Moves to the block's next chunk once its items are settled (those it
 * has: a chunk is cut short only in the last round, after which nothing
 * is loaded) and starts loading their views. */
template <uint32_t MODE, class Chunk>
__device__ __forceinline__ void sg_k_cursor_advance(sg_k_cursor<MODE, Chunk> &c) {
  const uint64_t next = c.j + uint64_t{Chunk::K} * gridDim.x;
  sg_k_cursor_chunk(c, Chunk::K == 1 || c.j < c.tail ? next : UINT64_MAX);
  if (sg_k_cursor_has(c, c.j)) {
    sg_k_cursor_load(c, c.p[Chunk::K - 1], c.view[Chunk::K - 1]);
  }
}

/* Origin (r0, c0) in W of the view's tile `local`. Tile rows are taken in
 * super-bands of kSuper chunk rows; inside one, chunk columns (kCols tile
 * columns each) left to right, and down each column chunk by chunk,
 * row-major inside a chunk (the last super-band, chunk column and chunk
 * may be smaller), so K consecutive items form one chunk-shaped block of
 * tiles. (Chunk by chunk is row by row, so the chunk index b changes no
 * result; without it the whole wide transpose compiled so that the zoo's
 * tall weights lost 3-6 points of the copy on the H200 and the GPT set
 * gained 2.) Host code too, for test_tile_order. */
template <class Chunk>
__host__ __device__ __forceinline__ void sg_k_tile_origin(const sg_k_view &v, uint64_t local,
                                                          uint64_t &r0, uint64_t &c0) {
  constexpr uint64_t kR = Chunk::kRows;
  constexpr uint64_t kC = Chunk::kCols;
  constexpr uint64_t kH = kR * Chunk::kSuper; /* tile rows of a super-band */
  const uint64_t tpr = v.tiles_per_row;
  uint64_t tr, tc;
  if constexpr (kH == 1 && kC == 1) {
    tr = sg_k_div(local, tpr);
    tc = local - tr * tpr;
  } else {
    const uint64_t sb = sg_k_div(local, kH * tpr);
    const uint64_t in_sb = local - sb * kH * tpr;
    const uint64_t sbr = min(kH, (v.rows + SG_K_TILE - 1) / SG_K_TILE - sb * kH);
    const uint64_t grp = sg_k_div(in_sb, sbr * kC);
    const uint64_t in_grp = in_sb - grp * sbr * kC;
    const uint64_t gc = min(kC, tpr - grp * kC);
    const uint64_t b = kH == kR ? 0 : sg_k_div(in_grp, kR * gc);
    const uint64_t in_chunk = in_grp - b * kR * gc;
    const uint64_t dr = sg_k_div(in_chunk, gc);
    tr = sb * kH + b * kR + dr;
    tc = grp * kC + (in_chunk - dr * gc);
  }
  r0 = tr * SG_K_TILE;
  c0 = tc * SG_K_TILE;
}

#endif /* SG_KERNELS_REFRESH_SCHEDULE_CUH */

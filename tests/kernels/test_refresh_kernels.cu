/* The refresh kernels bit-exact against the CPU reference (refresh_fixture.h
 * says how a check covers outputs, guards and untouched bytes): random and
 * edge shapes, thousands of parameters, every mode (the tile modes in both
 * layouts, and on whole tiles in their whole and general instances), both
 * formats, FP32 and BF16 masters, the three recipes (delayed, current and
 * 128x128 block scaling, partial edge blocks included), group
 * filters, the no-op flag, graph capture and replay, a table rebuilt under a
 * captured graph, special scales and the computed scales' edge values, and
 * the grid each transpose instance launches on.
 *
 * Environment: SG_TEST_SEED fixes the random seed (printed at start);
 * SG_REFRESH_CASES sets how many random cases run (default 12), so that
 * compute-sanitizer runs can stay short. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "refresh.h"
#include "refresh_fixture.h"
#include "refresh_table.h"
#include "sg_cuda_check.h"
#include "sg_gpu_test.h"
#include "sg_run_suite.h"
#include "sg_test_seed.h"

enum { kCapacity = 4096 };
/* Every mode, the tile modes in both layouts (which must give the same
 * bytes for any table), with the plan's whole-tile, split and pairs bits
 * as computed (whole_mask ~0) or cleared (0: the general instances, block
 * scaling's without pairs). */
struct launch_kind {
  uint32_t mode, layout, whole_mask;
};
static const launch_kind kKinds[] = {
    {SG_K_MODE_TRANSPOSE, SG_K_LAYOUT_NARROW, ~0u},
    {SG_K_MODE_TRANSPOSE, SG_K_LAYOUT_WIDE, ~0u},
    {SG_K_MODE_CAST, SG_K_LAYOUT_NARROW, ~0u},
    {SG_K_MODE_CAST_TRANSPOSE, SG_K_LAYOUT_NARROW, ~0u},
    {SG_K_MODE_CAST_TRANSPOSE, SG_K_LAYOUT_WIDE, ~0u}};

static sg_fx_rng g_rng;
static sg_k_refresh_device g_device;
static void *g_table; /* device table: one address for the whole program */
static void *g_image;
static sg_k_param *g_params; /* what the table was built from */
static uint32_t g_count;
static bool g_merged; /* the table is the merged one (launched for all groups only) */

static uint64_t env_or(const char *name, uint64_t fallback) {
  const char *v = getenv(name);
  return v != NULL ? strtoull(v, NULL, 0) : fallback;
}

/* Builds the table for c's first `count` parameters (grouped, or merged:
 * sg_k_refresh_build_merged) and uploads it. */
static void build_table(const sg_fx_case *c, uint32_t count,
                        decltype(&sg_k_refresh_build) build = sg_k_refresh_build) {
  free(g_params);
  g_params = static_cast<sg_k_param *>(malloc(c->count * sizeof *g_params));
  g_count = count;
  g_merged = build == sg_k_refresh_build_merged;
  sg_fx_params(c, c->dev, g_params);
  ck_assert_int_eq(build(g_image, kCapacity, g_params, count), cudaSuccess);
  SG_CHECK_CUDA(cudaMemcpy(g_table, g_image, sg_k_refresh_table_bytes(kCapacity),
                          cudaMemcpyHostToDevice));
  /* The copy may return before its DMA lands (pageable source), and graph
   * replays below run on a non-blocking stream. */
  SG_CHECK_CUDA(cudaDeviceSynchronize());
}

/* The plan of the table's parameters of `group` (over the first `count` of
 * the case: a superset of the table's recipes is a valid plan; the merged
 * plan for the merged table), in the kind's layout. */
static sg_k_plan plan_for(uint32_t count, uint32_t group, launch_kind k) {
  ck_assert(!g_merged || group == SG_K_ALL_GROUPS);
  sg_k_plan plan = g_merged ? sg_k_refresh_plan_merged(g_params, count)
                            : sg_k_refresh_plan(g_params, count, group);
  plan.layout = plan.rest_layout = k.layout;
  plan.whole &= k.whole_mask;
  plan.split &= k.whole_mask;
  plan.pairs &= k.whole_mask;
  return plan;
}

static void expect_equal(sg_fx_case *c, const char *what, launch_kind k, uint32_t group) {
  char msg[640];
  ck_assert_msg(sg_fx_compare(c, msg, sizeof msg) == 0,
                "%s, mode %u, layout %u, whole mask %x, group %d: %s", what, k.mode, k.layout,
                k.whole_mask, static_cast<int>(group), msg);
}

/* Uploads c's initial bytes, runs one eager launch of `plan` and checks
 * the arena against the reference over the first `count` parameters. */
static void launch_plan_and_check(sg_fx_case *c, uint32_t count, launch_kind k, uint32_t group,
                                  const sg_k_plan &plan, const int32_t *noop, const char *what) {
  sg_fx_expect(c, count, k.mode, group);
  SG_CHECK_CUDA(sg_fx_upload(c));
  SG_CHECK_CUDA(sg_k_refresh_launch(g_table, k.mode, group, &plan, noop, &g_device, 0));
  SG_CHECK_CUDA(cudaDeviceSynchronize());
  SG_CHECK_CUDA(sg_fx_download(c));
  expect_equal(c, what, k, group);
}

/* The same with the plan of the table's parameters of `group`. */
static void launch_and_check(sg_fx_case *c, uint32_t count, launch_kind k, uint32_t group,
                             const int32_t *noop, const char *what) {
  launch_plan_and_check(c, count, k, group, plan_for(g_count, group, k), noop, what);
}

/* Two launches on one table: the second after every non-input byte changed
 * and masters halved, so unwritten outputs and stale amax cannot pass. */
static void check_kind(sg_fx_case *c, launch_kind k, uint32_t group) {
  launch_and_check(c, c->count, k, group, NULL, "first launch");
  sg_fx_repoison(c, k.mode, &g_rng);
  launch_and_check(c, c->count, k, group, NULL, "second launch");
}

/* Every kind, for all groups and for one group picked at random. Returns
 * how many of the table's descriptors cast in spans (SG_K_VEC_SPANS), so
 * that a test can show which path it took. */
static uint32_t check_specs(const sg_fx_spec *specs, uint32_t count) {
  sg_fx_case c;
  SG_CHECK_CUDA(sg_fx_case_init(&c, specs, count, &g_rng));
  build_table(&c, count);
  const sg_k_desc *descs = reinterpret_cast<const sg_k_desc *>(static_cast<const char *>(g_image) +
                                                               sg_k_descs_offset());
  uint32_t spans = 0;
  for (uint32_t i = 0; i < count; i++) {
    spans += (descs[i].vec & SG_K_VEC_SPANS) != 0 ? 1u : 0u;
  }
  for (launch_kind k : kKinds) {
    check_kind(&c, k, SG_K_ALL_GROUPS);
    check_kind(&c, k, static_cast<uint32_t>(sg_fx_below(&g_rng, 4)));
  }
  sg_fx_case_free(&c);
  return spans;
}

static void random_specs(sg_fx_spec *specs, uint32_t count, uint64_t max_dim) {
  for (uint32_t i = 0; i < count; i++) {
    sg_fx_random_spec(&g_rng, max_dim, &specs[i]);
  }
}

/* A case of `count` random parameters, the table built for the first
 * `in_table` of them. */
static void random_case(sg_fx_case *c, uint32_t count, uint64_t max_dim, uint32_t in_table) {
  sg_fx_spec *specs = static_cast<sg_fx_spec *>(malloc(count * sizeof *specs));
  random_specs(specs, count, max_dim);
  SG_CHECK_CUDA(sg_fx_case_init(c, specs, count, &g_rng));
  free(specs);
  build_table(c, in_table);
}

START_TEST(random_shapes) {
  const uint64_t cases = env_or("SG_REFRESH_CASES", 12);
  for (uint64_t k = 0; k < cases; k++) {
    sg_fx_spec specs[16];
    const uint32_t count = 1 + static_cast<uint32_t>(sg_fx_below(&g_rng, 16));
    random_specs(specs, count, 600);
    check_specs(specs, count);
  }
}
END_TEST

/* How a listed shape's spec varies: its recipe, W, Wt and master off
 * 16-byte alignment (refresh_fixture.h), padded rows (elements),
 * power-of-two computed scales (not for delayed scaling), a delayed slice
 * that splits rows. */
struct listed {
  uint32_t recipe, misalign;
  uint64_t pad;
  bool pow2, sliced;
};

/* A spec of `shape` in format and master dtype `variety` (0..3: E4M3 and
 * E5M2, each with FP32 then BF16 masters), varied as l says. */
static void listed_spec(sg_fx_spec *s, const uint64_t shape[2], uint32_t variety, listed l) {
  sg_fx_random_spec(&g_rng, 64, s);
  s->rows = shape[0];
  s->cols = shape[1];
  s->format = variety % 2;
  s->master_dtype = variety < 2 ? SG_K_MASTER_FP32 : SG_K_MASTER_BF16;
  s->misalign = l.misalign;
  s->master_misalign = 0;
  s->pad_w = s->pad_wt = s->pad_m = l.pad;
  s->recipe = l.recipe;
  const bool pow2 = l.recipe != SG_K_RECIPE_DELAYED && l.pow2;
  s->recipe_flags = pow2 ? uint32_t{SG_K_POW2_SCALES} : 0u;
  s->range_begin = l.sliced ? s->rows * s->cols / 3 : 0;
  s->range_end = l.sliced ? s->rows * s->cols - s->range_begin : 0;
}

/* Each listed shape with every format and master dtype, in every recipe,
 * four ways: aligned and unpadded; off alignment by random amounts and
 * padded by 3 (odd rows), with a delayed slice that splits rows and
 * power-of-two computed scales; 8 bytes off alignment and padded by 8, so
 * that rows are 8- or 4-byte aligned where the shape's own width allows
 * (the transpose fills them by 8- or 4-byte copies); W and Wt 3 bytes
 * off alignment, unpadded, beside aligned master rows (the master loads
 * as vectors while W and Wt store at whatever alignment they have).
 * Partial edge blocks in most shapes. */
START_TEST(edge_shapes) {
  /* 1 x 40000 and 40000 x 1: three linear spans (transpose and
   * cast-transpose), the last
   * ragged, where aligned and unpadded; tiles otherwise. 200 x 264: W
   * rows 8 bytes off 16-byte alignment (filled by 8-byte copies). 4097 x
   * 200 and 4239 x 24 (Wt rows of 4097 and 4239 bytes) and 4116 x 40
   * (padded, 4119): odd and long Wt rows (realigned in shared memory),
   * whose last tile of 1, 15 or 20 W rows is shorter than some rows' head
   * and longer than others'; 4097 x 256 the same with W's rows 16-byte
   * aligned (GPT-2's embedding: its tiles fill by the aligned copy, the
   * rows below them too). */
  static const uint64_t shapes[][2] = {
      {1, 1},     {1, 1000},  {1000, 1}, {128, 128},  {127, 129},  {129, 127},
      {64, 128},  {16, 16},   {17, 300}, {256, 3},    {257, 383},  {256, 256},
      {1, 40000}, {40000, 1}, {200, 264}, {4097, 200}, {4116, 40}, {4239, 24},
      {4097, 256}};
  static const uint32_t kMisalign[4] = {0, 1, 8, 3};
  static const uint32_t kMasterMisalign[4] = {0, 0, 0, 16};
  static const uint64_t kPad[4] = {0, 3, 8, 0};
  const uint32_t n = sizeof shapes / sizeof shapes[0];
  sg_fx_spec specs[sizeof shapes / sizeof shapes[0] * 4];
  for (uint32_t recipe = SG_K_RECIPE_DELAYED; recipe <= SG_K_RECIPE_BLOCK; recipe++) {
    for (uint32_t variant = 0; variant < 4; variant++) {
      const bool odd = variant == 1;
      const bool sliced = odd && recipe == SG_K_RECIPE_DELAYED;
      for (uint32_t i = 0; i < 4 * n; i++) {
        const listed l = {recipe, kMisalign[variant], kPad[variant], odd, sliced};
        listed_spec(&specs[i], shapes[i % n], i / n, l);
        specs[i].master_misalign = kMasterMisalign[variant];
      }
      check_specs(specs, 4 * n);
    }
  }
}
END_TEST

/* Dense vectors are transposed and cast-transposed in linear spans (W and
 * Wt the same bytes; block scaling casts its 128-element blocks in spans,
 * and its transpose's spans copy their blocks' grid entries): one span
 * and several, the last ragged, in
 * every format, master dtype and recipe, with the master aligned, off
 * alignment by 2 bytes (rounded up to the element: whole spans load
 * shifted, the ends element by element) and by a random multiple of the
 * element, and off so that the master ends 16-byte aligned (whole strips
 * of the last span load shifted, a short one element by element); with
 * padded master rows the N x 1 ones cast in tiles (their transpose stays
 * linear); block scaling's grids padded, so that a span's entries move by
 * both grids' strides. */
START_TEST(linear_spans) {
  static const uint64_t shapes[][2] = {{1, 16384}, {1, 16385}, {16400, 1}, {1, 40000},
                                       {40000, 1}, {1, 100},   {1, 1}};
  static const uint32_t kMasterMisalign[3] = {0, 2, 1};
  const uint32_t n = sizeof shapes / sizeof shapes[0];
  const uint32_t columns = 2; /* the N x 1 shapes (1 x 1 is a row too) */
  sg_fx_spec specs[sizeof shapes / sizeof shapes[0] * 4];
  for (uint32_t recipe = SG_K_RECIPE_DELAYED; recipe <= SG_K_RECIPE_BLOCK; recipe++) {
    for (uint32_t variant = 0; variant < 5; variant++) {
      const bool padded = variant == 3;
      for (uint32_t i = 0; i < 4 * n; i++) {
        const listed l = {recipe, 0, 0, variant == 1, false};
        listed_spec(&specs[i], shapes[i % n], i / n, l);
        const uint64_t bytes = specs[i].rows * specs[i].cols *
                               (specs[i].master_dtype == SG_K_MASTER_FP32 ? 4u : 2u);
        specs[i].master_misalign = variant == 4  ? static_cast<uint32_t>((16u - bytes % 16u) % 16u)
                                   : padded      ? 0
                                                 : kMasterMisalign[variant];
        specs[i].pad_m = padded ? 1 : 0;
        /* grids 1 x B and B x 1 apart by their strides: a stride lost fails */
        specs[i].pad_grid = specs[i].pad_grid_t = 1 + variant % 2;
      }
      const uint32_t spans = check_specs(specs, 4 * n);
      ck_assert_uint_eq(spans, 4 * (padded ? n - columns : n));
    }
  }
}
END_TEST

/* Masters that end the device allocation (no guard bytes after them, so
 * that memcheck sees any read past one), off 16-byte alignment at random,
 * their ends at any address: a dense vector of several spans (shifted
 * strips, the last one element by element), one shorter than a strip, an
 * N x 1 one, and tiles of odd rows (shifted loads where a tile's vectors
 * lie inside the master), in every format, master dtype and recipe. Run
 * under memcheck, this is what shows a load that reaches past the master's
 * last byte. */
START_TEST(masters_end_the_allocation) {
  static const uint64_t shapes[][2] = {{1, 16385}, {1, 9}, {20001, 1}, {130, 257}};
  for (uint32_t recipe = SG_K_RECIPE_DELAYED; recipe <= SG_K_RECIPE_BLOCK; recipe++) {
    for (const auto &shape : shapes) {
      for (uint32_t variety = 0; variety < 4; variety++) {
        sg_fx_spec spec;
        listed_spec(&spec, shape, variety, listed{recipe, 0, 0, false, false});
        spec.master_misalign = 1;
        spec.master_last = 1;
        check_specs(&spec, 1);
      }
    }
  }
}
END_TEST

/* The block kernels' grid: the blocks their items are dealt over. */
static uint64_t block_grid(void) {
  return static_cast<uint64_t>(g_device.sm_count) *
         g_device.blocks_per_sm[SG_K_KERNEL_BLOCK_CAST_TRANSPOSE][SG_K_LAYOUT_NARROW];
}

/* Block scaling: every block of the cast-transpose's grid (G blocks, items
 * dealt round-robin) takes a tile, then a span, then a tile: G edge tiles
 * of one parameter, a vector of G spans, G more edge tiles (edge tiles, so
 * that none is whole and the table keeps this order). The two tiles
 * alternate the block's code buffers by their own count, with the span's
 * step between them; racecheck over this case is what shows a span
 * counted as a tile. */
START_TEST(spans_between_tiles) {
  const uint64_t g = block_grid();
  const uint64_t tiles[2] = {SG_K_TILE * g, 100}, vector[2] = {1, SG_K_LINEAR_ITEM * g};
  sg_fx_spec specs[3];
  for (uint32_t i = 0; i < 3; i++) {
    listed_spec(&specs[i], i == 1 ? vector : tiles, 0, listed{SG_K_RECIPE_BLOCK, 0, 0, false, false});
    specs[i].group = 0;
  }
  ck_assert_uint_eq(check_specs(specs, 3), 1);
}
END_TEST

/* Block scaling: every block of the block kernels' grid (G blocks) takes
 * one tile of each of five parameters in turn: BF16 E4M3, BF16 E5M2 (a
 * BF16 tile loads the next one's master while it converts, so the second
 * is loaded ahead across parameters and formats), FP32 (which ends the
 * run), a BF16 vector's span (a run ends before a span too), BF16 again.
 * Edge tiles, so that none is whole and the table keeps this order. */
START_TEST(bf16_runs) {
  const uint64_t g = block_grid();
  const uint64_t tiles[2] = {SG_K_TILE * g, 100}, vector[2] = {1, SG_K_LINEAR_ITEM * g};
  static const uint32_t kVariety[5] = {2, 3, 0, 2, 3}; /* listed_spec's format and dtype */
  sg_fx_spec specs[5];
  for (uint32_t i = 0; i < 5; i++) {
    listed_spec(&specs[i], i == 3 ? vector : tiles, kVariety[i],
                listed{SG_K_RECIPE_BLOCK, 0, 0, false, false});
    specs[i].group = 0;
  }
  ck_assert_uint_eq(check_specs(specs, 5), 1);
}
END_TEST

/* Block scaling's steps of two short tiles (at most 64 rows each): every
 * block of the grid (G blocks, items dealt round-robin) takes one tile of
 * each parameter below in turn, so that each block meets, in this order:
 * two short FP32 E4M3 tiles (a pair), a short FP32 E5M2 one (another
 * format: alone), short BF16 E5M2 ones of 17 and 2 rows (a pair), a tall
 * BF16 tile (a run of its own), the tall or the short bottom tile of a
 * [192, N] FP32 parameter followed by a short FP32 tile (a pair for the
 * blocks with the bottom tile), a vector's span after a short tile, and
 * a last short tile that has no partner. Rows ending inside a 16-row
 * group, W, Wt and master rows of odd widths (one run with every tile
 * parameter misaligned and padded) check the pair's thread map, slot rows
 * and grid entries. */
START_TEST(short_tile_pairs) {
  const uint64_t g = block_grid();
  const uint64_t wide = SG_K_TILE * (g - 1) + 37, half = SG_K_TILE * (g / 2 - 1) + 90;
  const struct {
    uint64_t rows, cols;
    uint32_t variety; /* listed_spec's format and dtype */
  } kList[] = {{64, wide, 0},  {33, wide, 0},     {64, wide, 1},   {17, wide, 3},
               {2, wide, 3},   {128, wide, 2},    {192, half, 0},  {50, wide, 0},
               {40, wide, 2},  {1, SG_K_LINEAR_ITEM * g, 2}, {64, wide, 0}};
  constexpr uint32_t kCount = sizeof(kList) / sizeof(kList[0]);
  for (uint32_t misalign = 0; misalign < 2; misalign++) {
    sg_fx_spec specs[kCount];
    for (uint32_t i = 0; i < kCount; i++) {
      const uint64_t shape[2] = {kList[i].rows, kList[i].cols};
      const uint32_t off = kList[i].rows == 1 ? 0u : misalign; /* the vector stays dense */
      listed_spec(&specs[i], shape, kList[i].variety,
                  listed{SG_K_RECIPE_BLOCK, off, off * 3u, false, false});
      specs[i].group = 0;
    }
    ck_assert_uint_eq(check_specs(specs, kCount), 1);
    ck_assert_uint_ne(sg_k_refresh_plan(g_params, g_count, SG_K_ALL_GROUPS).pairs, 0);
  }
}
END_TEST

/* Spans beside tiles in one block and past the cast-transpose's deferred
 * merges (more than SG_K_CT_DEFERRED parameters in one group), in the
 * grouped table and in the merged one, in every recipe. */
START_TEST(many_spans) {
  enum { kCount = 304, kEvery = 38 }; /* every 38th a [257, 383] of tiles */
  static const uint64_t span[2] = {1, 16385}, tiles[2] = {257, 383};
  sg_fx_spec *specs = static_cast<sg_fx_spec *>(malloc(kCount * sizeof *specs));
  for (uint32_t recipe = SG_K_RECIPE_DELAYED; recipe <= SG_K_RECIPE_BLOCK; recipe++) {
    for (uint32_t i = 0; i < kCount; i++) {
      listed_spec(&specs[i], i % kEvery == 0 ? tiles : span, i % 4,
                  listed{recipe, 0, 0, false, false});
      specs[i].group = 0;
    }
    ck_assert_uint_eq(check_specs(specs, kCount), kCount - kCount / kEvery);
    sg_fx_case c;
    SG_CHECK_CUDA(sg_fx_case_init(&c, specs, kCount, &g_rng));
    build_table(&c, kCount, sg_k_refresh_build_merged);
    for (launch_kind k : kKinds) {
      check_kind(&c, k, SG_K_ALL_GROUPS);
    }
    sg_fx_case_free(&c);
  }
  free(specs);
}
END_TEST

/* One launch per value of the no-op flag (set: nothing refreshed). */
static void check_noop(sg_fx_case *c, launch_kind k, int32_t *flag) {
  const int32_t values[] = {-5, 1, 0};
  for (int32_t v : values) {
    SG_CHECK_CUDA(cudaMemcpy(flag, &v, sizeof v, cudaMemcpyHostToDevice));
    /* A set flag means no parameter is refreshed: count 0 for the reference. */
    launch_and_check(c, v != 0 ? 0 : c->count, k, SG_K_ALL_GROUPS, flag, "noop flag");
  }
}

/* Whole aligned tiles only, as the GPT set has, in each recipe and all
 * three mixed (SG_K_RECIPE_BLOCK + 1): the plan picks the whole instances
 * of both tile kernels (and, where the selection has a block-scaled
 * parameter, the grid transpose after the tiles), and they
 * give the reference's bytes, for all groups, each group alone, a group
 * nobody has and under the no-op flag, as do the general instances (the
 * plan's whole bits cleared) on the same table. */
START_TEST(whole_tiles) {
  static const uint64_t shapes[][2] = {{128, 128}, {256, 384}, {384, 256}, {512, 128},
                                       {128, 1024}};
  const uint32_t n = sizeof shapes / sizeof shapes[0];
  sg_fx_spec specs[sizeof shapes / sizeof shapes[0] * 4];
  int32_t *flag = NULL;
  SG_CHECK_CUDA(cudaMalloc(&flag, sizeof *flag));
  for (uint32_t set = SG_K_RECIPE_DELAYED; set <= SG_K_RECIPE_BLOCK + 1; set++) {
    for (uint32_t i = 0; i < 4 * n; i++) {
      const uint32_t recipe = set <= SG_K_RECIPE_BLOCK ? set : i % 3;
      /* padded by 16: rows stay 16-byte aligned */
      const listed l = {recipe, 0, 16u * (i % 2), i % 2 != 0,
                        recipe == SG_K_RECIPE_DELAYED && i % 3 == 0};
      listed_spec(&specs[i], shapes[i % n], i / n, l);
    }
    sg_fx_case c;
    SG_CHECK_CUDA(sg_fx_case_init(&c, specs, 4 * n, &g_rng));
    build_table(&c, 4 * n);
    const uint32_t t = 1u << SG_K_LIST_TRANSPOSE;
    const uint32_t ct = 1u << SG_K_LIST_CAST_TRANSPOSE;
    const sg_k_plan all = sg_k_refresh_plan(g_params, 4 * n, SG_K_ALL_GROUPS);
    ck_assert_uint_eq(all.whole, t | ct);
    ck_assert_uint_eq(all.grids, set >= SG_K_RECIPE_BLOCK ? t : 0u);
    for (launch_kind k : kKinds) {
      for (uint32_t mask : {~0u, 0u}) {
        k.whole_mask = mask;
        check_kind(&c, k, SG_K_ALL_GROUPS);
        for (uint32_t group : {0u, 1u, 2u, 3u, 77u}) {
          check_kind(&c, k, group);
        }
        check_noop(&c, k, flag);
      }
    }
    sg_fx_case_free(&c);
  }
  SG_CHECK_CUDA(cudaFree(flag));
}
END_TEST

/* A transpose split into its whole parameters (whole instance) and the
 * rest (general): group 0 holds three whole parameters and an odd one
 * (18 of 22 tiles whole), group 1 a whole and an odd one (6 of 10), group
 * 2 whole ones only, in each recipe and all three mixed; the plan splits
 * group 0 only (a selection of several groups never splits), its
 * cast-transpose too but where every parameter is block-scaled (none has
 * cast-transpose tiles), and every kind gives the reference's bytes for
 * each group, all groups, and the table of group 0 alone, whose all-groups
 * selection splits too. The merged table (every parameter as one run,
 * whole ones first) splits all three groups at once, in every kind, and
 * gives the same bytes. */
START_TEST(split_selection) {
  static const uint64_t whole[2] = {256, 384}, odd[2] = {200, 130};
  static const uint32_t groups[8] = {0, 0, 0, 0, 1, 1, 2, 2};
  static const bool is_whole[8] = {true, false, true, true, true, false, true, true};
  for (uint32_t set = SG_K_RECIPE_DELAYED; set <= SG_K_RECIPE_BLOCK + 1; set++) {
    const uint32_t t = 1u << SG_K_LIST_TRANSPOSE |
                       (set == SG_K_RECIPE_BLOCK ? 0u : 1u << SG_K_LIST_CAST_TRANSPOSE);
    sg_fx_spec specs[8];
    for (uint32_t i = 0; i < 8; i++) {
      const uint32_t recipe = set <= SG_K_RECIPE_BLOCK ? set : i % 3;
      listed_spec(&specs[i], is_whole[i] ? whole : odd, i % 4, listed{recipe, 0, 0, false, false});
      specs[i].group = groups[i];
    }
    for (uint32_t count : {8u, 4u}) { /* all three groups; group 0 alone */
      sg_fx_case c;
      SG_CHECK_CUDA(sg_fx_case_init(&c, specs, count, &g_rng));
      build_table(&c, count);
      ck_assert_uint_eq(sg_k_refresh_plan(g_params, count, 0).split, t);
      ck_assert_uint_eq(sg_k_refresh_plan(g_params, count, SG_K_ALL_GROUPS).split,
                        count == 4 ? t : 0u);
      ck_assert_uint_eq(sg_k_refresh_plan(g_params, count, 1).split, 0);
      for (launch_kind k : kKinds) {
        for (uint32_t mask : {~0u, 0u}) {
          k.whole_mask = mask;
          check_kind(&c, k, SG_K_ALL_GROUPS);
          for (uint32_t group : {0u, 1u, 2u}) {
            check_kind(&c, k, group);
          }
        }
      }
      sg_fx_case_free(&c);
    }
    sg_fx_case c;
    SG_CHECK_CUDA(sg_fx_case_init(&c, specs, 8, &g_rng));
    build_table(&c, 8, sg_k_refresh_build_merged);
    ck_assert_uint_eq(sg_k_refresh_plan_merged(g_params, 8).split, t); /* 36 of 44 tiles whole */
    for (launch_kind k : kKinds) {
      for (uint32_t mask : {~0u, 0u}) {
        k.whole_mask = mask;
        check_kind(&c, k, SG_K_ALL_GROUPS);
      }
    }
    sg_fx_case_free(&c);
  }
}
END_TEST

/* The computed scales' rules at their edges, each a whole master of one
 * value: zero (scale 1), a subnormal (fp8_max / amax overflows: FLT_MAX),
 * the largest float, +-inf and NaN (scale 1), a value whose scale is no
 * power of two; current and block scaling, with and without power-of-two
 * rounding, both formats. */
START_TEST(computed_scale_edges) {
  static const float values[] = {0.0f, -0.0f, 1e-40f, -3e-39f, 3.4e38f, -INFINITY, NAN, 3.0f};
  const uint32_t nv = sizeof values / sizeof values[0];
  sg_fx_spec specs[4 * sizeof values / sizeof values[0]];
  const uint32_t count = sizeof specs / sizeof specs[0];
  for (uint32_t i = 0; i < count; i++) {
    sg_fx_random_spec(&g_rng, 300, &specs[i]);
    specs[i].master_dtype = i % 2 ? SG_K_MASTER_BF16 : SG_K_MASTER_FP32;
    specs[i].recipe = (i / nv) % 2 ? SG_K_RECIPE_BLOCK : SG_K_RECIPE_CURRENT;
    specs[i].recipe_flags = (i / nv) / 2 ? uint32_t{SG_K_POW2_SCALES} : 0u;
    specs[i].range_begin = specs[i].range_end = 0;
  }
  sg_fx_case c;
  SG_CHECK_CUDA(sg_fx_case_init(&c, specs, count, &g_rng));
  for (uint32_t i = 0; i < count; i++) {
    sg_fx_fill_master(&c, i, values[i % nv]);
  }
  build_table(&c, count);
  for (launch_kind k : kKinds) {
    launch_and_check(&c, count, k, SG_K_ALL_GROUPS, NULL, "computed scale edges");
  }
  sg_fx_case_free(&c);
}
END_TEST

START_TEST(thousands_of_params) {
  const uint32_t count = 3000;
  sg_fx_spec *specs = static_cast<sg_fx_spec *>(malloc(count * sizeof *specs));
  random_specs(specs, count, 48);
  check_specs(specs, count);
  free(specs);
}
END_TEST

/* Zero, negative, infinite, NaN and subnormal scales: whatever the
 * arithmetic gives, the same on both sides. */
START_TEST(special_scales) {
  static const float scales[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1e-40f, -3.0f, 1e30f};
  sg_fx_spec specs[2 * sizeof scales / sizeof scales[0]];
  const uint32_t count = sizeof specs / sizeof specs[0];
  random_specs(specs, count, 200);
  for (uint32_t i = 0; i < count; i++) {
    specs[i].scale = scales[i / 2];
    specs[i].master_dtype = i % 2 ? SG_K_MASTER_BF16 : SG_K_MASTER_FP32;
    specs[i].specials = 1;
  }
  check_specs(specs, count);
}
END_TEST

/* Each group alone, and a group nobody has: the others stay untouched. */
START_TEST(group_filter) {
  sg_fx_case c;
  random_case(&c, 12, 300, 12);
  for (launch_kind k : kKinds) {
    for (uint32_t group = 0; group < 4; group++) {
      check_kind(&c, k, group);
    }
    check_kind(&c, k, 77);
  }
  sg_fx_case_free(&c);
}
END_TEST

START_TEST(noop_flag) {
  sg_fx_case c;
  random_case(&c, 6, 300, 6);
  int32_t *flag = NULL;
  SG_CHECK_CUDA(cudaMalloc(&flag, sizeof *flag));
  for (launch_kind k : kKinds) {
    check_noop(&c, k, flag);
  }
  SG_CHECK_CUDA(cudaFree(flag));
  sg_fx_case_free(&c);
}
END_TEST

/* A graph of one launch of `mode` for all groups as `plan` says, captured
 * on stream. */
static cudaGraph_t capture_graph(cudaStream_t stream, uint32_t mode, const sg_k_plan &plan,
                                 const int32_t *noop) {
  cudaGraph_t graph;
  SG_CHECK_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  SG_CHECK_CUDA(sg_k_refresh_launch(g_table, mode, SG_K_ALL_GROUPS, &plan, noop, &g_device,
                                   stream));
  SG_CHECK_CUDA(cudaStreamEndCapture(stream, &graph));
  return graph;
}

/* Captures a launch whose plan covers the case's first `count` parameters
 * (the table may be rebuilt with more of them under the graph). */
static cudaGraphExec_t capture(cudaStream_t stream, launch_kind k, const int32_t *noop,
                               uint32_t count) {
  cudaGraphExec_t exec;
  cudaGraph_t graph = capture_graph(stream, k.mode, plan_for(count, SG_K_ALL_GROUPS, k), noop);
  SG_CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  SG_CHECK_CUDA(cudaGraphDestroy(graph));
  return exec;
}

static void replay_and_check(sg_fx_case *c, cudaGraphExec_t exec, cudaStream_t stream,
                             uint32_t count, launch_kind k, const char *what) {
  sg_fx_expect(c, count, k.mode, SG_K_ALL_GROUPS);
  SG_CHECK_CUDA(sg_fx_upload(c));
  SG_CHECK_CUDA(cudaGraphLaunch(exec, stream));
  SG_CHECK_CUDA(cudaStreamSynchronize(stream));
  SG_CHECK_CUDA(sg_fx_download(c));
  expect_equal(c, what, k, SG_K_ALL_GROUPS);
}

/* The programmatic edges among the graph's kernel nodes (a split's rest
 * and the grid transpose after the tiles, refresh_overlap.cuh). */
static size_t programmatic_edges(cudaGraph_t graph) {
  size_t n = 0;
  SG_CHECK_CUDA(cudaGraphGetEdges(graph, NULL, NULL, NULL, &n));
  cudaGraphNode_t *from = static_cast<cudaGraphNode_t *>(calloc(n + 1, sizeof *from));
  cudaGraphNode_t *to = static_cast<cudaGraphNode_t *>(calloc(n + 1, sizeof *to));
  cudaGraphEdgeData *data = static_cast<cudaGraphEdgeData *>(calloc(n + 1, sizeof *data));
  SG_CHECK_CUDA(cudaGraphGetEdges(graph, from, to, data, &n));
  size_t programmatic = 0;
  for (size_t i = 0; i < n; i++) {
    programmatic += data[i].type == cudaGraphDependencyTypeProgrammatic ? 1u : 0u;
  }
  free(from);
  free(to);
  free(data);
  return programmatic;
}

/* The transpose of a split block-scaled group (three whole parameters and
 * an odd one: the whole part, the rest and the grid transpose, the last
 * two launched programmatically) captured into a graph, and into the body
 * of a conditional IF node, as the plugin's guards record a step: both
 * hold the two programmatic edges and replay to the reference's bytes. */
START_TEST(overlapping_launches_in_graphs) {
  static const uint64_t whole[2] = {256, 384}, odd[2] = {200, 130};
  static const bool is_whole[4] = {true, false, true, true};
  sg_fx_spec specs[4];
  for (uint32_t i = 0; i < 4; i++) {
    listed_spec(&specs[i], is_whole[i] ? whole : odd, i, listed{SG_K_RECIPE_BLOCK, 0, 0, false,
                                                                false});
    specs[i].group = 0;
  }
  sg_fx_case c;
  SG_CHECK_CUDA(sg_fx_case_init(&c, specs, 4, &g_rng));
  build_table(&c, 4);
  const launch_kind k = {SG_K_MODE_TRANSPOSE, SG_K_LAYOUT_WIDE, ~0u};
  const sg_k_plan plan = plan_for(4, SG_K_ALL_GROUPS, k);
  ck_assert_uint_eq(plan.split, 1u << SG_K_LIST_TRANSPOSE);
  cudaStream_t stream;
  SG_CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  for (bool conditional : {false, true}) {
    cudaGraph_t graph, body;
    SG_CHECK_CUDA(cudaGraphCreate(&graph, 0));
    body = graph;
    if (conditional) { /* condition 1 by default: the body runs */
      cudaGraphConditionalHandle handle;
      SG_CHECK_CUDA(cudaGraphConditionalHandleCreate(&handle, graph, 1, cudaGraphCondAssignDefault));
      /* a union with members that have constructors: zeroed storage */
      alignas(cudaGraphNodeParams) unsigned char bytes[sizeof(cudaGraphNodeParams)] = {};
      cudaGraphNodeParams &p = *reinterpret_cast<cudaGraphNodeParams *>(bytes);
      p.type = cudaGraphNodeTypeConditional;
      p.conditional.handle = handle;
      p.conditional.type = cudaGraphCondTypeIf;
      p.conditional.size = 1;
      cudaGraphNode_t node;
      SG_CHECK_CUDA(cudaGraphAddNode(&node, graph, NULL, NULL, 0, &p));
      body = p.conditional.phGraph_out[0];
    }
    SG_CHECK_CUDA(cudaStreamBeginCaptureToGraph(stream, body, NULL, NULL, 0,
                                               cudaStreamCaptureModeThreadLocal));
    SG_CHECK_CUDA(sg_k_refresh_launch(g_table, k.mode, SG_K_ALL_GROUPS, &plan, NULL, &g_device,
                                     stream));
    SG_CHECK_CUDA(cudaStreamEndCapture(stream, &body));
    ck_assert_msg(programmatic_edges(body) == 2, "conditional %d: %zu programmatic edges",
                  conditional, programmatic_edges(body));
    cudaGraphExec_t exec;
    SG_CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));
    replay_and_check(&c, exec, stream, 4, k, conditional ? "conditional body" : "graph");
    sg_fx_repoison(&c, k.mode, &g_rng);
    replay_and_check(&c, exec, stream, 4, k, conditional ? "second body replay" : "second replay");
    SG_CHECK_CUDA(cudaGraphExecDestroy(exec));
    SG_CHECK_CUDA(cudaGraphDestroy(graph));
  }
  SG_CHECK_CUDA(cudaStreamDestroy(stream));
  sg_fx_case_free(&c);
}
END_TEST

/* The grid of the one kernel node that a captured launch of `plan` (a
 * transpose, or a delayed cast-transpose) holds. */
static unsigned captured_grid(const sg_k_plan &plan, cudaStream_t stream,
                              uint32_t mode = SG_K_MODE_TRANSPOSE) {
  cudaGraph_t graph = capture_graph(stream, mode, plan, NULL);
  size_t n = 0;
  SG_CHECK_CUDA(cudaGraphGetNodes(graph, NULL, &n)); /* the count: a buffer would cap it */
  ck_assert_uint_eq(n, 1);
  cudaGraphNode_t node;
  SG_CHECK_CUDA(cudaGraphGetNodes(graph, &node, &n));
  cudaKernelNodeParams params;
  SG_CHECK_CUDA(cudaGraphKernelNodeGetParams(node, &params));
  SG_CHECK_CUDA(cudaGraphDestroy(graph));
  return params.gridDim.x;
}

/* The persistent grid of the instance a layout's launch takes from a
 * device record's entries (the narrow one where the wide does not fit). */
static unsigned grid_of(const int entries[2], uint32_t layout) {
  const bool wide = layout == SG_K_LAYOUT_WIDE && entries[SG_K_LAYOUT_WIDE] > 0;
  return static_cast<unsigned>(g_device.sm_count * entries[wide ? SG_K_LAYOUT_WIDE
                                                                : SG_K_LAYOUT_NARROW]);
}

/* Odd long Wt rows (4097 x 200) transpose in the instance with the
 * realigned drain, on that instance's own grid (its ring is larger, so
 * fewer of its blocks fit: realign_blocks_per_sm), in both layouts; with
 * the plan's realign bit cleared the general instance moves the same
 * tiles as edge ones, on its own grid, to the same bytes. */
START_TEST(realigned_grid) {
  static const uint64_t shape[2] = {4097, 200};
  sg_fx_spec specs[4];
  for (uint32_t i = 0; i < 4; i++) {
    listed_spec(&specs[i], shape, i, listed{SG_K_RECIPE_DELAYED, 0, 0, false, false});
  }
  ck_assert_msg(g_device.realign_blocks_per_sm[SG_K_LAYOUT_NARROW] !=
                    g_device.blocks_per_sm[SG_K_KERNEL_TRANSPOSE][SG_K_LAYOUT_NARROW],
                "the narrow instances' grids agree (%d blocks a multiprocessor): no launch "
                "could show which one it took",
                g_device.realign_blocks_per_sm[SG_K_LAYOUT_NARROW]);
  sg_fx_case c;
  SG_CHECK_CUDA(sg_fx_case_init(&c, specs, 4, &g_rng));
  build_table(&c, 4);
  cudaStream_t stream;
  SG_CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  for (uint32_t layout : {SG_K_LAYOUT_NARROW, SG_K_LAYOUT_WIDE}) {
    const launch_kind k = {SG_K_MODE_TRANSPOSE, layout, ~0u};
    sg_k_plan plan = plan_for(4, SG_K_ALL_GROUPS, k);
    ck_assert_uint_ne(plan.realign, 0);
    ck_assert_uint_eq(captured_grid(plan, stream), grid_of(g_device.realign_blocks_per_sm, layout));
    launch_plan_and_check(&c, 4, k, SG_K_ALL_GROUPS, plan, NULL, "realigned");
    plan.realign = 0;
    ck_assert_uint_eq(captured_grid(plan, stream),
                      grid_of(g_device.blocks_per_sm[SG_K_KERNEL_TRANSPOSE], layout));
    launch_plan_and_check(&c, 4, k, SG_K_ALL_GROUPS, plan, NULL, "realign bit cleared");
  }
  SG_CHECK_CUDA(cudaStreamDestroy(stream));
  sg_fx_case_free(&c);
}
END_TEST

/* Odd long Wt rows whose cast-transpose stages every tile (W and master
 * rows aligned, columns a multiple of 128: GPT-2's embedding) convert the
 * rows below each tile too and drain realigned, in the cast-transpose's
 * wide instance with the realigned drain whatever layout the plan asks
 * for (its grid, one block a multiprocessor, shows it); with the plan's
 * bit cleared the general narrow instance drains them as edge tiles, to
 * the same bytes. Last tiles of 1, 15 and 20 rows (shorter than some Wt
 * rows' head, longer than others'), an odd Wt pitch over even rows, and
 * every kind (groups, both layouts, whole instances) in both recipes. */
START_TEST(realigned_cast_transpose) {
  static const uint64_t shapes[4][2] = {{4097, 256}, {4239, 128}, {4116, 256}, {4148, 384}};
  static const uint64_t kPadWt[4] = {0, 0, 3, 0};
  sg_fx_spec specs[16];
  for (uint32_t i = 0; i < 16; i++) {
    const uint32_t recipe = i % 2 == 0 ? SG_K_RECIPE_DELAYED : SG_K_RECIPE_CURRENT;
    listed_spec(&specs[i], shapes[i / 4], i % 4, listed{recipe, 0, 0, false, false});
    specs[i].pad_wt = kPadWt[i / 4];
    specs[i].group = i % 3;
  }
  check_specs(specs, 16);
  ck_assert_msg(g_device.blocks_per_sm[SG_K_KERNEL_CAST_TRANSPOSE][SG_K_LAYOUT_WIDE] > 0 &&
                    g_device.blocks_per_sm[SG_K_KERNEL_CAST_TRANSPOSE][SG_K_LAYOUT_WIDE] !=
                        g_device.blocks_per_sm[SG_K_KERNEL_CAST_TRANSPOSE][SG_K_LAYOUT_NARROW],
                "no wide cast-transpose, or its grid is the narrow one's: no launch could show "
                "which instance it took");
  for (uint32_t i = 0; i < 16; i++) {
    specs[i].recipe = SG_K_RECIPE_DELAYED; /* one kernel node: the cast-transpose */
  }
  sg_fx_case c;
  SG_CHECK_CUDA(sg_fx_case_init(&c, specs, 16, &g_rng));
  build_table(&c, 16);
  cudaStream_t stream;
  SG_CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const launch_kind k = {SG_K_MODE_CAST_TRANSPOSE, SG_K_LAYOUT_NARROW, 0u};
  sg_k_plan plan = plan_for(16, SG_K_ALL_GROUPS, k);
  ck_assert_uint_eq(plan.realign, 1u << SG_K_LIST_TRANSPOSE | 1u << SG_K_LIST_CAST_TRANSPOSE);
  const int *ct = g_device.blocks_per_sm[SG_K_KERNEL_CAST_TRANSPOSE];
  ck_assert_uint_eq(captured_grid(plan, stream, k.mode), grid_of(ct, SG_K_LAYOUT_WIDE));
  launch_plan_and_check(&c, 16, k, SG_K_ALL_GROUPS, plan, NULL, "realigned");
  plan.realign &= ~(1u << SG_K_LIST_CAST_TRANSPOSE);
  ck_assert_uint_eq(captured_grid(plan, stream, k.mode), grid_of(ct, SG_K_LAYOUT_NARROW));
  launch_plan_and_check(&c, 16, k, SG_K_ALL_GROUPS, plan, NULL, "realign bit cleared");
  SG_CHECK_CUDA(cudaStreamDestroy(stream));
  sg_fx_case_free(&c);
}
END_TEST

/* GPT-2's embedding beside whole weights (3/4 of the tiles and more): the
 * cast-transpose splits, its rest realigned in the wide instance apart. */
START_TEST(realigned_split) {
  static const uint64_t whole[2] = {2048, 2048}, odd[2] = {4097, 256};
  sg_fx_spec specs[8];
  for (uint32_t i = 0; i < 8; i++) {
    const uint32_t recipe = i % 2 == 0 ? SG_K_RECIPE_DELAYED : SG_K_RECIPE_CURRENT;
    listed_spec(&specs[i], i < 4 ? whole : odd, i % 4, listed{recipe, 0, 0, false, false});
    specs[i].group = 0; /* one run of the table: a split needs it */
  }
  sg_fx_case c;
  SG_CHECK_CUDA(sg_fx_case_init(&c, specs, 8, &g_rng));
  build_table(&c, 8);
  const launch_kind k = {SG_K_MODE_CAST_TRANSPOSE, SG_K_LAYOUT_WIDE, ~0u};
  const sg_k_plan plan = plan_for(8, SG_K_ALL_GROUPS, k);
  ck_assert_uint_ne(plan.split & (1u << SG_K_LIST_CAST_TRANSPOSE), 0);
  ck_assert_uint_ne(plan.realign & (1u << SG_K_LIST_CAST_TRANSPOSE), 0);
  check_kind(&c, k, SG_K_ALL_GROUPS);
  sg_fx_case_free(&c);
}
END_TEST

/* A captured launch replays to the same bytes as an eager one; a table
 * rebuilt with more parameters at the same address is picked up by the
 * graph captured before; a captured no-op flag is read at replay time. */
START_TEST(graph_capture_and_replay) {
  const uint32_t count = 40, first = 25;
  sg_fx_case c;
  random_case(&c, count, 300, first);
  cudaStream_t stream;
  SG_CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  int32_t *flag = NULL;
  SG_CHECK_CUDA(cudaMalloc(&flag, sizeof *flag));
  SG_CHECK_CUDA(cudaMemset(flag, 0, sizeof *flag));
  for (launch_kind k : kKinds) {
    build_table(&c, first);
    launch_and_check(&c, first, k, SG_K_ALL_GROUPS, flag, "eager");
    cudaGraphExec_t exec = capture(stream, k, flag, count);
    replay_and_check(&c, exec, stream, first, k, "replay");
    sg_fx_repoison(&c, k.mode, &g_rng);
    replay_and_check(&c, exec, stream, first, k, "second replay");
    build_table(&c, count);
    replay_and_check(&c, exec, stream, count, k, "replay after rebuilding the table");
    const int32_t one = 1;
    SG_CHECK_CUDA(cudaMemcpy(flag, &one, sizeof one, cudaMemcpyHostToDevice));
    replay_and_check(&c, exec, stream, 0, k, "replay with the no-op flag set");
    SG_CHECK_CUDA(cudaMemset(flag, 0, sizeof *flag));
    SG_CHECK_CUDA(cudaGraphExecDestroy(exec));
  }
  SG_CHECK_CUDA(cudaFree(flag));
  SG_CHECK_CUDA(cudaStreamDestroy(stream));
  sg_fx_case_free(&c);
}
END_TEST

START_TEST(invalid_launch_arguments) {
  const sg_k_plan plan = sg_k_refresh_plan(NULL, 0, SG_K_ALL_GROUPS);
  sg_k_plan bad_layout = plan;
  bad_layout.layout = 2;
  const sg_k_refresh_device unloaded = {};
  const uint32_t all = SG_K_ALL_GROUPS;
  ck_assert_int_eq(sg_k_refresh_launch(NULL, 0, all, &plan, NULL, &g_device, 0),
                   cudaErrorInvalidValue);
  ck_assert_int_eq(sg_k_refresh_launch(g_table, 3, all, &plan, NULL, &g_device, 0),
                   cudaErrorInvalidValue);
  ck_assert_int_eq(sg_k_refresh_launch(g_table, 0, all, &bad_layout, NULL, &g_device, 0),
                   cudaErrorInvalidValue);
  ck_assert_int_eq(sg_k_refresh_launch(g_table, 0, all, NULL, NULL, &g_device, 0),
                   cudaErrorInvalidValue);
  ck_assert_int_eq(sg_k_refresh_launch(g_table, 0, all, &plan, NULL, NULL, 0),
                   cudaErrorInvalidValue);
  ck_assert_int_eq(sg_k_refresh_launch(g_table, 0, all, &plan, NULL, &unloaded, 0),
                   cudaErrorInvalidValue);
  ck_assert_int_eq(sg_k_refresh_load(NULL), cudaErrorInvalidValue);
}
END_TEST

static void setup_device(void) {
  SG_CHECK_CUDA(sg_k_refresh_load(&g_device));
  SG_CHECK_CUDA(cudaMalloc(&g_table, sg_k_refresh_table_bytes(kCapacity)));
  g_image = malloc(sg_k_refresh_table_bytes(kCapacity));
  if (g_image == NULL) {
    fprintf(stderr, "test_refresh_kernels: out of host memory\n");
    exit(1);
  }
}

/* One test per case, so that CK_RUN_CASE can pick them (sanitizer runs). */
static TCase *new_case(Suite *s, const char *name) {
  TCase *tc = tcase_create(name);
  suite_add_tcase(s, tc);
  return tc;
}

int main(void) {
  sg_test_require_gpu("test_refresh_kernels");
  g_rng.state = sg_test_seed("test_refresh_kernels");
  setup_device();
  Suite *s = suite_create("refresh_kernels");
  tcase_add_test(new_case(s, "random_shapes"), random_shapes);
  tcase_add_test(new_case(s, "edge_shapes"), edge_shapes);
  tcase_add_test(new_case(s, "linear_spans"), linear_spans);
  tcase_add_test(new_case(s, "many_spans"), many_spans);
  tcase_add_test(new_case(s, "spans_between_tiles"), spans_between_tiles);
  tcase_add_test(new_case(s, "bf16_runs"), bf16_runs);
  tcase_add_test(new_case(s, "short_tile_pairs"), short_tile_pairs);
  tcase_add_test(new_case(s, "masters_end_the_allocation"), masters_end_the_allocation);
  tcase_add_test(new_case(s, "whole_tiles"), whole_tiles);
  tcase_add_test(new_case(s, "split_selection"), split_selection);
  tcase_add_test(new_case(s, "realigned_grid"), realigned_grid);
  tcase_add_test(new_case(s, "realigned_cast_transpose"), realigned_cast_transpose);
  tcase_add_test(new_case(s, "realigned_split"), realigned_split);
  tcase_add_test(new_case(s, "thousands_of_params"), thousands_of_params);
  tcase_add_test(new_case(s, "special_scales"), special_scales);
  tcase_add_test(new_case(s, "computed_scale_edges"), computed_scale_edges);
  tcase_add_test(new_case(s, "group_filter"), group_filter);
  tcase_add_test(new_case(s, "noop_flag"), noop_flag);
  tcase_add_test(new_case(s, "graph"), graph_capture_and_replay);
  tcase_add_test(new_case(s, "overlapping_launches"), overlapping_launches_in_graphs);
  tcase_add_test(new_case(s, "invalid_arguments"), invalid_launch_arguments);
  const int rc = sg_run_suite(s, CK_NOFORK);
  SG_CHECK_CUDA(cudaFree(g_table));
  free(g_image);
  free(g_params);
  return rc;
}

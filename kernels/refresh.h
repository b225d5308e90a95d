/* FP8 weight refresh after the optimizer step: multi-tensor transpose, cast and
 * cast-transpose kernels behind a small C launcher. Includable from C11 and
 * CUDA. Prefix sg_k_.
 *
 * The caller (the plugin) validates parameters (NULLs, overlaps, sizes), builds
 * a table image on the host with sg_k_refresh_build, copies it with cudaMemcpy
 * to a device buffer that stays at one address, and calls sg_k_refresh_launch,
 * possibly inside a stream capture. Everything a launch needs is read from that
 * device table, so a graph that captured a launch picks up a table rebuilt
 * later at the same address. A cudaMemcpy from pageable host memory may return
 * before the data lands, and work on a non-blocking stream does not wait for
 * it: synchronize (or copy from pinned memory and order the streams) before a
 * launch or replay can read the new table.
 *
 * Semantics, per parameter (M the master, s = *scale):
 *   transpose       Wt[j][i] = W[i][j], bytes copied, nothing re-quantized.
 *   cast            over the owned flat range only (index r*cols + c,
 *                   [range_begin, range_end), range_end == 0: all of it):
 *                   W = fp8(M*s); *amax = max |M| over that range (+0 when
 *                   the range is empty); *scale_inv = 1/s.
 *   cast-transpose  the cast over the whole parameter, plus Wt, in one pass.
 * M*s is one IEEE float multiply (round to nearest), 1/s one IEEE division;
 * a BF16 master is widened exactly first. fp8() is bit-identical to
 * __nv_cvt_float_to_fp8(x, __NV_SATFINITE, fmt): round to nearest even,
 * magnitudes past the largest finite value and +-inf saturate to +-448 (E4M3,
 * 0x7E/0xFE) or +-57344 (E5M2, 0x7B/0xFB), NaN becomes 0x7F in both formats,
 * magnitudes up to half the smallest subnormal become a zero of the input's
 * sign. amax is written, not accumulated (no need to zero it); a NaN in M
 * makes it NaN (the NaN of largest payload among them). A NaN scale gives
 * a NaN scale_inv (payload unspecified) and 0x7F codes. Zero, negative and
 * infinite scales are not special-cased: outputs are what the arithmetic gives.
 * The cast modes skip (write nothing for) a parameter without a master.
 *
 * Recipes (sg_k_param.recipe) change where s comes from in the cast modes:
 *   delayed   s = *scale (the above).
 *   current   s = sg_k_scale_of(max |M| over the whole parameter): a launch
 *             first runs an amax pass over the selected current-scaling
 *             parameters (the launch's scratch keeps each s), then the cast
 *             reads s from there. *amax and *scale_inv as above; scale is
 *             not read.
 *   block     per 128x128 block of W (SG_K_TILE; partial at the edges):
 *             s_b = sg_k_scale_of(max |M| over the block), W = fp8(M*s_b),
 *             grid[i][j] = 1/s_b; cast-transpose also writes Wt and
 *             grid_t[j][i]. Transpose mode writes Wt and grid_t from grid.
 *             scale, scale_inv and amax are not used.
 * sg_k_scale_of(a) (a the max |M| bit pattern, as a float): 1 for a 0, +inf
 * or NaN; else fp8_max / a (448 E4M3, 57344 E5M2; one IEEE division),
 * FLT_MAX where that is +inf; with SG_K_POW2_SCALES rounded down to a power
 * of two. Current and block parameters have no owned range.
 *
 * Launches that share one table must be ordered (one stream, or events): a
 * launch keeps per-parameter amax partials in the table and clears them when
 * it finishes. */
#ifndef SG_KERNELS_REFRESH_H
#define SG_KERNELS_REFRESH_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { SG_K_FP8_E4M3 = 0, SG_K_FP8_E5M2 = 1 };
enum { SG_K_MASTER_NONE = 0, SG_K_MASTER_FP32 = 1, SG_K_MASTER_BF16 = 2 };
enum { SG_K_MODE_TRANSPOSE = 0, SG_K_MODE_CAST = 1, SG_K_MODE_CAST_TRANSPOSE = 2 };
enum { SG_K_MODE_COUNT = 3 };
enum { SG_K_RECIPE_DELAYED = 0, SG_K_RECIPE_CURRENT = 1, SG_K_RECIPE_BLOCK = 2 };
enum { SG_K_POW2_SCALES = 1u }; /* sg_k_param.recipe_flags */
#define SG_K_BLOCK 128u /* block scaling's block edge, in elements */
#define SG_K_ALL_GROUPS UINT32_MAX
/* How a tile-mode launch deals its tiles (the cast mode has one way). Both
 * give the same bytes for any table; they differ in speed only. */
enum { SG_K_LAYOUT_NARROW = 0, SG_K_LAYOUT_WIDE = 1 };

/* One registered FP8 parameter. All pointers are device pointers. */
typedef struct sg_k_param {
  uint8_t *w;                    /* W [rows, cols] row-major FP8 codes */
  uint64_t ld_w;                 /* >= cols, in elements */
  uint8_t *wt;                   /* Wt [cols, rows] row-major */
  uint64_t ld_wt;                /* >= rows */
  const void *master;            /* [rows, cols] FP32 or BF16; NULL for NONE */
  uint64_t ld_master;            /* >= cols when there is a master */
  const float *scale;            /* cast modes: required with a master */
  float *scale_inv;
  float *amax;
  uint64_t rows, cols;           /* both >= 1 */
  uint64_t range_begin, range_end; /* owned flat range for CAST; end 0: all */
  uint32_t format, master_dtype, group;
  uint32_t recipe, recipe_flags;  /* SG_K_RECIPE_*, SG_K_POW2_SCALES */
  float *grid;                    /* block: W's scale_inv grid */
  uint64_t ld_grid;               /* >= ceil(cols / 128) */
  float *grid_t;                  /* block: Wt's, [ceil(cols/128)][ceil(rows/128)] */
  uint64_t ld_grid_t;             /* >= ceil(rows / 128) */
} sg_k_param;

/* Bytes of one master element: 4 (FP32), 2 (BF16), 0 (none or unknown). */
uint32_t sg_k_master_elem_bytes(uint32_t master_dtype);

/* Device bytes of a table for `capacity` parameters, scratch included. */
size_t sg_k_refresh_table_bytes(uint32_t capacity);

/* Builds the table image in host memory `image` (sg_k_refresh_table_bytes
 * (capacity) bytes) for params[0..count). Pure host code, no CUDA calls,
 * thread-safe. Returns cudaErrorInvalidValue, leaving the image unspecified,
 * when image is NULL, count > capacity, params is NULL with count > 0, or a
 * parameter has an unknown format or master dtype, zero rows or cols,
 * rows*cols overflowing, a leading dimension below its width, W or Wt NULL,
 * a range other than begin <= end <= rows*cols (end == 0 needs begin == 0),
 * an unknown recipe or recipe flag, or what its recipe needs missing: a
 * delayed master without scale, scale_inv or amax; a current parameter
 * without a master, scale_inv or amax, or with a range that is not all of
 * it; a block parameter without grid or grid_t, with a grid ld below its
 * width, or with a range that is not all of it. Pointers a recipe does not
 * use are ignored. The image starts with its scratch cleared, as launches
 * leave it. */
cudaError_t sg_k_refresh_build(void *image, uint32_t capacity,
                               const sg_k_param *params, uint32_t count);

/* The same table as one run of every parameter, as if all were in one
 * group (every descriptor's group 0), the whole-tile ones first: the table
 * for launches of all groups, whose transpose can then split
 * (sg_k_plan.split) however the parameters are grouped; in the grouped
 * table a group's whole parameters come first within the group only, so
 * the parts of several groups are not one run each. Launch it with
 * SG_K_ALL_GROUPS and sg_k_refresh_plan_merged's plan only. */
cudaError_t sg_k_refresh_build_merged(void *image, uint32_t capacity,
                                      const sg_k_param *params, uint32_t count);

/* The layout that suits the parameters a launch for `group` (SG_K_ALL_GROUPS:
 * all) refreshes: SG_K_LAYOUT_WIDE when at least 3/4 of their tiles belong to
 * parameters of at least 256 x 256 whose W and Wt rows are 16-byte aligned,
 * which stream fastest in 256 x 256 blocks with one block per multiprocessor;
 * SG_K_LAYOUT_NARROW otherwise (many small, odd or unaligned parameters, and
 * no parameter at all), which keeps several blocks per multiprocessor in
 * flight. Pure host code over the same array sg_k_refresh_build took; call it
 * again when that changes. */
uint32_t sg_k_refresh_layout(const sg_k_param *params, uint32_t count,
                             uint32_t group);

/* The work lists of the table: one per mode, the current-scaling amax pass
 * and the block-scaled casts. */
enum {
  SG_K_LIST_TRANSPOSE = SG_K_MODE_TRANSPOSE,
  SG_K_LIST_CAST = SG_K_MODE_CAST,
  SG_K_LIST_CAST_TRANSPOSE = SG_K_MODE_CAST_TRANSPOSE,
  SG_K_LIST_AMAX = 3,  /* current scaling: max |M| of each such parameter */
  SG_K_LIST_BLOCK = 4, /* block scaling: its tiles, cast (and transposed) */
  SG_K_LIST_COUNT = 5
};

/* What a launch for one selection (a group, or all) needs, from host
 * metadata only: its tile layout, which work lists have items (bit
 * 1 << SG_K_LIST_*), how many parameters it selects, the first of them
 * (index in the caller's array) without a master, or UINT32_MAX, and in
 * which tile lists (bit 1 << SG_K_LIST_TRANSPOSE, _CAST_TRANSPOSE) every
 * tile of the selection is whole: its parameter's rows and cols multiples
 * of 128, W's, Wt's (and, cast-transposed, the master's) rows 16-byte
 * aligned. Those launches take kernel instances without the edge and
 * unaligned code, which the GPT set's all-whole tiles paid for in speed.
 * `grids`: the tile lists (bit 1 << SG_K_LIST_TRANSPOSE only) in which
 * some selected tile carries a block grid entry (block scaling's
 * transpose): where the whole instance moves tiles (whole or split), the
 * transpose mode then runs the grid transpose after them; the general
 * instance moves its tiles' entries itself. 0 in whole is always valid
 * (the general instances); a grids bit may be set for a selection without
 * grids, never left clear for one with them. `split` (bit 1 <<
 * SG_K_LIST_TRANSPOSE, with bit 1 << SG_K_LIST_CAST_TRANSPOSE): the
 * selection is one run of the table (one group's, or all of the merged
 * table: sg_k_refresh_build_merged) and most of its transpose tiles (3/4)
 * belong to parameters whose tiles are all whole, but not all do; its
 * transpose then runs as two launches, the whole parameters in the whole
 * instance (in `layout`) and the rest in the general one (in
 * `rest_layout`), and so does its cast-transpose where its bit is set
 * (both parts have its tiles, and every whole-tile parameter's are whole
 * in that list too), where one launch of the
 * general instance would move every tile (a model with one odd embedding
 * ran all its weights so). 0 is always valid. `realign`: bit 1 <<
 * SG_K_LIST_TRANSPOSE where some selected parameter's Wt rows realign
 * (SG_K_VEC_REALIGN), bit 1 << SG_K_LIST_CAST_TRANSPOSE where some
 * parameter's cast-transpose does (SG_K_VEC_REALIGN_CT); the general
 * instance of that list's kernel then is the one with the realigned drain
 * (the cast-transpose's in the wide layout, whose ring has room for the
 * rows below each tile, where the device has it). Any bit may be clear
 * (those tiles drain as edge ones) or set. `pairs`:
 * nonzero where at least 3/4 of the block list's tiles have 64 rows or
 * fewer; the block kernels then run in the instance that takes two of
 * them a step (whose code for the other tiles is slower: refresh_plan.c).
 * 0 is valid, nonzero too. */
typedef struct sg_k_plan {
  uint32_t layout;
  uint32_t lists;
  uint32_t params;
  uint32_t first_without_master;
  uint32_t whole;
  uint32_t grids;
  uint32_t split;
  uint32_t rest_layout;
  uint32_t realign;
  uint32_t pairs;
} sg_k_plan;

/* The plan of the parameters of `group` (SG_K_ALL_GROUPS: all). O(count). */
sg_k_plan sg_k_refresh_plan(const sg_k_param *params, uint32_t count, uint32_t group);

/* The plan of all of them as one run: for the merged table
 * (sg_k_refresh_build_merged), where a transpose may split across
 * groups. */
sg_k_plan sg_k_refresh_plan_merged(const sg_k_param *params, uint32_t count);

/* One group's plan. */
typedef struct sg_k_group_plan {
  uint32_t group;
  sg_k_plan plan;
} sg_k_group_plan;

/* The plans of every group in params, sorted by group, into out (room for
 * count): returns how many groups there are. O(count log count): a caller
 * keeps them, so that a launch costs a search, not a pass over every
 * parameter. Returns 0, writing nothing, when host memory runs out. */
uint32_t sg_k_refresh_group_plans(const sg_k_param *params, uint32_t count,
                                  sg_k_group_plan *out);

/* The plan of `group` among plans[0..n) (sorted, as above), or NULL. */
const sg_k_plan *sg_k_refresh_find_plan(const sg_k_group_plan *plans, uint32_t n,
                                        uint32_t group);

/* Kernels a launch may run (one per work list, the block list twice: cast
 * and cast-transpose; and block scaling's grid transpose, which walks the
 * transpose list for the tiles' scale_inv entries). */
enum {
  SG_K_KERNEL_TRANSPOSE = 0,
  SG_K_KERNEL_CAST = 1,
  SG_K_KERNEL_CAST_TRANSPOSE = 2,
  SG_K_KERNEL_AMAX = 3,
  SG_K_KERNEL_BLOCK_CAST = 4,
  SG_K_KERNEL_BLOCK_CAST_TRANSPOSE = 5,
  SG_K_KERNEL_GRID = 6,
  SG_K_KERNEL_COUNT = 7
};

/* What the launcher needs of the device, queried once by sg_k_refresh_load
 * so that a launch makes no attribute or occupancy query: the persistent
 * grid's size per kernel and layout, and whether the wide layout fits. The
 * caller owns it (one per device); read-only after the load, so any number
 * of threads may launch with it. */
typedef struct sg_k_refresh_device {
  int sm_count;
  int blocks_per_sm[SG_K_KERNEL_COUNT][2]; /* [kernel][layout]; 0: no such */
  /* [layout]: the transpose's instance with the realigned drain, whose ring
   * is 2 KB a tile larger (sg_k_plan.realign) */
  int realign_blocks_per_sm[2];
  int wide_fits;                           /* the wide layout's shared memory */
  int overlaps; /* compute capability >= 9.0: programmatic dependent launch */
} sg_k_refresh_device;

/* The kernels a launch of `mode` runs for `plan`, in order, into
 * kernels[0..3): returns how many (0 to 3). Pure host code. */
uint32_t sg_k_refresh_kernels(uint32_t mode, const sg_k_plan *plan, uint32_t kernels[3]);

/* Every kernel the mode needs for `plan` (sg_k_refresh_kernels), one after
 * the other on `stream`, refreshing the parameters of the table whose group
 * equals `group` (SG_K_ALL_GROUPS: all), the tile kernels dealt as
 * plan->layout (the narrow layout where the device has no room for the
 * wide one). `plan` must describe that selection of the table's parameters
 * (sg_k_refresh_plan over the array the table was built from, or over a
 * superset of that selection): a list it leaves out is not launched, and a
 * whole bit it sets is trusted (the whole instances move every tile as a
 * full aligned 128 x 128 one), as is a grids bit it leaves clear (no grid
 * transpose runs) and a split bit it sets (the selection is one run of
 * the table: a group's, or the merged table's; the table says which of its
 * parameters are whole). No allocation, no synchronisation, no reads of
 * device memory by the host, no attribute or occupancy query: legal inside
 * a stream capture. noop_flag: a device int32, or NULL; when it is nonzero
 * at run time every kernel does nothing. Returns cudaErrorInvalidValue for
 * a NULL table, plan or device, an unknown mode or layout (rest_layout
 * too, when split), a device not loaded (sm_count < 1), else the first
 * error of cudaLaunchKernelExC. */
cudaError_t sg_k_refresh_launch(const void *device_table, uint32_t mode, uint32_t group,
                                const sg_k_plan *plan, const int32_t *noop_flag,
                                const sg_k_refresh_device *device, cudaStream_t stream);

/* Loads the refresh kernels' module on the current device (with lazy
 * loading it would otherwise load at the first launch, which may sit inside
 * a host's capture), sets their attributes and fills *out for that device.
 * Call once per device, outside any capture; thread-safe (it touches only
 * the current device's function attributes and *out). */
cudaError_t sg_k_refresh_load(sg_k_refresh_device *out);

#ifdef __cplusplus
}
#endif

#endif /* SG_KERNELS_REFRESH_H */

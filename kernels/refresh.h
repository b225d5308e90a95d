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
 * a master without scale, scale_inv or amax, or a range other than
 * begin <= end <= rows*cols (end == 0 needs begin == 0). The image starts
 * with its amax scratch cleared, as launches leave it. */
cudaError_t sg_k_refresh_build(void *image, uint32_t capacity,
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

/* One kernel launch on `stream` refreshing every parameter of the table, or
 * those whose group equals `group` (SG_K_ALL_GROUPS: all), in mode
 * SG_K_MODE_*, with the tile modes dealt as `layout` (SG_K_LAYOUT_*; a GPU
 * without the shared memory the wide layout needs, which Hopper has, gets
 * the narrow one). No allocation, no synchronisation, no reads of device
 * memory by the host: legal inside a stream capture. noop_flag: a device
 * int32, or NULL; when it is nonzero at run time the launch does nothing.
 * sm_count: the device's multiprocessor count, which sizes the persistent
 * grid. Returns cudaErrorInvalidValue for a NULL table, an unknown mode or
 * layout or sm_count < 1, else the first error of the kernel's attribute
 * and occupancy queries (host-side, capture-safe) and cudaLaunchKernel. */
cudaError_t sg_k_refresh_launch(const void *device_table, uint32_t mode,
                                uint32_t group, uint32_t layout,
                                const int32_t *noop_flag, int sm_count,
                                cudaStream_t stream);

/* Loads the refresh kernels' module on the current device (with lazy
 * loading it would otherwise load at the first launch, which may sit inside
 * a host's capture) and sets their attributes. Call once per device, outside
 * any capture. */
cudaError_t sg_k_refresh_load(void);

#ifdef __cplusplus
}
#endif

#endif /* SG_KERNELS_REFRESH_H */

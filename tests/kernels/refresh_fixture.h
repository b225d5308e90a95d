/* Test fixture for the refresh kernels: every parameter's W, Wt, master and
 * scalars live in one arena, with random gaps (guards) around each and ld
 * padding inside, mirrored on the host. A check uploads the arena's initial
 * bytes, runs the kernel, downloads the arena and compares ALL of it with the
 * CPU reference applied to the same initial bytes, so guards, padding, bytes
 * outside an owned range and other groups' parameters are checked untouched
 * along with the outputs. */
#ifndef SG_REFRESH_FIXTURE_H
#define SG_REFRESH_FIXTURE_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "refresh.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sg_fx_rng {
  uint64_t state;
} sg_fx_rng;

uint64_t sg_fx_next(sg_fx_rng *r);
uint64_t sg_fx_below(sg_fx_rng *r, uint64_t n); /* uniform in [0, n), n >= 1 */

/* One parameter as a test wants it; leading dimensions are width + pad. */
typedef struct sg_fx_spec {
  uint64_t rows, cols;
  uint64_t pad_w, pad_wt, pad_m;
  uint32_t format, master_dtype, group;
  uint32_t misalign; /* W, Wt and master off 16-byte alignment: 0 not; 1 by a
                        random multiple of the element; 2..15 by that many
                        bytes, rounded up to the element */
  uint32_t master_misalign; /* nonzero: the master's instead of misalign (16:
                               aligned, whatever W's and Wt's) */
  uint32_t master_last;     /* nonzero: the master is placed after every other
                               buffer, the last flagged one ending the device
                               allocation (no guard bytes after it), so that
                               memcheck sees a read past its end */
  uint64_t range_begin, range_end;
  float scale;
  uint32_t specials; /* nonzero: the master may hold +-inf and NaN */
  uint32_t recipe, recipe_flags; /* SG_K_RECIPE_*, SG_K_POW2_SCALES */
  uint64_t pad_grid, pad_grid_t; /* block scaling: grid ld = width + pad */
} sg_fx_spec;

/* A random spec: odd, tile-sized and degenerate (1xN, Nx1) shapes up to
 * max_dim, padding, misalignment, both formats, all master dtypes, groups
 * 0..3, sharded ranges that split rows, and scales that are mostly powers
 * of two (so that ties survive the multiply) with a few zero, negative,
 * infinite or NaN ones; half of them delayed scaling, the others current
 * (with a master) or block scaling, whole, with or without power-of-two
 * scales and padded grids. */
void sg_fx_random_spec(sg_fx_rng *r, uint64_t max_dim, sg_fx_spec *out);

/* Byte kinds in the arena. */
enum { SG_FX_GUARD = 0, SG_FX_W, SG_FX_WT, SG_FX_MASTER, SG_FX_SCALE, SG_FX_OUT,
       SG_FX_GRID, SG_FX_GRID_T };

typedef struct sg_fx_offsets {
  size_t w, wt, master, scale, scale_inv, amax, grid, grid_t;
} sg_fx_offsets;

typedef struct sg_fx_case {
  uint32_t count;
  sg_fx_spec *specs;
  sg_fx_offsets *offs;
  size_t size;
  uint8_t *dev;    /* device arena */
  uint8_t *kind;   /* SG_FX_* per byte */
  uint8_t *init;   /* what is uploaded before a launch */
  uint8_t *expect; /* the reference applied to init */
  uint8_t *got;    /* what came back */
} sg_fx_case;

/* Lays out and allocates the arena and fills init: random bytes everywhere,
 * then masters (values of every class the conversion distinguishes: exact
 * codes, ties, normal and subnormal floats, zeros of both signs, values just
 * above and far above the largest finite, and with `specials` infinities and
 * NaNs) and scales. */
cudaError_t sg_fx_case_init(sg_fx_case *c, const sg_fx_spec *specs, uint32_t count,
                            sg_fx_rng *r);
void sg_fx_case_free(sg_fx_case *c);

/* Sets every master element of parameter i (which has a master) in init
 * to `value`: zero, subnormal or infinite blocks and tensors. */
void sg_fx_fill_master(sg_fx_case *c, uint32_t i, float value);

/* The parameters with their pointers in `base` (c->dev, or a host mirror). */
void sg_fx_params(const sg_fx_case *c, uint8_t *base, sg_k_param *out);

/* New initial bytes for a second launch on the same table: every byte that
 * is not an input of `mode` changes (so an output the kernel failed to write
 * cannot match by chance in both launches), and masters are halved (so an
 * amax left over from the first launch would show). */
void sg_fx_repoison(sg_fx_case *c, uint32_t mode, sg_fx_rng *r);

/* expect = init with the reference applied to params[0..count) of `group`. */
void sg_fx_expect(sg_fx_case *c, uint32_t count, uint32_t mode, uint32_t group);

cudaError_t sg_fx_upload(const sg_fx_case *c);
cudaError_t sg_fx_download(sg_fx_case *c);

/* Compares got with expect (a NaN scale_inv matches any NaN). Returns 0 when
 * equal, else writes a description of the first difference to msg. */
int sg_fx_compare(sg_fx_case *c, char *msg, size_t msg_size);

#ifdef __cplusplus
}
#endif

#endif /* SG_REFRESH_FIXTURE_H */

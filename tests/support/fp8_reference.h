/* CPU reference for the FP8 refresh kernels: the float -> FP8 conversion and
 * the three refresh modes, in plain C, written from the formats' definitions
 * rather than from CUDA's code so that the two can be compared.
 *
 * Conversion (sg_ref_fp8_from_float), the same bits as CUDA's
 * __nv_cvt_float_to_fp8(x, __NV_SATFINITE, fmt) for every float input:
 *   - Finite values round to nearest, ties to even, in the format
 *     (E4M3: 1 sign, 4 exponent bits with bias 7, 3 mantissa bits, largest
 *     finite 448 = 0x7E, no infinities; E5M2: bias 15, 2 mantissa bits,
 *     largest finite 57344 = 0x7B).
 *   - A finite value whose rounded magnitude would exceed the largest finite
 *     value saturates to it, keeping its sign: E4M3 |x| > 464 gives 0x7E/0xFE
 *     (exactly 464, a tie, rounds to even 448); E5M2 |x| >= 61440 gives
 *     0x7B/0xFB.
 *   - +inf and -inf saturate the same way: E4M3 0x7E and 0xFE (+-448),
 *     E5M2 0x7B and 0xFB (+-57344).
 *   - NaN, of either sign and any payload, becomes 0x7F in both formats (the
 *     E4M3 NaN code; in E5M2 a quiet NaN). The sign of a NaN is not kept.
 *   - Magnitudes up to half the smallest subnormal (E4M3 2^-10, E5M2 2^-17;
 *     the tie rounds to even zero) become zero with the input's sign:
 *     0x00 or 0x80.
 *
 * Refresh modes over one parameter (sg_ref_refresh), through host pointers
 * laid out exactly as the kernels' device pointers:
 *   - transpose: Wt[j][i] = W[i][j], bytes copied.
 *   - cast: for each flat index f = r*cols + c in the owned range
 *     [range_begin, range_end) (range_end == 0: the whole parameter),
 *     W[r][c] = fp8(M[r][c] * s) with one IEEE float multiply; *amax is
 *     written with max |M| over the range (+0 for an empty range; a NaN, the
 *     one with the largest payload, when any M is NaN); *scale_inv = 1/s,
 *     one IEEE division. BF16 masters are widened exactly (bits << 16).
 *   - cast-transpose: the cast over the whole parameter, then the transpose.
 *   The cast modes skip a parameter without a master (SG_K_MASTER_NONE).
 *   Zero, negative and non-finite scales are not special-cased.
 *
 * Recipes (sg_k_param.recipe):
 *   - delayed: s = *scale, as above.
 *   - current: s = sg_ref_scale_of(max |M| over the whole parameter); then
 *     as above (amax, scale_inv = 1/s); scale is not read.
 *   - block: every 128 x 128 block of W (partial at the edges) is cast with
 *     s_b = sg_ref_scale_of(max |M| over the block); grid[i][j] = 1/s_b,
 *     and in cast-transpose grid_t[j][i] too; transpose mode copies grid
 *     into grid_t transposed. scale, scale_inv and amax are not touched. */
#ifndef SG_FP8_REFERENCE_H
#define SG_FP8_REFERENCE_H

#include <stdint.h>

#include "refresh.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A float's bit pattern and back. */
uint32_t sg_ref_float_bits(float x);
float sg_ref_bits_float(uint32_t b);

/* fmt: SG_K_FP8_E4M3 or SG_K_FP8_E5M2. */
uint8_t sg_ref_fp8_from_float(float x, uint32_t fmt);

/* The scale of an amax bit pattern: 1 for 0, +inf and NaN patterns; else
 * the format's largest finite value (448, 57344) divided by the amax (one
 * IEEE float division), the largest finite float where that overflows;
 * with pow2, its mantissa bits cleared (rounded down to a power of 2). */
float sg_ref_scale_of(uint32_t amax_bits, uint32_t fmt, int pow2);

/* The largest |M| bit pattern over the whole parameter's master (a NaN's
 * pattern is above every other): what current scaling's scale comes from. */
uint32_t sg_ref_amax_bits(const sg_k_param *p);

/* The master element at (r, c) widened to float. */
float sg_ref_master_at(const sg_k_param *p, uint64_t r, uint64_t c);

/* One parameter, one mode (SG_K_MODE_*), through host pointers. */
void sg_ref_refresh(const sg_k_param *p, uint32_t mode);

/* What one launch does: every parameter whose group matches (or all of them
 * for SG_K_ALL_GROUPS). */
void sg_ref_refresh_all(const sg_k_param *params, uint32_t count, uint32_t mode,
                        uint32_t group);

#ifdef __cplusplus
}
#endif

#endif /* SG_FP8_REFERENCE_H */

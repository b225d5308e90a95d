/* CPU reference of the FP8 conversion and of the refresh modes; the header
 * says what each function computes. Everything works on float bit patterns so
 * that rounding, saturation and NaN handling are explicit. */
#include "fp8_reference.h"

#include <string.h>

/* The block edge of block scaling, from its definition (128 x 128). */
#define SG_REF_BLOCK 128u

uint32_t sg_ref_float_bits(float x) {
  uint32_t b;
  memcpy(&b, &x, sizeof b);
  return b;
}

float sg_ref_bits_float(uint32_t b) {
  float x;
  memcpy(&x, &b, sizeof x);
  return x;
}

uint8_t sg_ref_fp8_from_float(float x, uint32_t fmt) {
  const uint32_t mant = fmt == SG_K_FP8_E4M3 ? 3u : 2u;
  const uint32_t bias = fmt == SG_K_FP8_E4M3 ? 7u : 15u;
  const uint32_t max_code = fmt == SG_K_FP8_E4M3 ? 0x7Eu : 0x7Bu;
  /* Float bit patterns of the smallest FP8 normal, 2^(1-bias), and of half
   * the smallest FP8 subnormal, 2^(1-bias-mant) / 2. */
  const uint32_t min_normal = (127u + 1u - bias) << 23;
  const uint32_t half_min_sub = (127u - bias - mant) << 23;
  const uint32_t bits = sg_ref_float_bits(x);
  const uint8_t sign = (uint8_t)((bits >> 24) & 0x80u);
  const uint32_t a = bits & 0x7FFFFFFFu;
  if (a > 0x7F800000u) {
    return 0x7F;
  }
  if (a <= half_min_sub) {
    return sign;
  }
  uint32_t code, rem, half;
  if (a >= min_normal) {
    /* Drop the low mantissa bits; the float exponent lands right above the
     * FP8 mantissa and only needs rebiasing. */
    const uint32_t shift = 23u - mant;
    code = (a >> shift) - ((127u - bias) << mant);
    rem = a & ((1u << shift) - 1u);
    half = 1u << (shift - 1u);
  } else {
    /* FP8 subnormal: count the input, sig * 2^(E-150), in units of the
     * smallest subnormal, 2^(1-bias-mant). */
    const uint32_t sig = (a & 0x7FFFFFu) | 0x800000u;
    const uint32_t k = (150u + 1u - bias - mant) - (a >> 23);
    code = sig >> k;
    rem = sig & ((1u << k) - 1u);
    half = 1u << (k - 1u);
  }
  if (rem > half || (rem == half && (code & 1u) != 0u)) {
    code++;
  }
  if (code > max_code) {
    code = max_code;
  }
  return (uint8_t)(sign | code);
}

float sg_ref_master_at(const sg_k_param *p, uint64_t r, uint64_t c) {
  const uint64_t i = r * p->ld_master + c;
  if (p->master_dtype == SG_K_MASTER_BF16) {
    const uint16_t h = ((const uint16_t *)p->master)[i];
    return sg_ref_bits_float((uint32_t)h << 16);
  }
  return ((const float *)p->master)[i];
}

static void ref_transpose(const sg_k_param *p) {
  for (uint64_t i = 0; i < p->rows; i++) {
    for (uint64_t j = 0; j < p->cols; j++) {
      p->wt[j * p->ld_wt + i] = p->w[i * p->ld_w + j];
    }
  }
}

static uint64_t blocks_of(uint64_t n) { return (n + SG_REF_BLOCK - 1) / SG_REF_BLOCK; }

/* Wt's grid from W's: block (i, j) of W is block (j, i) of Wt (bits
 * copied, whatever they are). */
static void ref_transpose_grid(const sg_k_param *p) {
  for (uint64_t i = 0; i < blocks_of(p->rows); i++) {
    for (uint64_t j = 0; j < blocks_of(p->cols); j++) {
      memcpy(&p->grid_t[j * p->ld_grid_t + i], &p->grid[i * p->ld_grid + j], sizeof(float));
    }
  }
}

/* The largest |M| bit pattern over rows [r0, r1) x cols [c0, c1): for floats
 * that orders like the values, and a NaN's pattern is above every other, so
 * a NaN wins. */
static uint32_t ref_amax_bits_in(const sg_k_param *p, uint64_t r0, uint64_t r1, uint64_t c0,
                              uint64_t c1) {
  uint32_t amax_bits = 0;
  for (uint64_t r = r0; r < r1; r++) {
    for (uint64_t c = c0; c < c1; c++) {
      const uint32_t abs_bits = sg_ref_float_bits(sg_ref_master_at(p, r, c)) & 0x7FFFFFFFu;
      amax_bits = abs_bits > amax_bits ? abs_bits : amax_bits;
    }
  }
  return amax_bits;
}

uint32_t sg_ref_amax_bits(const sg_k_param *p) {
  return ref_amax_bits_in(p, 0, p->rows, 0, p->cols);
}

float sg_ref_scale_of(uint32_t amax_bits, uint32_t fmt, int pow2) {
  if (amax_bits == 0 || amax_bits >= 0x7F800000u) { /* zero, +inf, NaN */
    return 1.0f;
  }
  const float fp8_max = fmt == SG_K_FP8_E4M3 ? 448.0f : 57344.0f;
  float s = fp8_max / sg_ref_bits_float(amax_bits);
  if (sg_ref_float_bits(s) == 0x7F800000u) {
    s = sg_ref_bits_float(0x7F7FFFFFu); /* the largest finite float */
  }
  return pow2 ? sg_ref_bits_float(sg_ref_float_bits(s) & 0xFF800000u) : s;
}

/* Casts flat elements [begin, end) with scale s and writes amax (over them)
 * and scale_inv. */
static void ref_cast(const sg_k_param *p, uint64_t begin, uint64_t end, float s) {
  uint32_t amax_bits = 0;
  for (uint64_t f = begin; f < end; f++) {
    const uint64_t r = f / p->cols;
    const uint64_t c = f % p->cols;
    const float m = sg_ref_master_at(p, r, c);
    const uint32_t abs_bits = sg_ref_float_bits(m) & 0x7FFFFFFFu;
    if (abs_bits > amax_bits) {
      amax_bits = abs_bits;
    }
    p->w[r * p->ld_w + c] = sg_ref_fp8_from_float(m * s, p->format);
  }
  *p->amax = sg_ref_bits_float(amax_bits);
  *p->scale_inv = 1.0f / s;
}

/* Block scaling: each block cast with its own scale, 1/s into W's grid and,
 * with `transposed`, into Wt's. */
static void ref_blocks(const sg_k_param *p, int transposed) {
  const int pow2 = (p->recipe_flags & SG_K_POW2_SCALES) != 0;
  for (uint64_t i = 0; i < blocks_of(p->rows); i++) {
    for (uint64_t j = 0; j < blocks_of(p->cols); j++) {
      const uint64_t r0 = i * SG_REF_BLOCK, c0 = j * SG_REF_BLOCK;
      const uint64_t r1 = r0 + SG_REF_BLOCK < p->rows ? r0 + SG_REF_BLOCK : p->rows;
      const uint64_t c1 = c0 + SG_REF_BLOCK < p->cols ? c0 + SG_REF_BLOCK : p->cols;
      const float s = sg_ref_scale_of(ref_amax_bits_in(p, r0, r1, c0, c1), p->format, pow2);
      for (uint64_t r = r0; r < r1; r++) {
        for (uint64_t c = c0; c < c1; c++) {
          p->w[r * p->ld_w + c] = sg_ref_fp8_from_float(sg_ref_master_at(p, r, c) * s, p->format);
        }
      }
      p->grid[i * p->ld_grid + j] = 1.0f / s;
      if (transposed) {
        p->grid_t[j * p->ld_grid_t + i] = 1.0f / s;
      }
    }
  }
}

/* The cast of a delayed or current-scaling parameter: its owned range (the
 * whole of it but in the cast mode), at the host's scale or at the one its
 * whole master gives. */
static void ref_cast_tensor(const sg_k_param *p, uint32_t mode) {
  const uint64_t n = p->rows * p->cols;
  const int owned = mode == SG_K_MODE_CAST && p->range_end != 0;
  const uint64_t begin = owned ? p->range_begin : 0;
  const uint64_t end = owned ? p->range_end : n;
  const float s = p->recipe == SG_K_RECIPE_CURRENT
                      ? sg_ref_scale_of(sg_ref_amax_bits(p), p->format,
                                        (p->recipe_flags & SG_K_POW2_SCALES) != 0)
                      : *p->scale;
  ref_cast(p, begin, end, s);
}

void sg_ref_refresh(const sg_k_param *p, uint32_t mode) {
  const int blocks = p->recipe == SG_K_RECIPE_BLOCK;
  if (mode == SG_K_MODE_TRANSPOSE) {
    ref_transpose(p);
    if (blocks) {
      ref_transpose_grid(p);
    }
    return;
  }
  if (p->master_dtype == SG_K_MASTER_NONE) {
    return;
  }
  if (blocks) {
    ref_blocks(p, mode == SG_K_MODE_CAST_TRANSPOSE);
  } else {
    ref_cast_tensor(p, mode);
  }
  if (mode == SG_K_MODE_CAST_TRANSPOSE) {
    ref_transpose(p);
  }
}

void sg_ref_refresh_all(const sg_k_param *params, uint32_t count, uint32_t mode,
                        uint32_t group) {
  for (uint32_t i = 0; i < count; i++) {
    if (group == SG_K_ALL_GROUPS || params[i].group == group) {
      sg_ref_refresh(&params[i], mode);
    }
  }
}

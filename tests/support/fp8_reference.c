/* CPU reference of the FP8 conversion and of the refresh modes; the header
 * says what each function computes. Everything works on float bit patterns so
 * that rounding, saturation and NaN handling are explicit. */
#include "fp8_reference.h"

#include <string.h>

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

/* Casts flat elements [begin, end) and writes amax and scale_inv. amax is
 * the largest |M| bit pattern: for floats that orders like the values, and a
 * NaN's pattern is above every other, so a NaN wins. */
static void ref_cast(const sg_k_param *p, uint64_t begin, uint64_t end) {
  const float s = *p->scale;
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

void sg_ref_refresh(const sg_k_param *p, uint32_t mode) {
  const uint64_t n = p->rows * p->cols;
  if (mode == SG_K_MODE_TRANSPOSE) {
    ref_transpose(p);
    return;
  }
  if (p->master_dtype == SG_K_MASTER_NONE) {
    return;
  }
  if (mode == SG_K_MODE_CAST) {
    ref_cast(p, p->range_end == 0 ? 0 : p->range_begin,
             p->range_end == 0 ? n : p->range_end);
    return;
  }
  ref_cast(p, 0, n);
  ref_transpose(p);
}

void sg_ref_refresh_all(const sg_k_param *params, uint32_t count, uint32_t mode,
                        uint32_t group) {
  for (uint32_t i = 0; i < count; i++) {
    if (group == SG_K_ALL_GROUPS || params[i].group == group) {
      sg_ref_refresh(&params[i], mode);
    }
  }
}

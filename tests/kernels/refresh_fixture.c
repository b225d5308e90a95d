/* The refresh test fixture; refresh_fixture.h says what it provides. */
#include "refresh_fixture.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fp8_reference.h"

uint64_t sg_fx_next(sg_fx_rng *r) { /* splitmix64 */
  uint64_t z = (r->state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

uint64_t sg_fx_below(sg_fx_rng *r, uint64_t n) { return sg_fx_next(r) % n; }

static uint64_t master_elem_bytes(uint32_t dtype) { return dtype == SG_K_MASTER_FP32 ? 4 : 2; }

/* ---- random specs ---- */

static uint64_t random_dim(sg_fx_rng *r, uint64_t max_dim) {
  switch (sg_fx_below(r, 4)) {
  case 0:
    return 1 + sg_fx_below(r, 4);
  case 1: { /* one off a tile multiple, or on it */
    const uint64_t k = 1 + sg_fx_below(r, max_dim / 128 > 0 ? max_dim / 128 : 1);
    const uint64_t d = 128 * k + sg_fx_below(r, 3) - 1;
    return d < max_dim ? d : max_dim;
  }
  default:
    return 1 + sg_fx_below(r, max_dim);
  }
}

static float random_scale(sg_fx_rng *r) {
  static const float specials[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1e-40f, 1e30f, -2.0f};
  const uint64_t pick = sg_fx_below(r, 20);
  if (pick < 15) {
    return ldexpf(1.0f, (int)sg_fx_below(r, 17) - 8);
  }
  if (pick < 18) {
    return expf(logf(0.01f) + (float)sg_fx_below(r, 1u << 20) / (1u << 20) * logf(1e4f));
  }
  return specials[sg_fx_below(r, sizeof specials / sizeof specials[0])];
}

static void random_range(sg_fx_rng *r, sg_fx_spec *s) {
  const uint64_t n = s->rows * s->cols;
  if (sg_fx_below(r, 2) == 0) {
    s->range_begin = s->range_end = 0;
    return;
  }
  s->range_begin = sg_fx_below(r, n + 1);
  s->range_end = s->range_begin + sg_fx_below(r, n - s->range_begin + 1);
  if (s->range_end == 0) { /* (0, 0) would mean the whole parameter */
    s->range_end = n;
  }
}

/* Current scaling needs a master; both computed recipes own all of it. */
static void random_recipe(sg_fx_rng *r, sg_fx_spec *s) {
  const uint64_t pick = sg_fx_below(r, 4);
  s->recipe = pick < 2                                         ? SG_K_RECIPE_DELAYED
              : pick == 2 && s->master_dtype != SG_K_MASTER_NONE ? SG_K_RECIPE_CURRENT
                                                                 : SG_K_RECIPE_BLOCK;
  if (s->recipe != SG_K_RECIPE_DELAYED) {
    s->range_begin = s->range_end = 0;
    s->recipe_flags = sg_fx_below(r, 2) ? SG_K_POW2_SCALES : 0u;
  }
  s->pad_grid = sg_fx_below(r, 2) ? 0 : 1 + sg_fx_below(r, 4);
  s->pad_grid_t = sg_fx_below(r, 2) ? 0 : 1 + sg_fx_below(r, 4);
}

void sg_fx_random_spec(sg_fx_rng *r, uint64_t max_dim, sg_fx_spec *s) {
  memset(s, 0, sizeof *s);
  s->rows = random_dim(r, max_dim);
  s->cols = random_dim(r, max_dim);
  if (sg_fx_below(r, 8) == 0) {
    *(sg_fx_below(r, 2) ? &s->rows : &s->cols) = 1;
  }
  s->pad_w = sg_fx_below(r, 2) ? 0 : 1 + sg_fx_below(r, 40);
  s->pad_wt = sg_fx_below(r, 2) ? 0 : 1 + sg_fx_below(r, 40);
  s->pad_m = sg_fx_below(r, 2) ? 0 : 1 + sg_fx_below(r, 40);
  s->misalign = sg_fx_below(r, 4) == 0;
  s->master_misalign = !s->misalign && sg_fx_below(r, 8) == 0;
  s->format = (uint32_t)sg_fx_below(r, 2);
  static const uint32_t dtypes[] = {SG_K_MASTER_NONE, SG_K_MASTER_FP32, SG_K_MASTER_FP32,
                                    SG_K_MASTER_BF16, SG_K_MASTER_BF16};
  s->master_dtype = dtypes[sg_fx_below(r, 5)];
  s->group = (uint32_t)sg_fx_below(r, 4);
  random_range(r, s);
  s->scale = random_scale(r);
  s->specials = sg_fx_below(r, 10) < 3;
  random_recipe(r, s);
}

/* ---- master values ---- */

/* The value of a positive FP8 code. */
static float fp8_value(uint32_t fmt, uint32_t code) {
  const int mant_bits = fmt == SG_K_FP8_E4M3 ? 3 : 2;
  const int bias = fmt == SG_K_FP8_E4M3 ? 7 : 15;
  const int exp = (int)(code >> mant_bits);
  const float mant = (float)(code & ((1u << mant_bits) - 1));
  if (exp == 0) {
    return ldexpf(mant, 1 - bias - mant_bits);
  }
  return ldexpf(mant + (float)(1u << mant_bits), exp - bias - mant_bits);
}

/* A value of the product M*s, from one of the classes the conversion treats
 * differently. */
static float random_product(sg_fx_rng *r, uint32_t fmt) {
  const uint32_t max_code = fmt == SG_K_FP8_E4M3 ? 0x7E : 0x7B;
  const float max_finite = fp8_value(fmt, max_code);
  const float overflow_tie = fmt == SG_K_FP8_E4M3 ? 464.0f : 61440.0f;
  const float sign = sg_fx_below(r, 2) ? -1.0f : 1.0f;
  switch (sg_fx_below(r, 10)) {
  case 0:
    return sign * fp8_value(fmt, (uint32_t)sg_fx_below(r, max_code + 1));
  case 1:
  case 2: { /* halfway between two codes: a tie */
    const uint32_t k = (uint32_t)sg_fx_below(r, max_code);
    return sign * 0.5f * (fp8_value(fmt, k) + fp8_value(fmt, k + 1));
  }
  case 3:
    return sign * ldexpf(1.0f + (float)sg_fx_below(r, 1u << 23) / (1u << 23),
                         (int)sg_fx_below(r, 44) - 26);
  case 4:
    return sign * 0.0f;
  case 5:
    return sign * sg_ref_bits_float((uint32_t)sg_fx_below(r, 0x800000)); /* float subnormal */
  case 6: {
    const float near[] = {max_finite, overflow_tie, nextafterf(overflow_tie, 0.0f),
                          nextafterf(overflow_tie, INFINITY), max_finite * 1.001f};
    return sign * near[sg_fx_below(r, 5)];
  }
  case 7:
    return sign * 1e30f;
  default:
    return sign * max_finite * (float)sg_fx_below(r, 1200) / 1000.0f;
  }
}

/* FP32 bits of one master element. */
static uint32_t random_master_bits(sg_fx_rng *r, const sg_fx_spec *s) {
  const uint32_t sign = (uint32_t)sg_fx_below(r, 2) << 31;
  if (s->specials && sg_fx_below(r, 40) == 0) {
    return sign | 0x7F800000u; /* infinity */
  }
  if (s->specials && sg_fx_below(r, 40) == 0) { /* NaN; payload in BF16's bits too */
    return sign | 0x7F800000u | (uint32_t)(1 + sg_fx_below(r, 127)) << 16 |
           (uint32_t)sg_fx_below(r, 1u << 16);
  }
  const float p = random_product(r, s->format);
  const int divide = isfinite(s->scale) && s->scale != 0.0f;
  return sg_ref_float_bits(divide ? p / s->scale : p);
}

static void fill_master(sg_fx_case *c, uint32_t i, sg_fx_rng *r) {
  const sg_fx_spec *s = &c->specs[i];
  const uint64_t ld = s->cols + s->pad_m;
  for (uint64_t row = 0; row < s->rows; row++) {
    for (uint64_t col = 0; col < s->cols; col++) {
      const uint32_t bits = random_master_bits(r, s);
      uint8_t *at = c->init + c->offs[i].master + (row * ld + col) * master_elem_bytes(s->master_dtype);
      if (s->master_dtype == SG_K_MASTER_FP32) {
        memcpy(at, &bits, 4);
      } else {
        const uint16_t h = (uint16_t)(bits >> 16);
        memcpy(at, &h, 2);
      }
    }
  }
}

/* ---- layout ---- */

/* Places `bytes` after a random gap of 1..48 guard bytes, 256-aligned, or,
 * misaligned, off 16-byte alignment by a multiple of `unit`: a random one
 * (misalign 1) or misalign bytes rounded up to it. */
static size_t place(size_t *end, uint64_t bytes, uint64_t unit, uint32_t misalign, sg_fx_rng *r) {
  size_t at = (*end + 1 + (size_t)sg_fx_below(r, 48) + 255) & ~(size_t)255;
  if (misalign == 1 && unit < 16) {
    at += unit * (1 + sg_fx_below(r, 16 / unit - 1));
  } else if (misalign > 1 && unit < 16) {
    at += (misalign + unit - 1) / unit * unit % 16;
  }
  *end = at + bytes;
  return at;
}

static uint64_t blocks_of(uint64_t n) { return (n + 127) / 128; }

/* Floats of block scaling's grids: W's, then Wt's. */
static uint64_t grid_floats(const sg_fx_spec *s) {
  return blocks_of(s->rows) * (blocks_of(s->cols) + s->pad_grid);
}

static uint64_t grid_t_floats(const sg_fx_spec *s) {
  return blocks_of(s->cols) * (blocks_of(s->rows) + s->pad_grid_t);
}

static size_t place_master(size_t *end, const sg_fx_spec *s, sg_fx_rng *r) {
  const uint64_t unit = master_elem_bytes(s->master_dtype);
  const uint32_t misalign = s->master_misalign != 0 ? s->master_misalign : s->misalign;
  return place(end, s->rows * (s->cols + s->pad_m) * unit, unit, misalign, r);
}

static void layout(sg_fx_case *c, sg_fx_rng *r) {
  size_t end = 0;
  for (uint32_t i = 0; i < c->count; i++) {
    const sg_fx_spec *s = &c->specs[i];
    sg_fx_offsets *o = &c->offs[i];
    o->w = place(&end, s->rows * (s->cols + s->pad_w), 1, s->misalign, r);
    o->wt = place(&end, s->cols * (s->rows + s->pad_wt), 1, s->misalign, r);
    if (s->master_dtype != SG_K_MASTER_NONE) {
      if (!s->master_last) {
        o->master = place_master(&end, s, r);
      }
      o->scale = place(&end, 4, 4, 0, r);
      o->scale_inv = place(&end, 4, 4, 0, r);
      o->amax = place(&end, 4, 4, 0, r);
    }
    if (s->recipe == SG_K_RECIPE_BLOCK) {
      o->grid = place(&end, 4 * grid_floats(s), 4, 0, r);
      o->grid_t = place(&end, 4 * grid_t_floats(s), 4, 0, r);
    }
  }
  bool flush = false;
  for (uint32_t i = 0; i < c->count; i++) {
    const sg_fx_spec *s = &c->specs[i];
    if (s->master_dtype != SG_K_MASTER_NONE && s->master_last) {
      c->offs[i].master = place_master(&end, s, r);
      flush = true;
    }
  }
  c->size = flush ? end : end + 64;
}

static void mark(sg_fx_case *c, size_t at, size_t bytes, uint8_t kind) {
  memset(c->kind + at, kind, bytes);
}

static void mark_kinds(sg_fx_case *c) {
  memset(c->kind, SG_FX_GUARD, c->size);
  for (uint32_t i = 0; i < c->count; i++) {
    const sg_fx_spec *s = &c->specs[i];
    const sg_fx_offsets *o = &c->offs[i];
    mark(c, o->w, s->rows * (s->cols + s->pad_w), SG_FX_W);
    mark(c, o->wt, s->cols * (s->rows + s->pad_wt), SG_FX_WT);
    if (s->master_dtype != SG_K_MASTER_NONE) {
      mark(c, o->master, s->rows * (s->cols + s->pad_m) * master_elem_bytes(s->master_dtype),
           SG_FX_MASTER);
      mark(c, o->scale, 4, SG_FX_SCALE);
      mark(c, o->scale_inv, 4, SG_FX_OUT);
      mark(c, o->amax, 4, SG_FX_OUT);
    }
    if (s->recipe == SG_K_RECIPE_BLOCK) {
      mark(c, o->grid, 4 * grid_floats(s), SG_FX_GRID);
      mark(c, o->grid_t, 4 * grid_t_floats(s), SG_FX_GRID_T);
    }
  }
}

cudaError_t sg_fx_case_init(sg_fx_case *c, const sg_fx_spec *specs, uint32_t count,
                            sg_fx_rng *r) {
  memset(c, 0, sizeof *c);
  c->count = count;
  c->specs = malloc(count * sizeof *c->specs);
  c->offs = malloc(count * sizeof *c->offs);
  memcpy(c->specs, specs, count * sizeof *specs);
  layout(c, r);
  c->kind = malloc(c->size);
  c->init = malloc(c->size);
  c->expect = malloc(c->size);
  c->got = malloc(c->size);
  if (c->specs == NULL || c->offs == NULL || c->kind == NULL || c->init == NULL ||
      c->expect == NULL || c->got == NULL) {
    return cudaErrorMemoryAllocation;
  }
  mark_kinds(c);
  for (size_t b = 0; b < c->size; b++) {
    c->init[b] = (uint8_t)sg_fx_next(r);
  }
  for (uint32_t i = 0; i < count; i++) {
    if (specs[i].master_dtype != SG_K_MASTER_NONE) {
      fill_master(c, i, r);
      memcpy(c->init + c->offs[i].scale, &specs[i].scale, 4);
    }
  }
  return cudaMalloc((void **)&c->dev, c->size);
}

void sg_fx_case_free(sg_fx_case *c) {
  cudaFree(c->dev);
  free(c->specs);
  free(c->offs);
  free(c->kind);
  free(c->init);
  free(c->expect);
  free(c->got);
  memset(c, 0, sizeof *c);
}

void sg_fx_params(const sg_fx_case *c, uint8_t *base, sg_k_param *out) {
  for (uint32_t i = 0; i < c->count; i++) {
    const sg_fx_spec *s = &c->specs[i];
    const sg_fx_offsets *o = &c->offs[i];
    const int has_master = s->master_dtype != SG_K_MASTER_NONE;
    sg_k_param *p = &out[i];
    memset(p, 0, sizeof *p);
    p->w = base + o->w;
    p->ld_w = s->cols + s->pad_w;
    p->wt = base + o->wt;
    p->ld_wt = s->rows + s->pad_wt;
    p->master = has_master ? base + o->master : NULL;
    p->ld_master = s->cols + s->pad_m;
    p->scale = has_master ? (const float *)(base + o->scale) : NULL;
    p->scale_inv = has_master ? (float *)(base + o->scale_inv) : NULL;
    p->amax = has_master ? (float *)(base + o->amax) : NULL;
    p->rows = s->rows;
    p->cols = s->cols;
    p->range_begin = s->range_begin;
    p->range_end = s->range_end;
    p->format = s->format;
    p->master_dtype = s->master_dtype;
    p->group = s->group;
    p->recipe = s->recipe;
    p->recipe_flags = s->recipe_flags;
    if (s->recipe == SG_K_RECIPE_BLOCK) {
      p->grid = (float *)(base + o->grid);
      p->ld_grid = blocks_of(s->cols) + s->pad_grid;
      p->grid_t = (float *)(base + o->grid_t);
      p->ld_grid_t = blocks_of(s->rows) + s->pad_grid_t;
    }
  }
}

void sg_fx_fill_master(sg_fx_case *c, uint32_t i, float value) {
  const sg_fx_spec *s = &c->specs[i];
  const uint64_t ld = s->cols + s->pad_m;
  const uint32_t bits = sg_ref_float_bits(value);
  const uint16_t half = (uint16_t)(bits >> 16);
  for (uint64_t row = 0; row < s->rows; row++) {
    for (uint64_t col = 0; col < s->cols; col++) {
      const uint64_t e = master_elem_bytes(s->master_dtype);
      uint8_t *at = c->init + c->offs[i].master + (row * ld + col) * e;
      memcpy(at, s->master_dtype == SG_K_MASTER_FP32 ? (const void *)&bits : (const void *)&half,
             e);
    }
  }
}

static int is_input(uint8_t kind, uint32_t mode) {
  return mode == SG_K_MODE_TRANSPOSE ? kind == SG_FX_W || kind == SG_FX_GRID
                                     : kind == SG_FX_MASTER || kind == SG_FX_SCALE;
}

static void halve_masters(sg_fx_case *c) {
  sg_k_param *params = malloc(c->count * sizeof *params);
  sg_fx_params(c, c->init, params);
  for (uint32_t i = 0; i < c->count; i++) {
    const sg_k_param *p = &params[i];
    for (uint64_t row = 0; p->master != NULL && row < p->rows; row++) {
      for (uint64_t col = 0; col < p->cols; col++) {
        const uint32_t half = sg_ref_float_bits(0.5f * sg_ref_master_at(p, row, col));
        uint8_t *at = (uint8_t *)p->master +
                      (row * p->ld_master + col) * master_elem_bytes(p->master_dtype);
        if (p->master_dtype == SG_K_MASTER_FP32) {
          memcpy(at, &half, 4);
        } else {
          const uint16_t h = (uint16_t)(half >> 16);
          memcpy(at, &h, 2);
        }
      }
    }
  }
  free(params);
}

void sg_fx_repoison(sg_fx_case *c, uint32_t mode, sg_fx_rng *r) {
  for (size_t b = 0; b < c->size; b++) {
    if (!is_input(c->kind[b], mode)) {
      c->init[b] ^= (uint8_t)(1 + sg_fx_below(r, 255));
    }
  }
  halve_masters(c);
}

void sg_fx_expect(sg_fx_case *c, uint32_t count, uint32_t mode, uint32_t group) {
  sg_k_param *params = malloc(c->count * sizeof *params);
  memcpy(c->expect, c->init, c->size);
  sg_fx_params(c, c->expect, params);
  sg_ref_refresh_all(params, count, mode, group);
  free(params);
}

/* A cudaMemcpy from pageable memory may return before its DMA lands, and
 * launches on a non-blocking stream do not wait for it: synchronize. */
cudaError_t sg_fx_upload(const sg_fx_case *c) {
  const cudaError_t err = cudaMemcpy(c->dev, c->init, c->size, cudaMemcpyHostToDevice);
  return err != cudaSuccess ? err : cudaDeviceSynchronize();
}

cudaError_t sg_fx_download(sg_fx_case *c) {
  return cudaMemcpy(c->got, c->dev, c->size, cudaMemcpyDeviceToHost);
}

/* Where a NaN is expected in scale_inv, accept any NaN (the division's NaN
 * payload is unspecified). */
static void accept_nan_scale_inv(sg_fx_case *c) {
  for (uint32_t i = 0; i < c->count; i++) {
    if (c->specs[i].master_dtype == SG_K_MASTER_NONE) {
      continue;
    }
    const size_t at = c->offs[i].scale_inv;
    float want, have;
    memcpy(&want, c->expect + at, 4);
    memcpy(&have, c->got + at, 4);
    if (isnan(want) && isnan(have)) {
      memcpy(c->got + at, c->expect + at, 4);
    }
  }
}

static const char *kind_name(uint8_t kind) {
  static const char *names[] = {"guard", "W",    "Wt",        "master",
                                "scale", "scale_inv/amax", "grid", "grid_t"};
  return names[kind];
}

/* The parameter whose allocation starts last at or before byte b. */
static uint32_t owner(const sg_fx_case *c, size_t b) {
  uint32_t best = 0;
  size_t best_at = 0;
  for (uint32_t i = 0; i < c->count; i++) {
    const size_t at[] = {c->offs[i].w, c->offs[i].wt, c->offs[i].master, c->offs[i].grid,
                         c->offs[i].grid_t};
    for (int k = 0; k < 5; k++) {
      if (at[k] <= b && at[k] >= best_at) {
        best = i;
        best_at = at[k];
      }
    }
  }
  return best;
}

int sg_fx_compare(sg_fx_case *c, char *msg, size_t msg_size) {
  accept_nan_scale_inv(c);
  if (memcmp(c->got, c->expect, c->size) == 0) {
    return 0;
  }
  size_t b = 0;
  size_t diffs = 0;
  for (size_t k = c->size; k-- > 0;) {
    if (c->got[k] != c->expect[k]) {
      b = k;
      diffs++;
    }
  }
  const uint32_t i = owner(c, b);
  const sg_fx_spec *s = &c->specs[i];
  snprintf(msg, msg_size,
           "%zu bytes differ; first at arena byte %zu (%s, near param %u: %llux%llu pads "
           "%llu/%llu/%llu fmt %u master %u group %u misalign %u/%u range [%llu,%llu) scale %g "
           "recipe %u flags %u): expected 0x%02x got 0x%02x (initial 0x%02x)",
           diffs, b, kind_name(c->kind[b]), i, (unsigned long long)s->rows,
           (unsigned long long)s->cols, (unsigned long long)s->pad_w,
           (unsigned long long)s->pad_wt, (unsigned long long)s->pad_m, s->format,
           s->master_dtype, s->group, s->misalign, s->master_misalign,
           (unsigned long long)s->range_begin,
           (unsigned long long)s->range_end, (double)s->scale, s->recipe, s->recipe_flags,
           c->expect[b], c->got[b], c->init[b]);
  return 1;
}

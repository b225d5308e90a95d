/* fp8_trainer's GEMM plans (samples/fp8_trainer/gemm.c) against a CPU
 * reference in double precision (GPU). The row-major to column-major
 * translation, the FP8 "TN" layout and the data gradient through W^T are
 * the easiest things to get wrong, and a wrong layout can still "train";
 * so each GEMM the trainer uses is checked on its own (the weight gradient
 * batched over layers, as the trainer runs it), on a non-square shape
 * (rows, out and in all different) with fresh random FP8/BF16 inputs and
 * non-unit scales.
 * FP8 and BF16 inputs are exact in the reference: the FP8 GEMMs' BF16
 * output rounds to 2^-9 (RMS relative error ~1e-3, bound 5e-3), the FP32
 * output of the BF16 GEMM only through its accumulation (bound 1e-4).
 * SG_TEST_SEED fixes the random seed (printed at start). */
#define _XOPEN_SOURCE 700
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sg_run_suite.h"
#include "gemm.h"
#include "sg_cuda_check.h"
#include "sg_gpu_test.h"
#include "sg_test_seed.h"

enum { ROWS = 64, OUT = 96, IN = 128 };
#define TOLERANCE_BF16_OUT 5e-3
#define TOLERANCE_FP32_OUT 1e-4

static tr_blas blas;
static uint64_t rng_state, seed;

static uint32_t next_random(void) { /* xorshift64* */
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return (uint32_t)((rng_state * 0x2545F4914F6CDD1Dull) >> 32);
}

/* An FP8 code's value (E4M3 when e4m3, else E5M2); NAN for NaN/inf codes. */
static double fp8_value(uint8_t b, int e4m3) {
  const int mbits = e4m3 ? 3 : 2, bias = e4m3 ? 7 : 15;
  const int e = (b & 0x7F) >> mbits, m = b & ((1 << mbits) - 1);
  if ((e4m3 && e == 15 && m == 7) || (!e4m3 && e == 31)) {
    return NAN;
  }
  const double frac = (double)m / (1 << mbits);
  const double v = e == 0 ? ldexp(frac, 1 - bias) : ldexp(1.0 + frac, e - bias);
  return (b & 0x80) ? -v : v;
}

/* Random codes of moderate magnitude (2^-6 .. 8, or 0) and their values. */
static void random_fp8(uint8_t *codes, double *values, size_t n, int e4m3) {
  for (size_t i = 0; i < n; i++) {
    double v;
    uint8_t b;
    do {
      b = (uint8_t)next_random();
      v = fp8_value(b, e4m3);
    } while (isnan(v) || fabs(v) > 8.0 || (v != 0.0 && fabs(v) < 0x1p-6));
    codes[i] = b;
    values[i] = v;
  }
}

/* Random BF16 bits (values in [-2, 2)) and their values. */
static void random_bf16(uint16_t *bits, double *values, size_t n) {
  for (size_t i = 0; i < n; i++) {
    const float f = (float)(next_random() >> 8) / 4194304.0f - 2.0f;
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    bits[i] = (uint16_t)(u >> 16); /* truncated: an exact BF16 value */
    u = (uint32_t)bits[i] << 16;
    float back;
    memcpy(&back, &u, sizeof back);
    values[i] = back;
  }
}

static void *to_device(const void *host, size_t bytes) {
  void *d = NULL;
  SG_CHECK_CUDA(cudaMalloc(&d, bytes));
  SG_CHECK_CUDA(cudaMemcpy(d, host, bytes, cudaMemcpyHostToDevice));
  return d;
}

/* out[i] as a double, from FP32 or BF16 (the top half of a float). */
static double output_at(const void *out, cudaDataType_t type, size_t i) {
  float f;
  if (type == CUDA_R_16BF) {
    const uint32_t bits = (uint32_t)((const uint16_t *)out)[i] << 16;
    memcpy(&f, &bits, sizeof f);
  } else {
    f = ((const float *)out)[i];
  }
  return f;
}

/* Plans d (FP8: with device copies of scales[0] and [1]), runs it with A
 * and B on the device, and compares D (rows x cols of the row-major
 * result) with ref. */
static void check_gemm(const tr_gemm_desc *d, const void *a, size_t a_bytes,
                       const void *b, size_t b_bytes, const float *scales,
                       const double *ref, size_t rows, size_t cols) {
  float *a_scale = to_device(&scales[0], sizeof(float));
  float *b_scale = to_device(&scales[1], sizeof(float));
  tr_gemm g;
  tr_gemm_plan(&g, &blas, d, a_scale, b_scale);
  tr_gemm_print(&g);
  void *da = to_device(a, a_bytes), *db = to_device(b, b_bytes);
  const size_t bytes = rows * cols * (d->d_type == CUDA_R_16BF ? 2 : 4);
  void *dd = NULL;
  SG_CHECK_CUDA(cudaMalloc(&dd, bytes));
  SG_CHECK_CUDA(cudaMemset(dd, 0xFF, bytes)); /* NaN in both formats */
  tr_gemm_run(&g, &blas, da, db, dd, NULL);
  void *out = malloc(bytes);
  SG_CHECK_CUDA(cudaMemcpy(out, dd, bytes, cudaMemcpyDeviceToHost));
  double err = 0.0, norm = 0.0;
  for (size_t i = 0; i < rows * cols; i++) {
    const double v = output_at(out, d->d_type, i);
    ck_assert_msg(isfinite(v), "%s: element %zu not written (%g)", d->name,
                  i, v);
    err += (v - ref[i]) * (v - ref[i]);
    norm += ref[i] * ref[i];
  }
  const double rel = sqrt(err / norm);
  const double bound =
      d->d_type == CUDA_R_16BF ? TOLERANCE_BF16_OUT : TOLERANCE_FP32_OUT;
  printf("%s: relative error %.2e (bound %.0e)\n", d->name, rel, bound);
  ck_assert_msg(rel < bound, "%s: relative error %.3e (seed %llu)", d->name,
                rel, (unsigned long long)seed);
  free(out);
  tr_gemm_destroy(&g);
  SG_CHECK_CUDA(cudaFree(dd));
  SG_CHECK_CUDA(cudaFree(b_scale));
  SG_CHECK_CUDA(cudaFree(a_scale));
  SG_CHECK_CUDA(cudaFree(db));
  SG_CHECK_CUDA(cudaFree(da));
}

/* ref[r][o] = scale * sum_i x[r][i] w[o][i], the plans' Y = X W^T. */
static void reference_xwt(const double *x, const double *w, double scale,
                          int rows, int out, int in, double *ref) {
  for (int r = 0; r < rows; r++) {
    for (int o = 0; o < out; o++) {
      double s = 0.0;
      for (int i = 0; i < in; i++) {
        s += x[r * in + i] * w[o * in + i];
      }
      ref[r * out + o] = s * scale;
    }
  }
}

/* Y[r][o] = s_w s_x sum_i X[r][i] W[o][i]: FP8 E4M3 x E4M3 -> BF16. */
START_TEST(forward_is_x_times_w_transposed) {
  uint8_t w[OUT * IN], x[ROWS * IN];
  static double wv[OUT * IN], xv[ROWS * IN], ref[ROWS * OUT];
  random_fp8(w, wv, OUT * IN, 1);
  random_fp8(x, xv, ROWS * IN, 1);
  const float scales[2] = {0.5f, 0.25f}; /* W's, X's scale_inv */
  reference_xwt(xv, wv, 0.5 * 0.25, ROWS, OUT, IN, ref);
  const tr_gemm_desc d =
      tr_gemm_xwt("forward", ROWS, OUT, IN, CUDA_R_8F_E4M3, CUDA_R_8F_E4M3);
  check_gemm(&d, w, sizeof w, x, sizeof x, scales, ref, ROWS, OUT);
}
END_TEST

/* dX[r][i] = s_w s_g sum_o G[r][o] W[o][i], read through Wt[i][o] = W[o][i]:
 * E4M3 x E5M2 -> BF16. The reference is written from W itself. */
START_TEST(dgrad_reads_the_transpose) {
  uint8_t w[OUT * IN], wt[IN * OUT], g[ROWS * OUT];
  static double wv[OUT * IN], gv[ROWS * OUT], ref[ROWS * IN];
  random_fp8(w, wv, OUT * IN, 1);
  random_fp8(g, gv, ROWS * OUT, 0);
  for (int o = 0; o < OUT; o++) {
    for (int i = 0; i < IN; i++) {
      wt[i * OUT + o] = w[o * IN + i];
    }
  }
  const float scales[2] = {2.0f, 0.125f};
  for (int r = 0; r < ROWS; r++) {
    for (int i = 0; i < IN; i++) {
      double s = 0.0;
      for (int o = 0; o < OUT; o++) {
        s += gv[r * OUT + o] * wv[o * IN + i];
      }
      ref[r * IN + i] = s * 2.0 * 0.125;
    }
  }
  const tr_gemm_desc d =
      tr_gemm_xwt("dgrad", ROWS, IN, OUT, CUDA_R_8F_E5M2, CUDA_R_8F_E4M3);
  check_gemm(&d, wt, sizeof wt, g, sizeof g, scales, ref, ROWS, IN);
}
END_TEST

/* dW_l[o][i] = sum_r G_l[r][o] X_l[r][i] for LAYERS layers in one batched
 * call: BF16 -> FP32. */
START_TEST(wgrad_is_g_transposed_times_x_per_layer) {
  enum { LAYERS = 3 };
  static uint16_t x[LAYERS * ROWS * IN], g[LAYERS * ROWS * OUT];
  static double xv[LAYERS * ROWS * IN], gv[LAYERS * ROWS * OUT],
      ref[LAYERS * OUT * IN];
  random_bf16(x, xv, LAYERS * ROWS * IN);
  random_bf16(g, gv, LAYERS * ROWS * OUT);
  for (int l = 0; l < LAYERS; l++) {
    const double *xl = xv + l * ROWS * IN, *gl = gv + l * ROWS * OUT;
    for (int o = 0; o < OUT; o++) {
      for (int i = 0; i < IN; i++) {
        double s = 0.0;
        for (int r = 0; r < ROWS; r++) {
          s += gl[r * OUT + o] * xl[r * IN + i];
        }
        ref[(l * OUT + o) * IN + i] = s;
      }
    }
  }
  const float unused[2] = {1.0f, 1.0f};
  const tr_gemm_desc d = tr_gemm_wgrad("wgrad", ROWS, OUT, IN, LAYERS);
  check_gemm(&d, x, sizeof x, g, sizeof g, unused, ref, LAYERS * OUT, IN);
}
END_TEST

int main(void) {
  sg_test_require_gpu("test_trainer_gemm");
  seed = sg_test_seed("test_trainer_gemm");
  rng_state = seed * 2654435761u | 1u; /* xorshift: never 0 */
  tr_blas_create(&blas, 32u << 20);
  Suite *s = suite_create("trainer_gemm");
  TCase *tc = tcase_create("gemm");
  tcase_add_test(tc, forward_is_x_times_w_transposed);
  tcase_add_test(tc, dgrad_reads_the_transpose);
  tcase_add_test(tc, wgrad_is_g_transposed_times_x_per_layer);
  suite_add_tcase(s, tc);
  const int rc = sg_run_suite(s, CK_NOFORK); /* one CUDA context, one handle */
  tr_blas_destroy(&blas);
  return rc;
}

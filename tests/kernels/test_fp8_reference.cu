/* The CPU reference conversion against CUDA's host-callable
 * __nv_cvt_float_to_fp8(x, __NV_SATFINITE, fmt): all 2^32 float patterns,
 * both formats, plus the documented special cases spelled out. No GPU. */
#include <check.h>
#include <cuda_fp8.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "exhaustive.h"
#include "fp8_reference.h"
#include "sg_run_suite.h"

static const uint32_t kFormats[] = {SG_K_FP8_E4M3, SG_K_FP8_E5M2};

static uint8_t cuda_host_fp8(float x, uint32_t fmt) {
  return __nv_cvt_float_to_fp8(x, __NV_SATFINITE, fmt == SG_K_FP8_E4M3 ? __NV_E4M3 : __NV_E5M2);
}

static uint64_t compare_span(void *ctx, uint64_t begin, uint64_t end, uint64_t *first_bad) {
  const uint32_t fmt = *static_cast<const uint32_t *>(ctx);
  uint64_t bad = 0;
  for (uint64_t b = begin; b < end; b++) {
    const float x = sg_ref_bits_float(static_cast<uint32_t>(b));
    if (sg_ref_fp8_from_float(x, fmt) != cuda_host_fp8(x, fmt)) {
      *first_bad = bad == 0 ? b : *first_bad;
      bad++;
    }
  }
  return bad;
}

START_TEST(all_floats_match_cuda_host) {
  uint32_t fmt = kFormats[_i];
  const sg_span_result r = sg_parallel_spans(0, 1ull << 32, compare_span, &fmt);
  const uint32_t bad = static_cast<uint32_t>(r.first_bad);
  ck_assert_msg(r.failures == 0,
                "format %u: %llu inputs differ; first 0x%08x: reference 0x%02x, CUDA 0x%02x",
                fmt, (unsigned long long)r.failures, bad, sg_ref_fp8_from_float(sg_ref_bits_float(bad), fmt),
                cuda_host_fp8(sg_ref_bits_float(bad), fmt));
}
END_TEST

/* What fp8_reference.h documents, value by value. */
START_TEST(documented_special_values) {
  const uint32_t e4 = SG_K_FP8_E4M3, e5 = SG_K_FP8_E5M2;
  ck_assert_uint_eq(sg_ref_fp8_from_float(NAN, e4), 0x7F);
  ck_assert_uint_eq(sg_ref_fp8_from_float(-NAN, e4), 0x7F);
  ck_assert_uint_eq(sg_ref_fp8_from_float(sg_ref_bits_float(0xFF800001u), e5), 0x7F);
  ck_assert_uint_eq(sg_ref_fp8_from_float(INFINITY, e4), 0x7E);
  ck_assert_uint_eq(sg_ref_fp8_from_float(-INFINITY, e4), 0xFE);
  ck_assert_uint_eq(sg_ref_fp8_from_float(INFINITY, e5), 0x7B);
  ck_assert_uint_eq(sg_ref_fp8_from_float(-INFINITY, e5), 0xFB);
  ck_assert_uint_eq(sg_ref_fp8_from_float(464.0f, e4), 0x7E);            /* tie, to even */
  ck_assert_uint_eq(sg_ref_fp8_from_float(nextafterf(464.0f, 1e9f), e4), 0x7E);
  ck_assert_uint_eq(sg_ref_fp8_from_float(61440.0f, e5), 0x7B);          /* tie, saturates */
  ck_assert_uint_eq(sg_ref_fp8_from_float(-0x1p-10f, e4), 0x80);         /* half min subnormal */
  ck_assert_uint_eq(sg_ref_fp8_from_float(nextafterf(0x1p-10f, 1.0f), e4), 0x01);
  ck_assert_uint_eq(sg_ref_fp8_from_float(0x1p-17f, e5), 0x00);
  ck_assert_uint_eq(sg_ref_fp8_from_float(1.0f, e4), 0x38);
  ck_assert_uint_eq(sg_ref_fp8_from_float(-1.0f, e5), 0xBC);
}
END_TEST

int main(void) {
  Suite *s = suite_create("fp8_reference");
  TCase *tc = tcase_create("conversion");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, documented_special_values);
  tcase_add_loop_test(tc, all_floats_match_cuda_host, 0, 2);
  suite_add_tcase(s, tc);
  return sg_run_suite(s, CK_FORK);
}

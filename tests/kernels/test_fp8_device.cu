/* The device conversion the kernels use (sg_k_fp8x2, both of its bytes)
 * against the CPU reference for all 2^32 inputs, both formats. NaN inputs
 * are held to the documented code, 0x7F, like every other input. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>

#include "exhaustive.h"
#include "fp8_convert.cuh"
#include "fp8_reference.h"
#include "sg_cuda_check.h"
#include "sg_gpu_test.h"
#include "sg_run_suite.h"

static const uint64_t kBatch = 1ull << 30; /* inputs per device pass */

/* codes[i] = conversion of pattern base + i; pairs go through one call, the
 * even input in the low byte. */
template <uint32_t FMT>
__global__ void convert_patterns(uint64_t base, uint64_t n, uint16_t *codes) {
  const uint64_t stride = uint64_t{gridDim.x} * blockDim.x;
  for (uint64_t i = uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; 2 * i < n; i += stride) {
    const uint32_t lo = static_cast<uint32_t>(base + 2 * i);
    codes[i] = static_cast<uint16_t>(sg_k_fp8x2<FMT>(__uint_as_float(lo), __uint_as_float(lo + 1)));
  }
}

typedef struct batch_ctx {
  uint32_t fmt;
  uint64_t base;
  const uint8_t *codes;
} batch_ctx;

static uint64_t compare_span(void *ctx, uint64_t begin, uint64_t end, uint64_t *first_bad) {
  const batch_ctx *b = static_cast<const batch_ctx *>(ctx);
  uint64_t bad = 0;
  for (uint64_t i = begin; i < end; i++) {
    const float x = sg_ref_bits_float(static_cast<uint32_t>(b->base + i));
    if (b->codes[i] != sg_ref_fp8_from_float(x, b->fmt)) {
      *first_bad = bad == 0 ? b->base + i : *first_bad;
      bad++;
    }
  }
  return bad;
}

static void launch(uint32_t fmt, uint64_t base, uint16_t *codes) {
  if (fmt == SG_K_FP8_E4M3) {
    convert_patterns<SG_K_FP8_E4M3><<<4096, 256>>>(base, kBatch, codes);
  } else {
    convert_patterns<SG_K_FP8_E5M2><<<4096, 256>>>(base, kBatch, codes);
  }
  SG_CHECK_CUDA(cudaGetLastError());
}

START_TEST(all_floats_match_reference) {
  const uint32_t fmt = _i == 0 ? SG_K_FP8_E4M3 : SG_K_FP8_E5M2;
  uint16_t *dev = NULL;
  uint8_t *host = static_cast<uint8_t *>(malloc(kBatch));
  ck_assert_ptr_nonnull(host);
  SG_CHECK_CUDA(cudaMalloc(&dev, kBatch));
  sg_span_result total = {0, UINT64_MAX};
  for (uint64_t base = 0; base < (1ull << 32); base += kBatch) {
    SG_CHECK_CUDA(
        cudaMemset(dev, 0xA5, kBatch)); /* poison: every code must be written */
    launch(fmt, base, dev);
    SG_CHECK_CUDA(cudaMemcpy(host, dev, kBatch, cudaMemcpyDeviceToHost));
    batch_ctx ctx = {fmt, base, host};
    const sg_span_result r = sg_parallel_spans(0, kBatch, compare_span, &ctx);
    total.failures += r.failures;
    total.first_bad = r.first_bad < total.first_bad ? r.first_bad : total.first_bad;
  }
  SG_CHECK_CUDA(cudaFree(dev));
  free(host);
  const uint32_t bad = static_cast<uint32_t>(total.first_bad);
  ck_assert_msg(total.failures == 0,
                "format %u: %llu inputs differ; first 0x%08x (reference 0x%02x)", fmt,
                (unsigned long long)total.failures, bad,
                sg_ref_fp8_from_float(sg_ref_bits_float(bad), fmt));
}
END_TEST

int main(void) {
  sg_test_require_gpu("test_fp8_device");
  Suite *s = suite_create("fp8_device");
  TCase *tc = tcase_create("conversion");
  tcase_set_timeout(tc, 120);
  tcase_add_loop_test(tc, all_floats_match_reference, 0, 2);
  suite_add_tcase(s, tc);
  return sg_run_suite(s, CK_NOFORK);
}

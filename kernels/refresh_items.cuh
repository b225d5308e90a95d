/* The cast mode's work: runs over a parameter's owned flat range, one warp
 * a run, and the format/dtype dispatch; the amax pass of current scaling
 * walks the same runs without writing W. The tile modes have their own
 * pipelines (refresh_pipeline.cuh, refresh_cast_transpose.cuh,
 * refresh_block.cuh). */
#ifndef SG_KERNELS_REFRESH_ITEMS_CUH
#define SG_KERNELS_REFRESH_ITEMS_CUH

#include <stdint.h>

#include "fp8_convert.cuh"
#include "refresh_amax.cuh"
#include "refresh_io.cuh"
#include "refresh_schedule.cuh"
#include "refresh_table.h"

/* One warp (lane: its lane) casts len consecutive elements (one row
 * segment); with WRITE false only takes their amax. Where the master is
 * 16-byte aligned at W's first 16-byte boundary, the whole chunks from
 * there go as vectors, kBatch per thread at a time; the head before it and
 * the tail after them, or the whole run when the two never align, go
 * element by element. */
template <uint32_t FMT, uint32_t DT, bool WRITE>
__device__ __forceinline__ void sg_k_cast_run(uint8_t *w, const char *m, uint32_t len, float s,
                                              uint32_t lane, uint32_t &amax_bits) {
  using Raw = sg_k_master16<DT>;
  /* 64 bytes of loads in flight per thread; larger batches spill at 3
   * blocks per multiprocessor. */
  constexpr int kBatch = DT == SG_K_MASTER_FP32 ? 1 : 2;
  constexpr uint32_t kElem = Raw::kElemBytes;
  constexpr uint32_t kStep = kBatch * 32u;
  const uint32_t misalign = static_cast<uint32_t>(reinterpret_cast<uintptr_t>(w) & 15u);
  uint32_t head = min(len, (16u - misalign) & 15u);
  uint32_t whole = (len - head) / 16u;
  if ((reinterpret_cast<uintptr_t>(m + head * kElem) & 15u) != 0) {
    head = len;
    whole = 0;
  }
#pragma unroll 1 /* the batch is the unrolling; more would only hold registers */
  for (uint32_t k0 = lane; k0 < whole; k0 += kStep) {
    Raw raw[kBatch];
#pragma unroll
    for (int b = 0; b < kBatch; b++) {
      const uint32_t k = k0 + b * 32u;
      if (k < whole) {
        raw[b] = sg_k_load_master16<DT>(m + (head + 16u * k) * kElem);
      }
    }
#pragma unroll
    for (int b = 0; b < kBatch; b++) {
      const uint32_t k = k0 + b * 32u;
      if (k < whole) {
        if constexpr (WRITE) {
          sg_k_store_bytes16(w + head + 16u * k, sg_k_cast16<FMT, DT>(raw[b], s, amax_bits));
        } else {
          sg_k_amax16(raw[b], amax_bits);
        }
      }
    }
  }
  const uint32_t tail = head + 16u * whole; /* first element after the chunks */
  for (uint32_t e = lane; e < head + (len - tail); e += 32u) {
    const uint32_t i = e < head ? e : tail + (e - head);
    const uint32_t bits = sg_k_master_bits<DT>(m, i);
    if constexpr (WRITE) {
      w[i] = sg_k_cast1<FMT>(bits, s, amax_bits);
    } else {
      amax_bits = max(amax_bits, bits & 0x7FFFFFFFu);
    }
  }
}

/* One warp: cast items [lo, hi) of d (WRITE false: amax items, which cover
 * the whole parameter as its owned range does); returns the lane's max |M|
 * bit pattern. An item is a slice of the owned range and may span rows of
 * a strided parameter. */
template <uint32_t FMT, uint32_t DT, bool WRITE>
__device__ __forceinline__ uint32_t sg_k_cast_items(const sg_k_desc &d, float s, uint64_t lo,
                                                    uint64_t hi, uint32_t lane) {
  constexpr uint64_t kElem = sg_k_master16<DT>::kElemBytes;
  const char *m = static_cast<const char *>(d.master);
  uint32_t amax_bits = 0;
#pragma unroll 1
  for (uint64_t it = lo; it < hi; it++) {
    uint64_t f = d.range_begin + it * SG_K_CAST_ITEM;
    const uint64_t f_end = min(d.range_end, f + SG_K_CAST_ITEM);
    uint64_t r = sg_k_div(f, d.flat_cols);
    uint64_t c = f - r * d.flat_cols;
    while (f < f_end) {
      const uint32_t len = static_cast<uint32_t>(min(d.flat_cols - c, f_end - f));
      sg_k_cast_run<FMT, DT, WRITE>(d.w + r * d.flat_ld_w + c,
                                    m + (r * d.flat_ld_master + c) * kElem, len, s, lane,
                                    amax_bits);
      f += len;
      r++;
      c = 0;
    }
  }
  return amax_bits;
}

/* Calls f with sg_k_kind<FMT, DT> for d's format and master dtype, so that
 * the inner loops are compiled per combination and never branch on them. */
template <uint32_t FMT, uint32_t DT>
struct sg_k_kind {
  static constexpr uint32_t fmt = FMT;
  static constexpr uint32_t dt = DT;
};

template <class F>
__device__ __forceinline__ uint32_t sg_k_dispatch(const sg_k_desc &d, F f) {
  const bool fp32 = d.master_dtype == SG_K_MASTER_FP32;
  if (d.format == SG_K_FP8_E4M3) {
    return fp32 ? f(sg_k_kind<SG_K_FP8_E4M3, SG_K_MASTER_FP32>{})
                : f(sg_k_kind<SG_K_FP8_E4M3, SG_K_MASTER_BF16>{});
  }
  return fp32 ? f(sg_k_kind<SG_K_FP8_E5M2, SG_K_MASTER_FP32>{})
              : f(sg_k_kind<SG_K_FP8_E5M2, SG_K_MASTER_BF16>{});
}

/* Cast mode: while parameter p casts, its successor's descriptor (and then
 * its scale) comes into L1, so that the next parameter does not start with
 * two dependent trips to memory (a warp takes the many-small set's
 * parameters one or two at a time). */
__device__ __forceinline__ void sg_k_cast_prefetch_desc(const sg_k_desc *next, uint32_t lane) {
  /* 272 bytes: its first, middle and last bytes' lines, 3 of the up to 4
   * it spans (a fourth probe made the cast kernel spill at 80 registers). */
  if (lane < 3) {
    sg_k_prefetch_l1(reinterpret_cast<const char *>(next) + lane * (sizeof *next - 1) / 2);
  }
}

__device__ __forceinline__ void sg_k_cast_prefetch_scale(const sg_k_desc *next, uint32_t lane) {
  if (lane == 0 && next->scale != nullptr) {
    sg_k_prefetch_l1(next->scale);
  }
}

/* Where the items of descriptor p's run in list LIST report their amax:
 * the cast's outputs (scale s), or, for the amax pass, the scratch's scale. */
template <uint32_t LIST>
__device__ __forceinline__ sg_k_amax_target sg_k_cast_target(const sg_k_desc &d, float s,
                                                              sg_k_scratch *scratch) {
  if constexpr (LIST == SG_K_LIST_AMAX) {
    return sg_k_amax_target{nullptr, nullptr, 0.0f,        d.items[LIST],
                            scratch, true,    d.format,    (d.vec & SG_K_VEC_POW2) != 0};
  } else {
    return sg_k_amax_outputs(d.amax, d.scale_inv, s, d.items[LIST], scratch);
  }
}

/* Cast mode (LIST SG_K_LIST_CAST) or amax pass (SG_K_LIST_AMAX), one warp:
 * items [lo, hi) of descriptor p, then the warp's share of its amax,
 * published by lane 0 (refresh_amax.cuh: at once where the warp did the
 * whole parameter, else merged across warps and blocks through its
 * scratch). next: the descriptor after p, or null. */
template <uint32_t LIST>
__device__ __forceinline__ void sg_k_cast_param(const sg_k_desc *descs, uint32_t p, uint64_t lo,
                                                uint64_t hi, const sg_k_desc *next,
                                                sg_k_scratch *scratch) {
  constexpr bool kWrite = LIST == SG_K_LIST_CAST;
  const uint32_t lane = threadIdx.x & 31u;
  const sg_k_desc &d = descs[p];
  const float s = kWrite ? *sg_k_scale_ptr(d.scale, scratch + p) : 0.0f;
  if (next != nullptr) {
    sg_k_cast_prefetch_desc(next, lane);
  }
  uint32_t bits = sg_k_dispatch(d, [&](auto kind) {
    return sg_k_cast_items<decltype(kind)::fmt, decltype(kind)::dt, kWrite>(d, s, lo, hi, lane);
  });
  if (kWrite && next != nullptr) {
    sg_k_cast_prefetch_scale(next, lane);
  }
  bits = __reduce_max_sync(0xFFFFFFFFu, bits);
  if (lane == 0) {
    sg_k_amax_publish(sg_k_cast_target<LIST>(d, s, scratch + p), bits, hi - lo);
  }
}

#endif /* SG_KERNELS_REFRESH_ITEMS_CUH */

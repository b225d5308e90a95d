/* Where tile chunks come from. at_tile() moves to the tile whose origin is
 * (r0, c0) of W; load(), finish() (a whole aligned chunk, when vec()) and
 * element() (one code) then take tile-relative coordinates. Each batch keeps
 * 64 bytes of loads in flight per thread; occupancy does the rest. */
#ifndef SG_KERNELS_REFRESH_SOURCES_CUH
#define SG_KERNELS_REFRESH_SOURCES_CUH

#include <stdint.h>

#include "fp8_convert.cuh"
#include "refresh_io.cuh"

/* Tile source of the transpose mode: W's bytes as they are. */
struct sg_k_transpose_src {
  static constexpr int kBatch = 4;
  using Raw = uint4;
  const uint8_t *w;
  uint64_t ld_w;
  bool vec_w;
  const uint8_t *tile;

  __device__ __forceinline__ bool vec() const { return vec_w; }
  __device__ __forceinline__ void at_tile(uint64_t r0, uint64_t c0) { tile = w + r0 * ld_w + c0; }
  __device__ __forceinline__ void load(Raw &raw, uint32_t r, uint32_t c) const {
    raw = sg_k_load_bytes16(tile + r * ld_w + c);
  }
  __device__ __forceinline__ uint4 finish(const Raw &raw, uint32_t, uint32_t) const { return raw; }
  __device__ __forceinline__ uint8_t element(uint32_t r, uint32_t c) const {
    return tile[r * ld_w + c];
  }
};

/* Tile source of the cast-transpose mode: casts master elements, writes the
 * codes to W on the way and keeps the thread's amax. */
template <uint32_t FMT, uint32_t DT>
struct sg_k_cast_src {
  static constexpr int kBatch = DT == SG_K_MASTER_FP32 ? 1 : 2;
  using Raw = sg_k_master16<DT>;
  const char *m;
  uint64_t ld_m;
  uint8_t *w;
  uint64_t ld_w;
  float s;
  bool vec_m, vec_w;
  uint32_t amax_bits;
  const char *m_tile;
  uint8_t *w_tile;

  __device__ __forceinline__ bool vec() const { return vec_m && vec_w; }
  __device__ __forceinline__ void at_tile(uint64_t r0, uint64_t c0) {
    m_tile = m + (r0 * ld_m + c0) * Raw::kElemBytes;
    w_tile = w + r0 * ld_w + c0;
  }
  __device__ __forceinline__ void load(Raw &raw, uint32_t r, uint32_t c) const {
    raw = sg_k_load_master16<DT>(m_tile + (r * ld_m + c) * Raw::kElemBytes);
  }
  __device__ __forceinline__ uint4 finish(const Raw &raw, uint32_t r, uint32_t c) {
    const uint4 v = sg_k_cast16<FMT, DT>(raw, s, amax_bits);
    sg_k_store_bytes16(w_tile + r * ld_w + c, v);
    return v;
  }
  __device__ __forceinline__ uint8_t element(uint32_t r, uint32_t c) {
    const uint8_t code = sg_k_cast1<FMT>(sg_k_master_bits<DT>(m_tile, r * ld_m + c), s, amax_bits);
    w_tile[r * ld_w + c] = code;
    return code;
  }
};

#endif /* SG_KERNELS_REFRESH_SOURCES_CUH */

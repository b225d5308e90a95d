/* The stale-transpose detector's kernel (transpose_check.h). A persistent
 * grid walks the refresh table's transpose tiles (128 x 128 elements of W,
 * the same work list the refresh uses): each block stages a tile of W in
 * shared memory, reads the matching rows of Wt and compares them with the
 * staged tile's columns; a linear parameter's span (a dense vector, whose
 * W and Wt are the same bytes) is compared byte for byte. */
#include <cstring>

#include "refresh_table.h"
#include "transpose_check.h"

namespace {

constexpr uint32_t kTile = SG_K_TILE;
constexpr uint32_t kThreads = 256;
/* A staged row is 129 bytes apart from the next: the column reads of the
 * compare (one column, consecutive rows per thread group) then fall in
 * different banks. */
constexpr uint32_t kPitch = kTile + 1;
constexpr uint32_t kChunks = kTile / 16; /* 16-byte chunks per tile row */
constexpr int kBlocksPerSm = 4;
constexpr int kMode = SG_K_MODE_TRANSPOSE;

/* The descriptor whose run of transpose tiles holds `tile`: the last one
 * whose first tile is at or before it. */
__device__ uint32_t find_desc(const sg_k_desc *descs, uint32_t count,
                              uint64_t tile) {
  uint32_t lo = 0, hi = count;
  while (hi - lo > 1) {
    const uint32_t mid = (lo + hi) / 2;
    if (descs[mid].item_first[kMode] <= tile) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return lo;
}

__device__ __forceinline__ uint32_t byte_of(const uint4 &v, uint32_t b) {
  const uint32_t w = b < 8 ? (b < 4 ? v.x : v.y) : (b < 12 ? v.z : v.w);
  return (w >> (8u * (b & 3u))) & 0xffu;
}

/* 16 bytes at src: one vector load where allowed, else byte loads of the
 * first n (the rest read as 0, never compared). */
__device__ __forceinline__ uint4 load16(const uint8_t *src, bool vec,
                                        uint32_t n) {
  if (vec) {
    return *reinterpret_cast<const uint4 *>(src);
  }
  uint32_t w[4] = {0u, 0u, 0u, 0u};
  for (uint32_t b = 0; b < n && b < 16u; b++) {
    w[b / 4] |= static_cast<uint32_t>(src[b]) << (8u * (b % 4));
  }
  return make_uint4(w[0], w[1], w[2], w[3]);
}

/* A tile, or a linear parameter's span (SG_K_VEC_LINEAR: W and Wt are the
 * same bytes; r0 is the span's first byte and nr its length, nc is 0). */
struct tile_view {
  const sg_k_desc *d;
  uint64_t r0, c0; /* origin in W */
  uint32_t nr, nc; /* rows and columns inside the parameter */
};

/* A span's bytes of `base` into ws, or their mismatches with ws counted
 * (ws holds W's span in order). */
__device__ uint32_t span_pass(uint8_t *ws, const uint8_t *base, const tile_view &t, bool stage) {
  uint32_t bad = 0;
  for (uint32_t o = 16u * threadIdx.x; o < t.nr; o += 16u * kThreads) {
    const uint32_t n = min(t.nr - o, 16u);
    const uint4 v = load16(base + t.r0 + o, n == 16u, n); /* both start 16-byte aligned */
    for (uint32_t b = 0; b < n; b++) {
      if (stage) {
        ws[o + b] = static_cast<uint8_t>(byte_of(v, b));
      } else {
        bad += byte_of(v, b) != ws[o + b];
      }
    }
  }
  return bad;
}

/* W's tile rows into ws (row r at r * kPitch). */
__device__ void stage_w(uint8_t *ws, const tile_view &t) {
  const sg_k_desc &d = *t.d;
  if (t.nc == 0) {
    span_pass(ws, d.w, t, true);
    return;
  }
  const bool vec = (d.vec & SG_K_VEC_W) != 0 && t.nc == kTile;
  for (uint32_t i = threadIdx.x; i < kTile * kChunks; i += kThreads) {
    const uint32_t r = i / kChunks, q = i % kChunks;
    if (r >= t.nr || 16u * q >= t.nc) {
      continue;
    }
    const uint8_t *src = d.w + (t.r0 + r) * d.ld_w + t.c0 + 16u * q;
    const uint4 v = load16(src, vec, t.nc - 16u * q);
    uint8_t *dst = ws + r * kPitch + 16u * q;
#pragma unroll
    for (uint32_t b = 0; b < 16u; b++) {
      dst[b] = static_cast<uint8_t>(byte_of(v, b));
    }
  }
}

/* Bytes of Wt's tile (rows c0.., columns r0..) that differ from the staged
 * W tile's transpose, counted by this thread. */
__device__ uint32_t compare_wt(uint8_t *ws, const tile_view &t) {
  const sg_k_desc &d = *t.d;
  if (t.nc == 0) {
    return span_pass(ws, d.wt, t, false);
  }
  const bool vec = (d.vec & SG_K_VEC_WT) != 0 && t.nr == kTile;
  uint32_t bad = 0;
  for (uint32_t i = threadIdx.x; i < kTile * kChunks; i += kThreads) {
    const uint32_t c = i / kChunks, q = i % kChunks;
    if (c >= t.nc || 16u * q >= t.nr) {
      continue;
    }
    const uint8_t *src = d.wt + (t.c0 + c) * d.ld_wt + t.r0 + 16u * q;
    const uint4 v = load16(src, vec, t.nr - 16u * q);
#pragma unroll
    for (uint32_t b = 0; b < 16u; b++) {
      const uint32_t r = 16u * q + b;
      bad += r < t.nr && byte_of(v, b) != ws[r * kPitch + c];
    }
  }
  return bad;
}

/* The block's total of v, valid in thread 0. */
__device__ uint32_t block_sum(uint32_t v, uint32_t *warp_part) {
  for (int o = 16; o > 0; o >>= 1) {
    v += __shfl_down_sync(0xffffffffu, v, o);
  }
  if ((threadIdx.x & 31u) == 0) {
    warp_part[threadIdx.x / 32u] = v;
  }
  __syncthreads();
  uint32_t total = 0;
  if (threadIdx.x == 0) {
    for (uint32_t w = 0; w < kThreads / 32u; w++) {
      total += warp_part[w];
    }
  }
  return total;
}

__device__ tile_view view_of(const sg_k_desc *descs, uint32_t count,
                             uint64_t tile) {
  tile_view t;
  t.d = &descs[find_desc(descs, count, tile)];
  const uint64_t local = tile - t.d->item_first[kMode];
  if ((t.d->vec & SG_K_VEC_LINEAR) != 0) {
    t.r0 = local * SG_K_LINEAR_ITEM;
    t.c0 = 0;
    t.nr = sg_k_linear_bytes(t.d->rows, t.d->cols, local);
    t.nc = 0;
    return t;
  }
  t.r0 = local / t.d->tiles_per_row * kTile;
  t.c0 = local % t.d->tiles_per_row * kTile;
  t.nr = static_cast<uint32_t>(min(static_cast<uint64_t>(kTile), t.d->rows - t.r0));
  t.nc = static_cast<uint32_t>(min(static_cast<uint64_t>(kTile), t.d->cols - t.c0));
  return t;
}

/* The last block to finish counts the check and clears the arrivals. Every
 * block read `checks` before arriving, so all of them saw the same one. */
__device__ void finish_check(sg_k_check_header *state, uint64_t check) {
  if (threadIdx.x != 0) {
    return;
  }
  __threadfence();
  if (atomicAdd(&state->arrived, 1u) == gridDim.x - 1) {
    state->checks = check + 1;
    state->arrived = 0;
  }
}

__global__ void __launch_bounds__(kThreads)
check_kernel(const char *table, sg_k_check_header *state,
             unsigned long long *counts) {
  __shared__ uint8_t ws[kTile * kPitch];
  __shared__ uint32_t warp_part[kThreads / 32];
  const sg_k_table *header = reinterpret_cast<const sg_k_table *>(table);
  const sg_k_desc *descs =
      reinterpret_cast<const sg_k_desc *>(table + sg_k_descs_offset());
  const uint64_t tiles = header->total_items[kMode];
  const uint64_t check = *const_cast<volatile uint64_t *>(&state->checks);
  for (uint64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const tile_view t = view_of(descs, header->count, tile);
    stage_w(ws, t);
    __syncthreads();
    const uint32_t bad = block_sum(compare_wt(ws, t), warp_part);
    if (threadIdx.x == 0 && bad != 0) {
      atomicAdd(&counts[t.d->index], static_cast<unsigned long long>(bad));
      atomicMin(reinterpret_cast<unsigned long long *>(&state->first),
                static_cast<unsigned long long>(check << SG_K_CHECK_INDEX_BITS |
                                                t.d->index));
    }
    __syncthreads(); /* ws and warp_part are reused by the next tile */
  }
  finish_check(state, check);
}

uint64_t tiles_of(const sg_k_param *params, uint32_t count) {
  uint64_t tiles = 0;
  for (uint32_t i = 0; i < count; i++) {
    tiles += sg_k_ceil_div(params[i].rows, kTile) * sg_k_ceil_div(params[i].cols, kTile);
  }
  return tiles;
}

}  // namespace

extern "C" size_t sg_k_check_state_bytes(uint32_t capacity) {
  return sizeof(sg_k_check_header) + static_cast<size_t>(capacity) * sizeof(uint64_t);
}

extern "C" void sg_k_check_state_init(void *image, uint32_t capacity) {
  memset(image, 0, sg_k_check_state_bytes(capacity));
  static_cast<sg_k_check_header *>(image)->first = SG_K_CHECK_NONE;
}

extern "C" cudaError_t sg_k_check_launch(const void *table, void *state,
                                         const sg_k_param *params, uint32_t count,
                                         int sm_count, cudaStream_t stream) {
  if (table == nullptr || state == nullptr || sm_count < 1 ||
      (params == nullptr && count > 0)) {
    return cudaErrorInvalidValue;
  }
  const uint64_t most = static_cast<uint64_t>(sm_count) * kBlocksPerSm;
  const uint64_t tiles = tiles_of(params, count);
  const unsigned int grid = static_cast<unsigned int>(tiles == 0 ? 1 : (tiles < most ? tiles : most));
  const char *t = static_cast<const char *>(table);
  sg_k_check_header *h = static_cast<sg_k_check_header *>(state);
  unsigned long long *counts =
      reinterpret_cast<unsigned long long *>(static_cast<char *>(state) + sizeof *h);
  void *args[] = {&t, &h, &counts};
  return cudaLaunchKernel(reinterpret_cast<const void *>(&check_kernel), dim3(grid),
                          dim3(kThreads), args, 0, stream);
}

extern "C" cudaError_t sg_k_check_load(void) {
  cudaFuncAttributes attributes;
  return cudaFuncGetAttributes(&attributes, reinterpret_cast<const void *>(&check_kernel));
}

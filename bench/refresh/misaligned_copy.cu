/* bench_misaligned_copy: what a copy keeps of the memory's bandwidth when
 * its loads or its stores are off 16-byte alignment, the way the refresh's
 * odd rows are (a Wt row of 3000 bytes starts 8 bytes off every other
 * row; one of 4099 or 257 bytes at every offset). Each thread moves 16
 * bytes at a time, as the tile kernels do, through the refresh's own
 * unaligned stores (sg_k_store16_any: two 8-byte stores at an 8-byte
 * aligned address, else aligned words with single bytes at the ends) and
 * loads (two 8-byte or four 4-byte loads where the address allows, else
 * sg_k_load16_any's aligned words), against the same kernel aligned and
 * the device copy (cudaMemcpyAsync, bench_refresh's baseline). One row
 * also moves 8-byte pieces between lanes so that each store instruction
 * writes 8 contiguous bytes a lane: it tells the memory's cost from the
 * instruction's. Another shifts each lane's 16 bytes half a vector along
 * the warp, so that every store but the warp's two ends is an aligned
 * 16-byte vector (what the realigned drain does for odd Wt rows): it tells
 * what realigning 8-byte aligned rows would win. The aligned kernel also
 * runs with its destination 16, 32 and 128 bytes off: every store a whole
 * vector, but a warp's 512 bytes then start inside a 32-byte L2 sector
 * (16), inside a 128-byte line (32), or not (128), which tells what a
 * sector written in two parts by two warps costs.
 *
 *   bench_misaligned_copy [--mb N >= 256] [--reps N >= 20] [--csv PATH]
 *
 * Every kernel is checked first: the destination, poisoned, must hold the
 * source's random bytes at the offset and the poison around them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure.h"
#include "refresh_tile.cuh"
#include "sg_cuda_check.h"

constexpr uint8_t kPoison = 0xA5;
constexpr size_t kGuard = 256; /* bytes around each buffer's moved bytes (> every offset) */

/* How a row moves its 16-byte pieces. */
enum move {
  MOVE_ALIGNED,
  MOVE_STORE,
  MOVE_STORE_EXCHANGED,
  MOVE_STORE_REALIGNED,
  MOVE_LOAD
};

struct row {
  const char *name;
  move how;
  uint32_t offset; /* of the loads (MOVE_LOAD), else of the stores */
};

static const row kRows[] = {
    {"aligned", MOVE_ALIGNED, 0},
    {"store +16 (vectors)", MOVE_ALIGNED, 16},
    {"store +32 (vectors)", MOVE_ALIGNED, 32},
    {"store +128 (vectors)", MOVE_ALIGNED, 128},
    {"store +8", MOVE_STORE, 8},
    {"store +8, lanes exchanged", MOVE_STORE_EXCHANGED, 8},
    {"store +8, realigned", MOVE_STORE_REALIGNED, 8},
    {"store +4", MOVE_STORE, 4},
    {"store +2", MOVE_STORE, 2},
    {"store +1", MOVE_STORE, 1},
    {"load +8", MOVE_LOAD, 8},
    {"load +4", MOVE_LOAD, 4},
    {"load +1", MOVE_LOAD, 1},
};

/* 16 bytes at p at the widest alignment p has (lo, hi: the source). */
__device__ __forceinline__ uint4 load16(const uint8_t *p, const uint8_t *lo, const uint8_t *hi) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  if ((a & 15u) == 0) {
    return *reinterpret_cast<const uint4 *>(p);
  }
  if ((a & 7u) == 0) {
    const uint2 x = reinterpret_cast<const uint2 *>(p)[0];
    const uint2 y = reinterpret_cast<const uint2 *>(p)[1];
    return make_uint4(x.x, x.y, y.x, y.y);
  }
  if ((a & 3u) == 0) {
    const uint32_t *q = reinterpret_cast<const uint32_t *>(p);
    return make_uint4(q[0], q[1], q[2], q[3]);
  }
  return sg_k_load16_any(p, 16u, lo, hi);
}

/* Lane groups of 8 (128 bytes): piece j of the group's 16 8-byte pieces is
 * half j % 2 of lane j / 2's vector; this lane stores pieces q and q + 8.
 * A shuffle sends the value the source lane holds, so all four words come
 * over and the half is picked here. */
__device__ __forceinline__ void store_exchanged(uint8_t *group, const uint4 &v) {
  const uint32_t lane = threadIdx.x & 31u;
  const uint32_t q = lane & 7u;
#pragma unroll
  for (uint32_t t = 0; t < 2; t++) {
    const uint32_t j = q + 8u * t;
    const int from = static_cast<int>((lane & ~7u) + j / 2u);
    const uint32_t x = __shfl_sync(0xFFFFFFFFu, v.x, from);
    const uint32_t y = __shfl_sync(0xFFFFFFFFu, v.y, from);
    const uint32_t z = __shfl_sync(0xFFFFFFFFu, v.z, from);
    const uint32_t w = __shfl_sync(0xFFFFFFFFu, v.w, from);
    reinterpret_cast<uint2 *>(group)[j] = j % 2u ? make_uint2(z, w) : make_uint2(x, y);
  }
}

/* The warp's 32 vectors, bound for dst8 + 16 * lane with dst8 8 bytes off
 * alignment, as 31 aligned vectors (lane i > 0: the upper half of lane
 * i - 1's vector and the lower half of its own, at dst8 + 16 * i - 8) and
 * the two 8-byte ends, stored by lanes 0 and 31. */
__device__ __forceinline__ void store_realigned(uint8_t *dst8, const uint4 &v) {
  const uint32_t lane = threadIdx.x & 31u;
  const uint32_t z = __shfl_up_sync(0xFFFFFFFFu, v.z, 1);
  const uint32_t w = __shfl_up_sync(0xFFFFFFFFu, v.w, 1);
  uint8_t *at = dst8 + 16u * lane;
  if (lane == 0) {
    *reinterpret_cast<uint2 *>(at) = make_uint2(v.x, v.y);
  } else {
    *reinterpret_cast<uint4 *>(at - 8) = make_uint4(z, w, v.x, v.y);
  }
  if (lane == 31) {
    *reinterpret_cast<uint2 *>(at + 8) = make_uint2(v.z, v.w);
  }
}

/* Moves n bytes (a multiple of 128) from src to dst, 16 a thread a step.
 * Every lane of a warp takes the same number of steps (n / 16 is a
 * multiple of 32), which the exchange's and the realignment's shuffles
 * need. */
__global__ void move_kernel(const uint8_t *src, uint8_t *dst, size_t n, move how) {
  const size_t chunks = n / 16u;
  for (size_t i = uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < chunks;
       i += uint64_t{gridDim.x} * blockDim.x) {
    const uint4 v = how == MOVE_LOAD ? load16(src + 16u * i, src, src + n)
                                     : *reinterpret_cast<const uint4 *>(src + 16u * i);
    if (how == MOVE_STORE_EXCHANGED) {
      store_exchanged(dst + 16u * (i & ~size_t{7}), v);
    } else if (how == MOVE_STORE_REALIGNED) {
      store_realigned(dst + 16u * (i & ~size_t{31}), v);
    } else if (how == MOVE_STORE) {
      sg_k_store16_any(dst + 16u * i, v, 16u);
    } else {
      *reinterpret_cast<uint4 *>(dst + 16u * i) = v;
    }
  }
}

__global__ void fill_random(uint8_t *p, size_t n, uint32_t seed) {
  for (size_t i = uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n;
       i += uint64_t{gridDim.x} * blockDim.x) {
    uint32_t x = static_cast<uint32_t>(i) * 2654435761u ^ seed;
    x ^= x >> 15;
    x *= 2246822519u;
    p[i] = static_cast<uint8_t>(x >> 13);
  }
}

struct buffers {
  uint8_t *src, *dst; /* each n + 2 kGuard bytes; the moved bytes start at kGuard */
  size_t n;
};

/* Where row r's moved bytes start in the source and destination buffers. */
static size_t src_start(const row &r) { return kGuard + (r.how == MOVE_LOAD ? r.offset : 0); }
static size_t dst_start(const row &r) { return kGuard + (r.how == MOVE_LOAD ? 0 : r.offset); }

static void launch(const buffers &b, const row &r, int grid, cudaStream_t st) {
  move_kernel<<<grid, SG_K_THREADS, 0, st>>>(b.src + src_start(r), b.dst + dst_start(r), b.n,
                                             r.how);
}

/* Bytes of the destination that differ from what row r must leave there
 * (h_src: the source's bytes, read once). */
static size_t check(const buffers &b, const row &r, int grid, const uint8_t *h_src,
                    uint8_t *h_dst) {
  const size_t total = b.n + 2 * kGuard;
  SG_CHECK_CUDA(cudaMemset(b.dst, kPoison, total));
  launch(b, r, grid, 0);
  SG_CHECK_CUDA(cudaGetLastError());
  SG_CHECK_CUDA(cudaMemcpy(h_dst, b.dst, total, cudaMemcpyDeviceToHost));
  const size_t src_off = src_start(r);
  const size_t dst_off = dst_start(r);
  size_t bad = 0;
  for (size_t i = 0; i < total; i++) {
    const bool moved = i >= dst_off && i < dst_off + b.n;
    bad += h_dst[i] != (moved ? h_src[src_off + (i - dst_off)] : kPoison);
  }
  return bad;
}

int main(int argc, char **argv) {
  size_t mb = 512;
  int reps = 30;
  const char *csv_path = NULL;
  for (int i = 1; i < argc; i++) {
    if (i + 1 < argc && strcmp(argv[i], "--mb") == 0 && atoi(argv[i + 1]) >= 256) {
      mb = static_cast<size_t>(atoi(argv[++i]));
    } else if (i + 1 < argc && strcmp(argv[i], "--reps") == 0 && atoi(argv[i + 1]) >= 20) {
      reps = atoi(argv[++i]);
    } else if (i + 1 < argc && strcmp(argv[i], "--csv") == 0) {
      csv_path = argv[++i];
    } else {
      fprintf(stderr, "usage: bench_misaligned_copy [--mb N >= 256] [--reps N >= 20] "
                      "[--csv PATH]\n");
      return 2;
    }
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    printf("bench_misaligned_copy: no usable GPU; nothing measured\n");
    return 0;
  }
  cudaDeviceProp prop;
  SG_CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  buffers b;
  b.n = mb << 20;
  const size_t total = b.n + 2 * kGuard;
  SG_CHECK_CUDA(cudaMalloc(&b.src, total));
  SG_CHECK_CUDA(cudaMalloc(&b.dst, total));
  const int grid = prop.multiProcessorCount * 8;
  fill_random<<<grid, SG_K_THREADS>>>(b.src, total, 0x5EEDu);
  SG_CHECK_CUDA(cudaGetLastError());
  uint8_t *h_src = static_cast<uint8_t *>(malloc(total));
  uint8_t *h_dst = static_cast<uint8_t *>(malloc(total));
  SG_CHECK_CUDA(cudaMemcpy(h_src, b.src, total, cudaMemcpyDeviceToHost));
  cudaStream_t st;
  SG_CHECK_CUDA(cudaStreamCreate(&st));
  const double copy = median_us(st, reps, [&](int) {
    SG_CHECK_CUDA(cudaMemcpyAsync(b.dst, b.src, b.n, cudaMemcpyDeviceToDevice, st));
  });
  printf("%s, %d SMs, %zu MB moved a run (L2 %d MB); medians of %d after %d warm-up runs\n",
         prop.name, prop.multiProcessorCount, mb, prop.l2CacheSize >> 20, reps, kWarmup);
  printf("device copy (cudaMemcpyAsync): %.1f us, %.0f GB/s read + write\n", copy,
         2e-3 * b.n / copy);
  printf("%-28s %9s %9s %9s %9s %s\n", "kernel", "us", "GB/s", "%aligned", "%copy", "verify");
  FILE *csv = csv_path != NULL ? fopen(csv_path, "w") : NULL;
  if (csv != NULL) {
    fprintf(csv, "kernel,bytes,us,gb_per_s,pct_of_aligned,pct_of_copy,copy_us,verify_diffs\n");
  }
  double aligned = 0;
  int failed = 0;
  for (const row &r : kRows) {
    const size_t bad = check(b, r, grid, h_src, h_dst);
    const double us = median_us(st, reps, [&](int) { launch(b, r, grid, st); });
    aligned = r.how == MOVE_ALIGNED && r.offset == 0 ? us : aligned;
    failed |= bad != 0;
    printf("%-28s %9.1f %9.0f %8.1f%% %8.1f%% %s\n", r.name, us, 2e-3 * b.n / us,
           100.0 * aligned / us, 100.0 * copy / us, bad == 0 ? "ok" : "MISMATCH");
    if (csv != NULL) {
      fprintf(csv, "%s,%zu,%.2f,%.1f,%.2f,%.2f,%.2f,%zu\n", r.name, b.n, us, 2e-3 * b.n / us,
              100.0 * aligned / us, 100.0 * copy / us, copy, bad);
    }
  }
  if (csv != NULL) {
    fclose(csv);
  }
  free(h_src);
  free(h_dst);
  SG_CHECK_CUDA(cudaFree(b.src));
  SG_CHECK_CUDA(cudaFree(b.dst));
  return failed;
}

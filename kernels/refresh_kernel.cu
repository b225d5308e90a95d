/* The refresh kernel, one instantiation per mode, and its launcher. A
 * persistent grid (as many blocks as fit on the GPU at once) walks the work
 * list of the launch's group in the device table. */
#include <stdint.h>

#include "refresh.h"
#include "refresh_items.cuh"
#include "refresh_pipeline.cuh"
#include "refresh_schedule.cuh"
#include "refresh_table.h"

/* Resident blocks per multiprocessor the register allocation must allow
 * (ptxas caps registers to fit): 4 x 256 threads for the transpose (64
 * registers; 4 x 48 KB of tile ring), 3 for the cast modes, whose
 * conversions need more; fewer blocks would leave too few loads in flight. */
constexpr int sg_k_min_blocks(uint32_t mode) { return mode == SG_K_MODE_TRANSPOSE ? 4 : 3; }

template <uint32_t MODE>
__global__ void __launch_bounds__(SG_K_THREADS, sg_k_min_blocks(MODE))
    sg_k_refresh_kernel(const char *base, uint32_t group, const int32_t *noop_flag) {
  if (noop_flag != nullptr && *noop_flag != 0) {
    return;
  }
  /* Tile buffers: the transpose's three-stage ring, cast-transpose's pair;
   * the cast mode uses none (and the compiler drops them). */
  __shared__ sg_k_tile_smem ring[MODE == SG_K_MODE_TRANSPOSE ? 3 : 2];
  const sg_k_table *table = reinterpret_cast<const sg_k_table *>(base);
  const sg_k_desc *descs = reinterpret_cast<const sg_k_desc *>(base + sg_k_descs_offset());
  sg_k_scratch *scratch = reinterpret_cast<sg_k_scratch *>(
      const_cast<char *>(base) + sg_k_scratch_offset(table->capacity));
  if constexpr (MODE == SG_K_MODE_TRANSPOSE) {
    sg_k_transpose_pipeline(ring, sg_k_stride_start<MODE>(table, descs, group));
  } else if constexpr (MODE == SG_K_MODE_CAST_TRANSPOSE) {
    sg_k_cast_transpose(ring, sg_k_stride_start<MODE>(table, descs, group), scratch);
  } else {
    const sg_k_work work = sg_k_block_work<MODE>(table, descs, group);
    uint64_t i = work.begin;
    for (uint32_t p = work.param; i < work.end; p++) {
      const sg_k_desc &d = descs[p];
      const uint64_t first = d.item_first[MODE];
      const uint64_t stop = min(work.end, first + d.items[MODE]);
      if (stop > i) {
        sg_k_cast_param(d, i - first, stop - first, scratch + p);
        i = stop;
      }
    }
  }
}

/* Blocks of the persistent grid per multiprocessor. */
template <uint32_t MODE>
static cudaError_t blocks_per_sm(int *per_sm) {
  /* The transpose ring needs 4 x 48 KB per multiprocessor: it asks for the
   * largest shared-memory carveout. The cast modes keep the default, which
   * leaves L1 room for their loads in flight (the largest carveout cost the
   * cast mode 13% on the GPT set). Function attributes, not stream work:
   * legal during capture. */
  cudaError_t err = cudaSuccess;
  if (MODE == SG_K_MODE_TRANSPOSE) {
    err = cudaFuncSetAttribute(sg_k_refresh_kernel<MODE>,
                               cudaFuncAttributePreferredSharedMemoryCarveout,
                               cudaSharedmemCarveoutMaxShared);
  }
  if (err == cudaSuccess) {
    err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(per_sm, sg_k_refresh_kernel<MODE>,
                                                        SG_K_THREADS, 0);
  }
  return err;
}

template <uint32_t MODE>
static cudaError_t launch_mode(const void *table, uint32_t group, const int32_t *noop_flag,
                               int sm_count, cudaStream_t stream) {
  int per_sm = 0;
  cudaError_t err = blocks_per_sm<MODE>(&per_sm);
  if (err != cudaSuccess) {
    return err;
  }
  const char *base = static_cast<const char *>(table);
  void *args[] = {&base, &group, &noop_flag};
  const dim3 grid(static_cast<unsigned>(sm_count) * static_cast<unsigned>(per_sm > 0 ? per_sm : 1));
  return cudaLaunchKernel(reinterpret_cast<const void *>(&sg_k_refresh_kernel<MODE>), grid,
                          dim3(SG_K_THREADS), args, 0, stream);
}

extern "C" cudaError_t sg_k_refresh_load(void) {
  int per_sm = 0;
  cudaError_t err = blocks_per_sm<SG_K_MODE_TRANSPOSE>(&per_sm);
  if (err == cudaSuccess) {
    err = blocks_per_sm<SG_K_MODE_CAST>(&per_sm);
  }
  if (err == cudaSuccess) {
    err = blocks_per_sm<SG_K_MODE_CAST_TRANSPOSE>(&per_sm);
  }
  return err;
}

extern "C" cudaError_t sg_k_refresh_launch(const void *device_table, uint32_t mode,
                                           uint32_t group, const int32_t *noop_flag,
                                           int sm_count, cudaStream_t stream) {
  if (device_table == nullptr || sm_count < 1) {
    return cudaErrorInvalidValue;
  }
  switch (mode) {
  case SG_K_MODE_TRANSPOSE:
    return launch_mode<SG_K_MODE_TRANSPOSE>(device_table, group, noop_flag, sm_count, stream);
  case SG_K_MODE_CAST:
    return launch_mode<SG_K_MODE_CAST>(device_table, group, noop_flag, sm_count, stream);
  case SG_K_MODE_CAST_TRANSPOSE:
    return launch_mode<SG_K_MODE_CAST_TRANSPOSE>(device_table, group, noop_flag, sm_count,
                                                 stream);
  default:
    return cudaErrorInvalidValue;
  }
}

/* The refresh kernel, one instantiation per mode and layout, and its
 * launcher. A persistent grid (as many blocks as fit on the GPU at once)
 * walks the work list of the launch's group in the device table. */
#include <stdint.h>

#include <type_traits>

#include "refresh.h"
#include "refresh_cast_transpose.cuh"
#include "refresh_items.cuh"
#include "refresh_pipeline.cuh"
#include "refresh_schedule.cuh"
#include "refresh_table.h"

/* The two layouts (refresh.h, sg_k_refresh_layout). Narrow: single tiles,
 * several blocks per multiprocessor, so many small parameters move side by
 * side. Wide: one block per multiprocessor; the transpose deals 2 x 2 tiles
 * per chunk (the memory sees 256-byte runs of W and Wt where single tiles
 * give 128) and the cast-transpose keeps more master stages in flight. */
template <uint32_t MODE, uint32_t LAYOUT>
struct sg_k_layout_of;

template <uint32_t LAYOUT>
struct sg_k_layout_of<SG_K_MODE_TRANSPOSE, LAYOUT> {
  using Chunk = typename std::conditional<LAYOUT == SG_K_LAYOUT_WIDE, sg_k_chunk<2, 2>,
                                          sg_k_chunk<1, 1>>::type;
  using Smem = sg_k_transpose_ring<Chunk>;
};

template <uint32_t LAYOUT>
struct sg_k_layout_of<SG_K_MODE_CAST_TRANSPOSE, LAYOUT> {
  using Smem = sg_k_ct_ring<LAYOUT == SG_K_LAYOUT_WIDE ? SG_K_CT_WIDE_STAGES : 4u>;
};

/* The cast mode needs only its static amax slots. */
template <uint32_t LAYOUT>
struct sg_k_layout_of<SG_K_MODE_CAST, LAYOUT> {
  struct Smem {};
};

/* Dynamic shared memory of a mode and layout. */
template <uint32_t MODE, uint32_t LAYOUT>
constexpr size_t sg_k_smem_bytes() {
  return MODE == SG_K_MODE_CAST ? 0 : sizeof(typename sg_k_layout_of<MODE, LAYOUT>::Smem);
}

/* Resident blocks per multiprocessor the register allocation must allow
 * (ptxas caps registers to fit): as many as Hopper's shared memory holds
 * (228 KB a multiprocessor, 1 KB of it reserved per block), at most 4; 3 for
 * the cast mode, whose conversions need more registers. */
template <uint32_t MODE, uint32_t LAYOUT>
constexpr int sg_k_min_blocks() {
  constexpr size_t kFit = 228u * 1024u / (sg_k_smem_bytes<MODE, LAYOUT>() + 1024u);
  return MODE == SG_K_MODE_CAST ? 3 : static_cast<int>(kFit < 4 ? kFit : 4);
}

/* The cast mode: the block's contiguous share of the group's items, one
 * parameter at a time. */
__device__ __forceinline__ void sg_k_cast(const sg_k_table_head &head, const sg_k_desc *descs,
                                          uint32_t group, sg_k_scratch *scratch) {
  constexpr uint32_t kMode = SG_K_MODE_CAST;
  __shared__ sg_k_amax_slots slots;
  const sg_k_work work = sg_k_block_work<kMode>(head, descs, group);
  uint64_t i = work.begin;
  uint32_t half = 0;
  for (uint32_t p = work.param; i < work.end; p++) {
    const sg_k_desc &d = descs[p];
    const uint64_t first = d.item_first[kMode];
    const uint64_t stop = min(work.end, first + d.items[kMode]);
    if (stop > i) {
      const sg_k_desc *next = stop < work.end && p + 1 < work.pe ? &descs[p + 1] : nullptr;
      sg_k_cast_param(descs, p, i - first, stop - first, next, scratch, slots, half);
      half ^= 1u;
      i = stop;
    }
  }
}

template <uint32_t MODE, uint32_t LAYOUT>
__global__ void __launch_bounds__(SG_K_THREADS, (sg_k_min_blocks<MODE, LAYOUT>()))
    sg_k_refresh_kernel(const char *base, uint32_t group, const int32_t *noop_flag) {
  using Smem = typename sg_k_layout_of<MODE, LAYOUT>::Smem;
  extern __shared__ uint4 sg_k_dynamic_smem[];
  const sg_k_table *table = reinterpret_cast<const sg_k_table *>(base);
  /* Loaded before the flag is tested, so the two loads overlap. */
  const sg_k_table_head head{table->count, table->total_items[MODE]};
  const uint32_t capacity = table->capacity;
  if (noop_flag != nullptr && *noop_flag != 0) {
    return;
  }
  const sg_k_desc *descs = reinterpret_cast<const sg_k_desc *>(base + sg_k_descs_offset());
  sg_k_scratch *scratch = reinterpret_cast<sg_k_scratch *>(const_cast<char *>(base) +
                                                           sg_k_scratch_offset(capacity));
  if constexpr (MODE == SG_K_MODE_TRANSPOSE) {
    using Chunk = typename sg_k_layout_of<MODE, LAYOUT>::Chunk;
    sg_k_transpose_pipeline(*reinterpret_cast<Smem *>(sg_k_dynamic_smem),
                            sg_k_cursor_start<MODE, Chunk>(head, descs, group));
  } else if constexpr (MODE == SG_K_MODE_CAST_TRANSPOSE) {
    sg_k_cast_transpose(*reinterpret_cast<Smem *>(sg_k_dynamic_smem),
                        sg_k_cursor_start<MODE, sg_k_ct_chunk>(head, descs, group), descs,
                        scratch);
  } else {
    sg_k_cast(head, descs, group, scratch);
  }
}

/* Blocks of the persistent grid per multiprocessor. */
template <uint32_t MODE, uint32_t LAYOUT>
static cudaError_t blocks_per_sm(int *per_sm) {
  /* The tile modes' rings need more than the default 48 KB a block and as
   * much shared memory per multiprocessor as there is: they raise the
   * block's limit and ask for the largest carveout. The cast mode keeps the
   * default, which leaves L1 room for its loads in flight (the largest
   * carveout cost it 13% on the GPT set). Function attributes, not stream
   * work: legal during capture. */
  cudaError_t err = cudaSuccess;
  constexpr int kSmem = static_cast<int>(sg_k_smem_bytes<MODE, LAYOUT>());
  if (MODE != SG_K_MODE_CAST) {
    err = cudaFuncSetAttribute(sg_k_refresh_kernel<MODE, LAYOUT>,
                               cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem);
    if (err == cudaSuccess) {
      err = cudaFuncSetAttribute(sg_k_refresh_kernel<MODE, LAYOUT>,
                                 cudaFuncAttributePreferredSharedMemoryCarveout,
                                 cudaSharedmemCarveoutMaxShared);
    }
  }
  if (err == cudaSuccess) {
    err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(per_sm, sg_k_refresh_kernel<MODE, LAYOUT>,
                                                        SG_K_THREADS, kSmem);
  }
  return err;
}

template <uint32_t MODE, uint32_t LAYOUT>
static cudaError_t launch_as(const void *table, uint32_t group, const int32_t *noop_flag,
                             int sm_count, cudaStream_t stream) {
  int per_sm = 0;
  cudaError_t err = blocks_per_sm<MODE, LAYOUT>(&per_sm);
  if (err != cudaSuccess) {
    return err;
  }
  const char *base = static_cast<const char *>(table);
  void *args[] = {&base, &group, &noop_flag};
  const dim3 grid(static_cast<unsigned>(sm_count) * static_cast<unsigned>(per_sm > 0 ? per_sm : 1));
  return cudaLaunchKernel(reinterpret_cast<const void *>(&sg_k_refresh_kernel<MODE, LAYOUT>), grid,
                          dim3(SG_K_THREADS), args, sg_k_smem_bytes<MODE, LAYOUT>(), stream);
}

/* Whether the current device gives a block the wide layout's shared memory
 * (a host-side attribute query: legal during capture). Where it does not
 * (A100: 163 KB; sm_86/89: 99 KB), launches take the narrow layout. */
template <uint32_t MODE>
static cudaError_t wide_fits(bool *fits) {
  int device = 0;
  int optin = 0;
  cudaError_t err = cudaGetDevice(&device);
  if (err == cudaSuccess) {
    err = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
  }
  *fits = err == cudaSuccess &&
          static_cast<size_t>(optin) >= sg_k_smem_bytes<MODE, SG_K_LAYOUT_WIDE>();
  return err;
}

/* The tile modes: the wide layout when asked for and it fits. */
template <uint32_t MODE>
static cudaError_t launch_tiles(const void *table, uint32_t group, uint32_t layout,
                                const int32_t *noop_flag, int sm_count, cudaStream_t stream) {
  bool wide = false;
  const cudaError_t err = layout == SG_K_LAYOUT_WIDE ? wide_fits<MODE>(&wide) : cudaSuccess;
  if (err != cudaSuccess) {
    return err;
  }
  return wide ? launch_as<MODE, SG_K_LAYOUT_WIDE>(table, group, noop_flag, sm_count, stream)
              : launch_as<MODE, SG_K_LAYOUT_NARROW>(table, group, noop_flag, sm_count, stream);
}

/* Both layouts of a tile mode, the wide one where it fits. */
template <uint32_t MODE>
static cudaError_t load_tiles(void) {
  bool wide = false;
  int per_sm = 0;
  cudaError_t err = wide_fits<MODE>(&wide);
  if (err == cudaSuccess && wide) {
    err = blocks_per_sm<MODE, SG_K_LAYOUT_WIDE>(&per_sm);
  }
  if (err == cudaSuccess) {
    err = blocks_per_sm<MODE, SG_K_LAYOUT_NARROW>(&per_sm);
  }
  return err;
}

extern "C" cudaError_t sg_k_refresh_load(void) {
  int per_sm = 0;
  cudaError_t err = load_tiles<SG_K_MODE_TRANSPOSE>();
  if (err == cudaSuccess) {
    err = load_tiles<SG_K_MODE_CAST_TRANSPOSE>();
  }
  if (err == cudaSuccess) {
    err = blocks_per_sm<SG_K_MODE_CAST, SG_K_LAYOUT_NARROW>(&per_sm);
  }
  return err;
}

extern "C" cudaError_t sg_k_refresh_launch(const void *device_table, uint32_t mode,
                                           uint32_t group, uint32_t layout,
                                           const int32_t *noop_flag, int sm_count,
                                           cudaStream_t stream) {
  if (device_table == nullptr || sm_count < 1 ||
      (layout != SG_K_LAYOUT_NARROW && layout != SG_K_LAYOUT_WIDE)) {
    return cudaErrorInvalidValue;
  }
  switch (mode) {
  case SG_K_MODE_TRANSPOSE:
    return launch_tiles<SG_K_MODE_TRANSPOSE>(device_table, group, layout, noop_flag, sm_count,
                                             stream);
  case SG_K_MODE_CAST:
    return launch_as<SG_K_MODE_CAST, SG_K_LAYOUT_NARROW>(device_table, group, noop_flag,
                                                         sm_count, stream);
  case SG_K_MODE_CAST_TRANSPOSE:
    return launch_tiles<SG_K_MODE_CAST_TRANSPOSE>(device_table, group, layout, noop_flag,
                                                  sm_count, stream);
  default:
    return cudaErrorInvalidValue;
  }
}

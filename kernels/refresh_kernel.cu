/* The refresh kernel, one instantiation per kernel (a mode's, the amax pass,
 * the block-scaled casts, block scaling's grid transpose) and layout, the
 * tile kernels also in a whole-tile instance (sg_k_plan.whole: no edge or
 * unaligned code, so the GPT set's all-whole tiles run the lean loop they
 * had before the recipes and the unaligned path grew the general one), the
 * transpose also in a general instance with the realigned drain
 * (sg_k_plan.realign: odd Wt rows), the cast-transpose in a whole and a
 * general instance for a split's parts (sg_k_plan.split; the general one
 * also, wide, with the realigned drain: sg_k_plan.realign), the block
 * kernels in an instance that pairs short tiles (sg_k_plan.pairs), and
 * its launcher. A persistent grid (as many blocks as fit on the GPU at
 * once) walks a work list of the launch's group in the device table. A
 * launch runs the kernels its plan names, one after another on the stream
 * (those on other bytes than the one before overlapping it:
 * refresh_overlap.cuh); every attribute and occupancy query happens once,
 * in sg_k_refresh_load. */
#include <stdint.h>

#include <type_traits>

#include "refresh.h"
#include "refresh_block.cuh"
#include "refresh_cast_transpose.cuh"
#include "refresh_grid.cuh"
#include "refresh_items.cuh"
#include "refresh_overlap.cuh"
#include "refresh_pipeline.cuh"
#include "refresh_schedule.cuh"
#include "refresh_table.h"

/* The two layouts (refresh.h, sg_k_refresh_layout). Narrow: single tiles,
 * several blocks per multiprocessor, so many small parameters move side by
 * side. Wide: one block per multiprocessor; the transpose deals 2 x 2 tiles
 * per chunk (the memory sees 256-byte runs of W and Wt where single tiles
 * give 128) and the cast-transpose keeps more master stages in flight.
 * The cast mode, the amax pass and the block kernels have one layout and
 * no dynamic shared memory (the cast needs none, the block kernel's code
 * tiles are static). */
template <uint32_t KERNEL, uint32_t LAYOUT, bool APART = false>
struct sg_k_layout_of {
  struct Smem {};
};

/* The transpose's APART instance has the realigned drain, whose ring holds
 * the rows below each tile. */
template <uint32_t LAYOUT, bool APART>
struct sg_k_layout_of<SG_K_KERNEL_TRANSPOSE, LAYOUT, APART> {
  using Chunk = typename std::conditional<LAYOUT == SG_K_LAYOUT_WIDE, sg_k_chunk<2, 2>,
                                          sg_k_chunk<1, 1>>::type;
  using Smem = sg_k_transpose_ring<Chunk::K, APART>;
};

/* The order a transpose instance deals its chunks in: the wide layout's
 * whole instance in super-bands of 512 chunk rows (131072 W rows: Llama-3's
 * 128256-row vocabulary is one band, a taller one two), so that the blocks in
 * flight go down one or two chunk columns and write Wt rows in long runs
 * (tens of KB on a tall W) while they read W in runs of 256 bytes or more.
 * One chunk row a band wrote runs of 300 bytes on a [4096, 28672] W;
 * bands of 32 chunk rows (8192 W rows) gained the zoo 2-7 points of the
 * copy and cost the GPT set one; bands of 512 then gained the taller zoo
 * weights another 1-3 points (Llama-3 8B 89 -> 92%, zoo-embeddings 72.5 ->
 * 74.9%) and left the GPT set's (no taller than 8192 rows) as it was. The
 * same order cost the general instance 5 points (the embeddings): it keeps
 * one chunk row a band. */
template <uint32_t LAYOUT, bool WHOLE>
using sg_k_transpose_chunk =
    typename std::conditional<LAYOUT == SG_K_LAYOUT_WIDE && WHOLE, sg_k_chunk<2, 2, 512>,
                              typename sg_k_layout_of<SG_K_KERNEL_TRANSPOSE, LAYOUT>::Chunk>::type;

/* The cast-transpose's wide APART instances hold the rows below each code
 * tile: the general one has the realigned drain (sg_k_plan.realign). Only
 * the wide ring has room for them: the narrow one must fit the 99 KB a
 * block may have on sm_86/89. */
template <uint32_t LAYOUT, bool APART>
struct sg_k_layout_of<SG_K_KERNEL_CAST_TRANSPOSE, LAYOUT, APART> {
  static constexpr bool kWide = LAYOUT == SG_K_LAYOUT_WIDE;
  using Smem = sg_k_ct_ring<kWide ? SG_K_CT_WIDE_STAGES : 4u, kWide && APART ? SG_K_BELOW : 0u>;
};

/* The work list a kernel walks (the two block kernels share one; the grid
 * transpose walks the transpose's tiles). */
__host__ __device__ constexpr uint32_t sg_k_list_of(uint32_t kernel) {
  return kernel == SG_K_KERNEL_BLOCK_CAST_TRANSPOSE ? uint32_t{SG_K_LIST_BLOCK}
         : kernel == SG_K_KERNEL_GRID               ? uint32_t{SG_K_LIST_TRANSPOSE}
                                                    : kernel;
}

__host__ __device__ constexpr bool sg_k_has_ring(uint32_t kernel) {
  return kernel == SG_K_KERNEL_TRANSPOSE || kernel == SG_K_KERNEL_CAST_TRANSPOSE;
}

/* Dynamic shared memory of a kernel and layout. */
template <uint32_t KERNEL, uint32_t LAYOUT, bool APART = false>
constexpr size_t sg_k_smem_bytes() {
  return sg_k_has_ring(KERNEL) ? sizeof(typename sg_k_layout_of<KERNEL, LAYOUT, APART>::Smem)
                               : 0;
}

/* Resident blocks per multiprocessor the register allocation must allow
 * (ptxas caps registers to fit): as many as Hopper's shared memory holds
 * (228 KB a multiprocessor, 1 KB of it reserved per block), at most 4; 3 for
 * the cast mode and the amax pass, whose conversions need more registers,
 * and for the narrow transpose with the realigned drain (at 64 registers
 * it spilled: refresh_tile.cuh); 2 for the block kernels, which hold a
 * tile's master in registers. */
template <uint32_t KERNEL, uint32_t LAYOUT, bool APART = false>
constexpr int sg_k_min_blocks() {
  constexpr size_t kFit = 228u * 1024u / (sg_k_smem_bytes<KERNEL, LAYOUT, APART>() + 1024u);
  constexpr bool kRealignNarrow =
      APART && KERNEL == SG_K_KERNEL_TRANSPOSE && LAYOUT == SG_K_LAYOUT_NARROW;
  return KERNEL == SG_K_KERNEL_CAST || KERNEL == SG_K_KERNEL_AMAX || kRealignNarrow ? 3
         : sg_k_has_ring(KERNEL) ? static_cast<int>(kFit < 4 ? kFit : 4)
                                 : 2;
}

/* The cast mode (or the amax pass): each warp its contiguous share of the
 * group's items in LIST, one parameter at a time, with no barrier. */
template <uint32_t LIST>
__device__ __forceinline__ void sg_k_cast(const sg_k_table_head &head, const sg_k_desc *descs,
                                          uint32_t group, sg_k_scratch *scratch) {
  const sg_k_work work = sg_k_warp_work<LIST>(head, descs, group);
  sg_k_items_run run = {work.begin, work.param, 0, 0, false};
  while (sg_k_items_next<LIST>(descs, work, run)) {
    const sg_k_desc *next = run.more && run.p + 1 < work.pe ? &descs[run.p + 1] : nullptr;
    sg_k_cast_param<LIST>(descs, run.p, run.lo, run.hi, next, scratch);
  }
}

/* WHOLE: the whole-tile instance. APART: an instance that only some
 * launches take, so that its code costs the others nothing: the general
 * transpose with the realigned drain (sg_k_plan.realign: its code in the
 * pipeline's loop cost the other launches' small tiles 2-10%), and the
 * cast-transpose's for the parts of a split (whole and general: taking
 * the part made ptxas spill 20 bytes in the narrow general instance,
 * which cost the many-small set 7 us a launch), and the block kernels'
 * that pair short tiles (sg_k_plan.pairs: beside the single tiles that
 * code cost the GPT set's FP32 cast-transpose 3%). part: which of the
 * selection's parameters the transpose and those cast-transpose instances
 * move (SG_K_PART_*; the other kernels take all). */
template <uint32_t KERNEL, uint32_t LAYOUT, bool WHOLE, bool APART = false>
__global__ void __launch_bounds__(SG_K_THREADS, (sg_k_min_blocks<KERNEL, LAYOUT, APART>()))
    sg_k_refresh_kernel(const char *base, uint32_t group, uint32_t part,
                        const int32_t *noop_flag) {
  static_assert(!WHOLE || sg_k_has_ring(KERNEL), "only the tile kernels have a whole instance");
  static_assert(!APART || (KERNEL == SG_K_KERNEL_TRANSPOSE && !WHOLE) ||
                    KERNEL == SG_K_KERNEL_CAST_TRANSPOSE || sg_k_list_of(KERNEL) == SG_K_LIST_BLOCK,
                "only the general transpose realigns, the cast-transpose splits, the block "
                "kernels pair apart");
  constexpr uint32_t LIST = sg_k_list_of(KERNEL);
  constexpr bool kOverlaps = KERNEL == SG_K_KERNEL_TRANSPOSE || KERNEL == SG_K_KERNEL_GRID ||
                             (KERNEL == SG_K_KERNEL_CAST_TRANSPOSE && APART);
  if constexpr (kOverlaps) {
    sg_k_let_dependents_start();
  }
  [[maybe_unused]] typename std::conditional<kOverlaps, sg_k_wait_before_exit, int>::type waits{};
  using Smem = typename sg_k_layout_of<KERNEL, LAYOUT, APART>::Smem;
  extern __shared__ uint4 sg_k_dynamic_smem[];
  const sg_k_table *table = reinterpret_cast<const sg_k_table *>(base);
  /* Loaded before the flag is tested, so the two loads overlap. */
  const sg_k_table_head head{table->count, table->total_items[LIST]};
  const uint32_t capacity = table->capacity;
  if (noop_flag != nullptr && *noop_flag != 0) {
    return;
  }
  const sg_k_desc *descs = reinterpret_cast<const sg_k_desc *>(base + sg_k_descs_offset());
  sg_k_scratch *scratch = reinterpret_cast<sg_k_scratch *>(const_cast<char *>(base) +
                                                           sg_k_scratch_offset(capacity));
  if constexpr (KERNEL == SG_K_KERNEL_TRANSPOSE) {
    using Chunk = sg_k_transpose_chunk<LAYOUT, WHOLE>;
    sg_k_transpose_pipeline<Chunk, WHOLE, APART>(*reinterpret_cast<Smem *>(sg_k_dynamic_smem),
                                                 sg_k_cursor_start<LIST, Chunk>(head, descs,
                                                                                group, part));
  } else if constexpr (KERNEL == SG_K_KERNEL_CAST_TRANSPOSE) {
    sg_k_cast_transpose<WHOLE>(*reinterpret_cast<Smem *>(sg_k_dynamic_smem),
                               sg_k_cursor_start<LIST, sg_k_ct_chunk>(
                                   head, descs, group, APART ? part : uint32_t{SG_K_PART_ALL}),
                               descs, scratch);
  } else if constexpr (KERNEL == SG_K_KERNEL_GRID) {
    sg_k_grid_transpose<LIST>(head, descs, group);
  } else if constexpr (LIST == SG_K_LIST_BLOCK) {
    sg_k_block_scale<KERNEL == SG_K_KERNEL_BLOCK_CAST_TRANSPOSE, APART>(
        sg_k_cursor_start<LIST, sg_k_block_chunk>(head, descs, group));
  } else {
    sg_k_cast<LIST>(head, descs, group, scratch);
  }
}

/* Blocks per multiprocessor of one instance. The tile modes' rings need
 * more than the default 48 KB a block and as much shared memory per
 * multiprocessor as there is: they raise the block's limit and ask for the
 * largest carveout. The other kernels keep the default, which leaves L1
 * room for their loads in flight (the largest carveout cost the cast mode
 * 13% on the GPT set). */
template <uint32_t KERNEL, uint32_t LAYOUT, bool WHOLE, bool APART = false>
static cudaError_t instance_blocks(int *per_sm) {
  cudaError_t err = cudaSuccess;
  constexpr int kSmem = static_cast<int>(sg_k_smem_bytes<KERNEL, LAYOUT, APART>());
  if (sg_k_has_ring(KERNEL)) {
    err = cudaFuncSetAttribute(sg_k_refresh_kernel<KERNEL, LAYOUT, WHOLE, APART>,
                               cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem);
    if (err == cudaSuccess) {
      err = cudaFuncSetAttribute(sg_k_refresh_kernel<KERNEL, LAYOUT, WHOLE, APART>,
                                 cudaFuncAttributePreferredSharedMemoryCarveout,
                                 cudaSharedmemCarveoutMaxShared);
    }
  }
  if (err == cudaSuccess) {
    err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        per_sm, sg_k_refresh_kernel<KERNEL, LAYOUT, WHOLE, APART>, SG_K_THREADS, kSmem);
  }
  return err;
}

/* Lowers *per_sm to the blocks of one more instance (after a failure, to 0:
 * the caller returns the error). */
template <uint32_t KERNEL, uint32_t LAYOUT, bool WHOLE, bool APART = false>
static cudaError_t fewer_blocks(cudaError_t err, int *per_sm) {
  int blocks = 0;
  if (err == cudaSuccess) {
    err = instance_blocks<KERNEL, LAYOUT, WHOLE, APART>(&blocks);
  }
  *per_sm = blocks < *per_sm ? blocks : *per_sm;
  return err;
}

/* Blocks of the persistent grid per multiprocessor: one size for a tile
 * kernel's instances (the smallest; all are bound by the ring's shared
 * memory and the launch bounds, so they agree; the cast-transpose's
 * instances for a split's parts among them), and for a block kernel's
 * two. APART: the realigned
 * transpose, sized apart, so that its larger ring lowers no other
 * launch's grid (on an A100 the narrow ring would fit 2 blocks a
 * multiprocessor instead of 3). */
template <uint32_t KERNEL, uint32_t LAYOUT, bool APART>
static cudaError_t blocks_per_sm(int *per_sm) {
  cudaError_t err = instance_blocks<KERNEL, LAYOUT, false, APART>(per_sm);
  if constexpr (sg_k_has_ring(KERNEL) && !APART) {
    err = fewer_blocks<KERNEL, LAYOUT, true>(err, per_sm);
  }
  if constexpr (KERNEL == SG_K_KERNEL_CAST_TRANSPOSE) {
    err = fewer_blocks<KERNEL, LAYOUT, false, true>(err, per_sm);
    err = fewer_blocks<KERNEL, LAYOUT, true, true>(err, per_sm);
  }
  if constexpr (sg_k_list_of(KERNEL) == SG_K_LIST_BLOCK) {
    err = fewer_blocks<KERNEL, LAYOUT, false, true>(err, per_sm);
  }
  /* A kernel that fits nowhere still gets one block per multiprocessor
   * (the launch then reports why). */
  *per_sm = err == cudaSuccess && *per_sm < 1 ? 1 : *per_sm;
  return err;
}

/* A kernel's entries of the device record (APART: the realigned
 * transpose's, sg_k_refresh_device.realign_blocks_per_sm): both layouts of
 * the tile kernels, the wide one only where a block may have its shared
 * memory (A100: 163 KB; sm_86/89: 99 KB), and one entry for the others. */
template <uint32_t KERNEL, bool APART = false>
static cudaError_t load_kernel(int optin, sg_k_refresh_device *out) {
  int *per_sm = APART ? out->realign_blocks_per_sm : out->blocks_per_sm[KERNEL];
  cudaError_t err = blocks_per_sm<KERNEL, SG_K_LAYOUT_NARROW, APART>(&per_sm[SG_K_LAYOUT_NARROW]);
  if constexpr (sg_k_has_ring(KERNEL)) {
    if (err == cudaSuccess &&
        static_cast<size_t>(optin) >= sg_k_smem_bytes<KERNEL, SG_K_LAYOUT_WIDE, APART>()) {
      err = blocks_per_sm<KERNEL, SG_K_LAYOUT_WIDE, APART>(&per_sm[SG_K_LAYOUT_WIDE]);
    }
  }
  return err;
}

extern "C" cudaError_t sg_k_refresh_load(sg_k_refresh_device *out) {
  if (out == nullptr) {
    return cudaErrorInvalidValue;
  }
  *out = sg_k_refresh_device{};
  int device = 0;
  int optin = 0;
  int sm_count = 0;
  int major = 0;
  cudaError_t err = cudaGetDevice(&device);
  if (err == cudaSuccess) {
    err = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
  }
  if (err == cudaSuccess) {
    err = cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device);
  }
  if (err == cudaSuccess) {
    err = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
  }
  /* Programmatic dependent launch needs sm_90; before it the attribute is
   * documented only as not overlapping, so it is not asked for. */
  out->overlaps = major >= 9;
  if (err == cudaSuccess) err = load_kernel<SG_K_KERNEL_TRANSPOSE>(optin, out);
  if (err == cudaSuccess) err = load_kernel<SG_K_KERNEL_TRANSPOSE, true>(optin, out);
  if (err == cudaSuccess) err = load_kernel<SG_K_KERNEL_CAST>(optin, out);
  if (err == cudaSuccess) err = load_kernel<SG_K_KERNEL_CAST_TRANSPOSE>(optin, out);
  if (err == cudaSuccess) err = load_kernel<SG_K_KERNEL_AMAX>(optin, out);
  if (err == cudaSuccess) err = load_kernel<SG_K_KERNEL_BLOCK_CAST>(optin, out);
  if (err == cudaSuccess) err = load_kernel<SG_K_KERNEL_BLOCK_CAST_TRANSPOSE>(optin, out);
  if (err == cudaSuccess) err = load_kernel<SG_K_KERNEL_GRID>(optin, out);
  /* Only a complete record says "loaded". */
  out->sm_count = err == cudaSuccess ? sm_count : 0;
  return err;
}

/* The device record's blocks per multiprocessor of a kernel's layouts
 * (APART: the realigned transpose's; the cast-transpose's instances share
 * one entry). */
template <uint32_t KERNEL, bool APART>
static const int *blocks_entry(const sg_k_refresh_device *dev) {
  return APART && KERNEL == SG_K_KERNEL_TRANSPOSE ? dev->realign_blocks_per_sm
                                                   : dev->blocks_per_sm[KERNEL];
}

/* OVERLAP: launched programmatically after the kernel before it on the
 * stream (refresh_overlap.cuh), which must touch none of its bytes. */
template <uint32_t KERNEL, uint32_t LAYOUT, bool WHOLE = false, bool OVERLAP = false,
          bool APART = false>
static cudaError_t launch_as(const void *table, uint32_t group, uint32_t part,
                             const int32_t *noop_flag, const sg_k_refresh_device *dev,
                             cudaStream_t stream) {
  const char *base = static_cast<const char *>(table);
  void *args[] = {&base, &group, &part, &noop_flag};
  const unsigned per_sm = static_cast<unsigned>(blocks_entry<KERNEL, APART>(dev)[LAYOUT]);
  cudaLaunchAttribute overlap;
  overlap.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  overlap.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(static_cast<unsigned>(dev->sm_count) * (per_sm > 0 ? per_sm : 1u));
  config.blockDim = dim3(SG_K_THREADS);
  config.dynamicSmemBytes = sg_k_smem_bytes<KERNEL, LAYOUT, APART>();
  config.stream = stream;
  const bool overlaps = OVERLAP && dev->overlaps != 0;
  config.attrs = overlaps ? &overlap : nullptr;
  config.numAttrs = overlaps ? 1u : 0u;
  const void *fn =
      reinterpret_cast<const void *>(&sg_k_refresh_kernel<KERNEL, LAYOUT, WHOLE, APART>);
  return cudaLaunchKernelExC(&config, fn, args);
}

/* A tile kernel in the layout asked for where the device loaded it. */
template <uint32_t KERNEL, bool WHOLE, bool OVERLAP = false, bool APART = false>
static cudaError_t launch_layout(const void *table, uint32_t group, uint32_t part,
                                 uint32_t layout, const int32_t *noop_flag,
                                 const sg_k_refresh_device *dev, cudaStream_t stream) {
  const bool wide =
      layout == SG_K_LAYOUT_WIDE && blocks_entry<KERNEL, APART>(dev)[SG_K_LAYOUT_WIDE] > 0;
  return wide ? launch_as<KERNEL, SG_K_LAYOUT_WIDE, WHOLE, OVERLAP, APART>(table, group, part,
                                                                           noop_flag, dev, stream)
              : launch_as<KERNEL, SG_K_LAYOUT_NARROW, WHOLE, OVERLAP, APART>(
                    table, group, part, noop_flag, dev, stream);
}

/* The general instance of a tile kernel; the transpose's with the realigned
 * drain where the plan has tiles for it, the cast-transpose's APART one for
 * a part where it moves one, and, wide, where the plan has tiles for its
 * realigned drain. */
template <uint32_t KERNEL, bool OVERLAP = false>
static cudaError_t launch_general(const void *table, uint32_t group, uint32_t part,
                                  uint32_t layout, const sg_k_plan *plan,
                                  const int32_t *noop_flag, const sg_k_refresh_device *dev,
                                  cudaStream_t stream) {
  const bool realign = (plan->realign & (1u << sg_k_list_of(KERNEL))) != 0;
  const bool apart = KERNEL == SG_K_KERNEL_TRANSPOSE ? realign : part != SG_K_PART_ALL || realign;
  if (KERNEL == SG_K_KERNEL_CAST_TRANSPOSE && realign) {
    layout = SG_K_LAYOUT_WIDE;
  }
  return apart ? launch_layout<KERNEL, false, OVERLAP, true>(table, group, part, layout,
                                                             noop_flag, dev, stream)
               : launch_layout<KERNEL, false, OVERLAP>(table, group, part, layout, noop_flag,
                                                       dev, stream);
}

/* A tile kernel as the plan says: the whole instance where every tile of
 * its list (which shares the kernel's number) is whole; split, its whole
 * part so and the rest in the general instance, overlapping the whole
 * part's tail (other parameters' bytes); else the general instance on all
 * of it. */
template <uint32_t KERNEL>
static cudaError_t launch_tiles(const void *table, uint32_t group, const sg_k_plan *plan,
                                const int32_t *noop_flag, const sg_k_refresh_device *dev,
                                cudaStream_t stream) {
  static_assert(sg_k_list_of(KERNEL) == KERNEL, "a tile kernel's list has its number");
  const uint32_t bit = 1u << KERNEL;
  if ((plan->whole & bit) != 0) {
    return launch_layout<KERNEL, true>(table, group, SG_K_PART_ALL, plan->layout, noop_flag, dev,
                                       stream);
  }
  if ((plan->split & bit) != 0) {
    constexpr bool kApart = KERNEL == SG_K_KERNEL_CAST_TRANSPOSE;
    const cudaError_t err = launch_layout<KERNEL, true, false, kApart>(
        table, group, SG_K_PART_WHOLE, plan->layout, noop_flag, dev, stream);
    return err != cudaSuccess
               ? err
               : launch_general<KERNEL, true>(table, group, SG_K_PART_REST, plan->rest_layout,
                                              plan, noop_flag, dev, stream);
  }
  return launch_general<KERNEL>(table, group, SG_K_PART_ALL, plan->layout, plan, noop_flag, dev,
                                stream);
}

/* A block kernel, in the instance that pairs short tiles where the plan
 * says so. */
template <uint32_t KERNEL>
static cudaError_t launch_block(const void *table, uint32_t group, const sg_k_plan *plan,
                                const int32_t *noop_flag, const sg_k_refresh_device *dev,
                                cudaStream_t stream) {
  constexpr uint32_t N = SG_K_LAYOUT_NARROW;
  return plan->pairs != 0
             ? launch_as<KERNEL, N, false, false, true>(table, group, SG_K_PART_ALL, noop_flag,
                                                        dev, stream)
             : launch_as<KERNEL, N>(table, group, SG_K_PART_ALL, noop_flag, dev, stream);
}

static cudaError_t launch_kernel(uint32_t kernel, const void *table, uint32_t group,
                                 const sg_k_plan *plan, const int32_t *noop_flag,
                                 const sg_k_refresh_device *dev, cudaStream_t stream) {
  constexpr uint32_t N = SG_K_LAYOUT_NARROW;
  constexpr uint32_t kAll = SG_K_PART_ALL;
  switch (kernel) {
  case SG_K_KERNEL_TRANSPOSE:
    return launch_tiles<SG_K_KERNEL_TRANSPOSE>(table, group, plan, noop_flag, dev, stream);
  case SG_K_KERNEL_CAST:
    return launch_as<SG_K_KERNEL_CAST, N>(table, group, kAll, noop_flag, dev, stream);
  case SG_K_KERNEL_CAST_TRANSPOSE:
    return launch_tiles<SG_K_KERNEL_CAST_TRANSPOSE>(table, group, plan, noop_flag, dev, stream);
  case SG_K_KERNEL_AMAX:
    return launch_as<SG_K_KERNEL_AMAX, N>(table, group, kAll, noop_flag, dev, stream);
  case SG_K_KERNEL_BLOCK_CAST:
    return launch_block<SG_K_KERNEL_BLOCK_CAST>(table, group, plan, noop_flag, dev, stream);
  case SG_K_KERNEL_BLOCK_CAST_TRANSPOSE:
    return launch_block<SG_K_KERNEL_BLOCK_CAST_TRANSPOSE>(table, group, plan, noop_flag, dev,
                                                          stream);
  case SG_K_KERNEL_GRID: /* after the tiles: the grids are other bytes */
    return launch_as<SG_K_KERNEL_GRID, N, false, true>(table, group, kAll, noop_flag, dev, stream);
  default:
    return cudaErrorInvalidValue;
  }
}

extern "C" cudaError_t sg_k_refresh_launch(const void *device_table, uint32_t mode, uint32_t group,
                                           const sg_k_plan *plan, const int32_t *noop_flag,
                                           const sg_k_refresh_device *device,
                                           cudaStream_t stream) {
  if (device_table == nullptr || plan == nullptr || device == nullptr || device->sm_count < 1 ||
      mode >= SG_K_MODE_COUNT ||
      (plan->layout != SG_K_LAYOUT_NARROW && plan->layout != SG_K_LAYOUT_WIDE) ||
      (plan->split != 0 && plan->rest_layout != SG_K_LAYOUT_NARROW &&
       plan->rest_layout != SG_K_LAYOUT_WIDE)) {
    return cudaErrorInvalidValue;
  }
  uint32_t kernels[3];
  const uint32_t n = sg_k_refresh_kernels(mode, plan, kernels);
  for (uint32_t i = 0; i < n; i++) {
    const cudaError_t err =
        launch_kernel(kernels[i], device_table, group, plan, noop_flag, device, stream);
    if (err != cudaSuccess) {
      return err;
    }
  }
  return cudaSuccess;
}

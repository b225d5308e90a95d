/*
 * stepgraph.h — the stable C ABI of libstepgraph.so.1.
 *
 * A training framework ("the host") loads libstepgraph.so.1 with dlopen,
 * looks up ONE symbol, sg_get_api_v1, and reaches everything else through the
 * function table it returns. The plugin hands the host's training step over to
 * CUDA graphs: pre-capture, capture, replay, a step driver, the FP8 weight
 * transpose refresh after the optimizer step, graph-safe RNG, statistics.
 *
 * This is the only public C header (stepgraph_rng.cuh beside it holds
 * optional device-side helpers for CUDA kernels that use the session's RNG).
 * It needs only <stddef.h> and <stdint.h>:
 * CUDA streams and NCCL communicators appear as the opaque struct pointers that
 * cudaStream_t and ncclComm_t already are, so hosts pass theirs unchanged and
 * bindings (ctypes) see plain pointers.
 *
 * Conventions — every entry follows them; each entry's comment adds its own:
 *  - Status: every entry except status_string returns sg_status (0 = SG_OK).
 *    On an error the session's detail message says exactly what was wrong
 *    ("register_fp8_params: params[3].rows is 0"); read it with last_error.
 *  - struct_size: the table and every argument struct begin with
 *    `size_t struct_size`, which the host sets to sizeof() of the struct as
 *    its header declared it. The plugin rejects a struct smaller than its
 *    ABI 1.0 size, SG_V1_0_SIZE_<type> (SG_ERR_STRUCT_SIZE), accepts any
 *    larger one, and reads or writes a field only where struct_size covers
 *    it (offset + size <= struct_size). New fields and entries are only ever
 *    appended, in an ABI minor version.
 *  - Sizes: SG_V1_0_SIZE_<type>, defined under each struct, is
 *    SG_STRUCT_SIZE_THROUGH(<type>, <its last 1.0 field>): it names the
 *    field, not sizeof, so appending a field never moves it. It is the
 *    smallest struct_size the plugin accepts for the whole of major 1. A
 *    minor that appends to a struct adds SG_V1_<minor>_SIZE_<type> through
 *    its new last field (only for the structs it appends to), which tells the
 *    plugin whether a host's struct has the new fields; no size macro ever
 *    changes once released. On LP64 no 1.0 struct ends in padding, so each
 *    1.0 size is also what sizeof() gave in the 1.0 header; where a later
 *    version of a struct ends in padding, its sizeof() is larger than its
 *    size macro, and the plugin accepts both. The table is filled by the
 *    plugin: before calling an entry that minor 1.N appended, a host checks
 *    api->struct_size >= SG_V1_N_SIZE_sg_api.
 *  - Types: fields and parameters use fixed-width integers; the enums below
 *    only name constants, and are never the type of a field.
 *  - Pointers: "borrowed" means the plugin reads it during the call only;
 *    "kept" means the plugin keeps it until the stated time, and the host owns
 *    it (keeps it valid, frees it after). "device" means CUDA device memory.
 *    "out" marks what the plugin writes.
 *  - Threads: a session may be used from several threads; its entries are
 *    serialised by a per-session lock unless the entry says otherwise. Two
 *    sessions are fully independent.
 *  - Capture: "capture-safe" entries may be called while the given stream is
 *    capturing (a capture owned by the plugin or by the host, for example
 *    torch.cuda.graph); they never synchronise, allocate or read device
 *    memory from the host. Entries marked "not capture-safe" return
 *    SG_ERR_INVALID_STATE while the session is capturing.
 *  - Device: no entry leaves the calling thread's current CUDA device or its
 *    stream-capture mode changed when it returns.
 */
#ifndef STEPGRAPH_H
#define STEPGRAPH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Versions                                                                  */
/* ------------------------------------------------------------------------ */

/* ABI version of this header. The host passes it to sg_get_api_v1. A
 * different major is refused; any minor of the same major is accepted (the
 * plugin reports its own minor, which says which entries and fields exist). */
#define SG_ABI_MAJOR 1
#define SG_ABI_MINOR 1
#define SG_ABI_VERSION ((uint32_t)((SG_ABI_MAJOR << 16) | SG_ABI_MINOR))
#define SG_ABI_VERSION_MAJOR(v) ((uint32_t)(v) >> 16)
#define SG_ABI_VERSION_MINOR(v) ((uint32_t)(v) & 0xffffu)

/* Version of the library this header shipped with, <ABI major>.<ABI
 * minor>.<patch> (docs/ABI.md); the library's file is named
 * libstepgraph.so.<this version>. */
#define SG_LIBRARY_VERSION "1.1.0"

/* The one exported symbol's name, for dlsym. */
#define SG_GET_API_SYMBOL "sg_get_api_v1"

/* The struct_size that covers `type` up to and including `last_field`:
 * what sizeof(type) was in the version whose last field that was, short of
 * any trailing padding (see "Sizes" above). An integer constant expression. */
#define SG_STRUCT_SIZE_THROUGH(type, last_field) \
  (offsetof(type, last_field) + sizeof(((type *)0)->last_field))

#if defined(SG_BUILDING_PLUGIN)
#define SG_EXPORT __attribute__((visibility("default")))
#else
#define SG_EXPORT
#endif

/* ------------------------------------------------------------------------ */
/* Status codes (append-only; 0 is success)                                  */
/* ------------------------------------------------------------------------ */

typedef int32_t sg_status;

enum sg_status_code {
  SG_OK = 0,
  /* Informational, not an error: graphs are off for this step (disabled by
   * STEPGRAPH_DISABLE=1, or the key is eager-only after a failed capture).
   * The host runs the step itself, eagerly. The reason is in last_error and
   * is logged once per key. */
  SG_RUN_EAGERLY = 1,
  SG_ERR_INVALID_ARGUMENT = 2, /* an argument is NULL, out of range, unknown */
  SG_ERR_STRUCT_SIZE = 3,      /* struct_size smaller than the oldest known */
  SG_ERR_VERSION = 4,          /* the host's ABI major is not this plugin's */
  SG_ERR_INVALID_STATE = 5,    /* the entry is not allowed in this state */
  SG_ERR_NOT_SUPPORTED = 6,    /* declared in the ABI, not implemented yet */
  SG_ERR_NO_DEVICE = 7,        /* needs a GPU: validation-only session */
  SG_ERR_CUDA = 8,             /* a CUDA call failed; detail names it */
  SG_ERR_OUT_OF_MEMORY = 9,    /* host or device allocation failed */
  SG_ERR_CAPACITY = 10,        /* a table sized by the config is full */
  SG_ERR_CAPTURE_FAILED = 11,  /* capture_end: the capture was invalidated */
  SG_ERR_NOT_FOUND = 12,       /* no graph for this key */
  SG_ERR_NCCL = 13,            /* NCCL failed, was not found, or the session
                                  is unusable after a communicator failure */
  SG_ERR_TIMEOUT = 14,         /* sync, agreement: a wait ran past its bound */
  SG_ERR_IO = 15,              /* dump_graph: the file could not be written */
  SG_ERR_INTERNAL = 16         /* a bug in the plugin; please report */
};
/* Number of status codes this header knows (status_string covers them all;
 * unknown codes get "unknown status"). */
#define SG_STATUS_COUNT 17

/* ------------------------------------------------------------------------ */
/* Constants                                                                 */
/* ------------------------------------------------------------------------ */

/* sg_session_config.flags */
enum sg_session_flag {
  /* Touch no device at all: registration, every argument check and every
   * state transition work; anything that needs the GPU returns
   * SG_ERR_NO_DEVICE. For checking a configuration on a machine without a
   * GPU, and for the conformance suite. */
  SG_SESSION_VALIDATION_ONLY = 1u << 0,
  /* (ABI 1.1) Debug: the stale-transpose detector, also switched on by
   * STEPGRAPH_CHECK_TRANSPOSES=1 in the environment at session_create. At
   * the start of every step the plugin captures (capture_begin) or runs
   * (the step driver), and wherever the host calls check_transposes, one
   * kernel compares every registered parameter's Wt with transpose(W) byte
   * for byte and counts the mismatching bytes per parameter in device
   * memory. transpose_report, sync and get_stats say which parameter went
   * stale first, in which group, at which check. It costs one read of every
   * W and Wt per step, in the graph (replay itself does nothing more). */
  SG_SESSION_CHECK_TRANSPOSES = 1u << 1
};

/* sg_session_config.capture_mode and sg_capture_args.capture_mode. The
 * numbers are NOT cudaStreamCaptureMode's; the plugin maps them. */
enum sg_capture_mode {
  SG_CAPTURE_THREAD_LOCAL = 0, /* default: other threads unaffected */
  SG_CAPTURE_GLOBAL = 1,       /* any thread's unsafe call invalidates */
  SG_CAPTURE_RELAXED = 2       /* no checks; the host takes responsibility */
};

/* Log levels: sg_session_config.log_level and the callback's level. A message
 * is delivered when its level <= the session's level. The environment
 * variable STEPGRAPH_LOG_LEVEL (a number or off/error/warn/info/debug)
 * overrides the config. */
enum sg_log_level {
  SG_LOG_OFF = 0,
  SG_LOG_ERROR = 1,
  SG_LOG_WARN = 2,
  SG_LOG_INFO = 3,
  SG_LOG_DEBUG = 4
};

/* sg_fp8_param_desc.format */
enum sg_fp8_format { SG_FP8_E4M3 = 0, SG_FP8_E5M2 = 1 };

/* sg_fp8_param_desc.master_dtype */
enum sg_dtype { SG_DTYPE_NONE = 0, SG_DTYPE_FP32 = 1, SG_DTYPE_BF16 = 2 };

/* sg_fp8_param_desc.recipe (ABI 1.1): where the scale W is quantized with
 * comes from. The rules for each are under post_optimizer_step. */
enum sg_fp8_recipe {
  SG_RECIPE_DELAYED = 0, /* the host's *scale (from earlier steps' amax): 1.0 */
  SG_RECIPE_CURRENT = 1, /* one scale per tensor from max|M| of this refresh */
  SG_RECIPE_BLOCK = 2    /* one scale per SG_FP8_BLOCK x SG_FP8_BLOCK block of
                            W from that block's max|M| (DeepSeek-V3's weights) */
};

/* sg_fp8_param_desc.recipe_flags bits (ABI 1.1); unknown bits are refused. */
enum sg_fp8_recipe_flag {
  /* CURRENT and BLOCK: round each computed scale down to a power of two
   * (its mantissa bits cleared), as Transformer Engine's block-scaling
   * recipe does by default; then scale_inv is exact. */
  SG_RECIPE_POW2_SCALES = 1u << 0
};

/* The block edge of SG_RECIPE_BLOCK, in elements: W is cut into blocks of
 * SG_FP8_BLOCK x SG_FP8_BLOCK from its first element (the last block row
 * and column may be partial), the same for every parameter. */
#define SG_FP8_BLOCK 128

/* sg_refresh_args.mode */
enum sg_refresh_mode {
  SG_REFRESH_TRANSPOSE = 0,      /* Wt = transpose(W), a byte permutation */
  SG_REFRESH_CAST = 1,           /* W = sat_fp8(M*s) over the owned range */
  SG_REFRESH_CAST_TRANSPOSE = 2  /* W and Wt from M, whole parameter */
};

/* sg_refresh_args.flags (ABI 1.1; unknown bits refused). */
enum sg_refresh_flag {
  /* After the refresh, reduce the amax of the selected parameters across
   * the session's communicator (MAX), in the same stream work: see
   * post_optimizer_step. Needs a cast mode and a communicator. */
  SG_REFRESH_REDUCE_AMAX = 1u << 0
};

/* sg_session_config.nccl_on_timeout (ABI 1.1): what the plugin does to the
 * communicator when sync or the agreement after a capture times out, or
 * finds an asynchronous NCCL error. */
enum sg_nccl_timeout_action {
  SG_NCCL_TIMEOUT_RETURN = 0, /* default: report it; the host decides */
  SG_NCCL_TIMEOUT_ABORT = 1   /* call comm_abort, then report it */
};

/* sg_fp8_param_desc.group / sg_refresh_args.group: every group. */
#define SG_ALL_GROUPS UINT32_MAX

/* sg_step_context.phase: how the driver is running the callback. */
enum sg_step_phase {
  SG_PHASE_WARMUP = 0,  /* eager warm-up step */
  SG_PHASE_CAPTURE = 1, /* being captured: launches are recorded, not run */
  SG_PHASE_EAGER = 2    /* eager: graphs disabled or capture failed */
};

/* sg_step_args.outcome_out: what the driver did for this step. */
enum sg_step_outcome {
  SG_STEP_WARMUP = 0,   /* ran the callback eagerly (warm-up) */
  SG_STEP_CAPTURED = 1, /* captured it, then launched the graph once */
  SG_STEP_REPLAYED = 2, /* launched the graph */
  SG_STEP_EAGER = 3     /* ran the callback eagerly (fallback/disabled) */
};

/* sg_replay_args.flags (ABI 1.1). */
enum sg_replay_flag {
  /* The static sources may be host memory: see sg_replay_args. */
  SG_REPLAY_HOST_SOURCES = 1u << 0
};

/* sg_step_args.flags (ABI 1.1). */
enum sg_step_flag {
  /* The static sources may be host memory, as SG_REPLAY_HOST_SOURCES. */
  SG_STEP_HOST_SOURCES = 1u << 0
};

/* sg_step_plan.action_out (ABI 1.1): what a host on the manual path does
 * this call. The numbers are those of the sg_step_outcome the driver would
 * report for the same call. */
enum sg_step_action {
  SG_ACTION_WARMUP = 0,  /* run the step eagerly: one of warmup_steps */
  SG_ACTION_CAPTURE = 1, /* (pre_capture,) capture_begin, enqueue the step,
                            capture_end, then replay: the capture only
                            records, the replay runs it */
  SG_ACTION_REPLAY = 2,  /* replay the key's graph */
  SG_ACTION_EAGER = 3    /* run the step eagerly: graphs are off for the
                            key (STEPGRAPH_DISABLE, or a failed capture) */
};

/* What rng_device_state gives in a validation-only session (ABI 1.1):
 * distinct, non-NULL, 8-byte aligned addresses that are never memory. The
 * top byte is set, so they are non-canonical for x86-64 (4- and 5-level
 * paging) and beyond any GPU's virtual address range: a kernel or host
 * code that dereferences one faults at once, instead of reading someone
 * else's memory. Hosts may compare against them; never dereference them. */
#define SG_RNG_PLACEHOLDER_SEED \
  ((const uint64_t *)(uintptr_t)0xdead5eed00000000ull)
#define SG_RNG_PLACEHOLDER_BASE_OFFSET \
  ((const uint64_t *)(uintptr_t)0xdead5eed00000008ull)

/* ------------------------------------------------------------------------ */
/* Opaque and borrowed types                                                 */
/* ------------------------------------------------------------------------ */

/* A session: one device, its registered state, its graphs. Created by
 * session_create, destroyed by session_destroy (NULL is a no-op). */
typedef struct sg_session sg_session;

/* cudaStream_t is `struct CUstream_st *`; pass yours as it is. NULL (the
 * legacy default stream) and the special handle cudaStreamLegacy are
 * refused where a stream is captured or checked: CUDA cannot capture the
 * legacy stream. The special handle cudaStreamPerThread is accepted (ABI
 * 1.1; 1.0 refused it): it names the calling thread's per-thread default
 * stream of the session's device, which the plugin makes current for the
 * call, so a host that launches on cudaStreamPerThread launches there only
 * while that device is current for it too. A host compiled with
 * `--default-stream per-thread` (CUDA_API_PER_THREAD_DEFAULT_STREAM) must
 * pass cudaStreamPerThread, not NULL: the plugin cannot know that NULL
 * means the per-thread stream to the host, and refuses NULL as the legacy
 * stream. A capture on cudaStreamPerThread is the beginning thread's: end
 * it on that thread (capture_end refuses another thread's). */
typedef struct CUstream_st *sg_stream;

/* ncclComm_t is `struct ncclComm *`. */
typedef struct ncclComm *sg_nccl_comm;

/* Log callback. `message` is borrowed for the call. Called from whichever
 * thread is inside the plugin, never concurrently for one session. */
typedef void (*sg_log_fn)(void *user, int32_t level, const char *message);

/* ------------------------------------------------------------------------ */
/* Argument structs                                                          */
/* ------------------------------------------------------------------------ */

/* The host's own NCCL entry points (ABI 1.1), for sessions with a
 * communicator. A communicator works only with the copy of NCCL that
 * created it, so a host should pass the table of that copy with nccl_comm;
 * without one the plugin loads NCCL itself (sg_session_config.nccl).
 *
 * Each field must be the NCCL function named in its comment (or, in tests,
 * a function that behaves like it). The signatures are NCCL's with its
 * enums (ncclResult_t, ncclDataType_t, ncclRedOp_t) as int32_t and int as
 * int32_t; a C host assigns NCCL's functions with a cast to these types.
 * Every field is required (NULL, or beyond struct_size, is refused naming
 * it): a table of ABI 1.0's size lacks the 1.1 fields and is refused.
 * Borrowed for session_create, which checks it; the functions are then
 * called until session_destroy returns, so the table and the library it
 * points into are kept (valid, loaded) until then. The plugin calls them
 * with the session's lock held, from the thread inside the plugin. */
typedef struct sg_nccl_functions {
  size_t struct_size;
  /* ncclAllReduce: the agreement after each capture (eagerly, on a plugin
   * stream) and the refresh's amax reduction (on the host's stream,
   * captured when that stream is capturing). */
  int32_t (*all_reduce)(const void *sendbuff, void *recvbuff, size_t count,
                        int32_t datatype, int32_t op, sg_nccl_comm comm,
                        sg_stream stream);
  /* ncclCommGetAsyncError: polled by sync and by the agreement's wait. */
  int32_t (*comm_get_async_error)(sg_nccl_comm comm, int32_t *async_error);
  /* ncclCommAbort: with SG_NCCL_TIMEOUT_ABORT only. */
  int32_t (*comm_abort)(sg_nccl_comm comm);
  /* --- ABI 1.1 --- */
  /* ncclGetVersion: versions older than 2.9.0 are refused. */
  int32_t (*get_version)(int32_t *version);
  /* ncclCommCount, ncclCommUserRank, ncclCommCuDevice: read once at
   * session_create (the device must be config->device). */
  int32_t (*comm_count)(sg_nccl_comm comm, int32_t *count);
  int32_t (*comm_user_rank)(sg_nccl_comm comm, int32_t *rank);
  int32_t (*comm_cu_device)(sg_nccl_comm comm, int32_t *device);
  /* ncclGetErrorString: NCCL's text in detail messages (a static string). */
  const char *(*get_error_string)(int32_t result);
} sg_nccl_functions;
#define SG_V1_0_SIZE_sg_nccl_functions \
  SG_STRUCT_SIZE_THROUGH(sg_nccl_functions, comm_abort)
#define SG_V1_1_SIZE_sg_nccl_functions \
  SG_STRUCT_SIZE_THROUGH(sg_nccl_functions, get_error_string)

/* session_create's configuration. Borrowed for the call (nothing in it is
 * kept except where a field says so). Zero means "default" everywhere. */
typedef struct sg_session_config {
  size_t struct_size;
  int32_t device;             /* CUDA device ordinal (>= 0) */
  uint32_t flags;             /* sg_session_flag bits; unknown bits refused */
  uint32_t capture_mode;      /* sg_capture_mode */
  uint32_t warmup_steps;      /* step driver's eager steps before capture */
  uint32_t param_capacity;    /* max FP8 params; 0 = 4096. Fixes the device
                                 descriptor table's size for the session */
  uint32_t static_capacity;   /* max static buffers; 0 = 256 */
  int32_t log_level;          /* sg_log_level; default SG_LOG_OFF */
  uint32_t reserved0;         /* must be 0 */
  sg_log_fn log_fn;           /* NULL: messages go to stderr */
  void *log_user;             /* kept until session_destroy; passed back */
  uint64_t rng_seed;          /* Philox seed of the session's RNG */
  uint64_t graph_mem_budget;  /* bytes of graph allocation nodes kept over
                                 all keys; 0 = unlimited */
  /* The communicator of a multi-GPU session (ABI 1.1; 1.0 refused one),
   * NULL for a single-GPU session. Kept until session_destroy, which
   * releases every graph executable (and so every captured collective)
   * before it returns: destroy the sessions first, then the communicator
   * (NCCL 2.26+ blocks ncclCommDestroy while graphs holding its
   * collectives exist). Its device must be config->device. With one,
   * capture_end and the step driver end with an agreement among ranks,
   * post_optimizer_step can reduce amax across ranks, and sync polls the
   * communicator's asynchronous error (docs/MULTI_GPU.md). */
  sg_nccl_comm nccl_comm;
  /* The NCCL of nccl_comm (see sg_nccl_functions), kept until
   * session_destroy; read only with a communicator. NULL: the plugin
   * loads NCCL itself, trying in order dlopen("libnccl.so.2",
   * RTLD_NOW | RTLD_NOLOAD) (the copy the process already loaded, such as
   * PyTorch's), then the file STEPGRAPH_NCCL_LIBRARY names when that is
   * set (and then nothing else), then "libnccl.so.2" from the loader's
   * search path; it logs (info) which file and version it uses. NCCL
   * older than 2.9.0, the first that captures collectives into CUDA
   * graphs, is refused. No NCCL found: SG_ERR_NCCL naming every place
   * tried. */
  const sg_nccl_functions *nccl;
  /* --- ABI 1.1 --- */
  /* Bound on the agreement's wait after each capture, in ms (read only
   * with a communicator). 0 = 600000 (10 minutes, PyTorch's default
   * collective timeout): ranks may reach capture_end far apart when
   * captures are long. */
  uint32_t nccl_timeout_ms;
  /* sg_nccl_timeout_action (0: SG_NCCL_TIMEOUT_RETURN); unknown values
   * refused, with or without a communicator. */
  uint32_t nccl_on_timeout;
} sg_session_config;
#define SG_V1_0_SIZE_sg_session_config \
  SG_STRUCT_SIZE_THROUGH(sg_session_config, nccl)
#define SG_V1_1_SIZE_sg_session_config \
  SG_STRUCT_SIZE_THROUGH(sg_session_config, nccl_on_timeout)

/* One FP8 parameter for register_fp8_params. All pointers are device
 * pointers, kept until session_destroy (the host keeps the memory alive and
 * at the same address; a graph bakes addresses in). Sizes and leading
 * dimensions are in elements. */
typedef struct sg_fp8_param_desc {
  size_t struct_size;
  uint32_t format;       /* sg_fp8_format of W and Wt */
  uint32_t master_dtype; /* sg_dtype of master; SG_DTYPE_NONE: transpose only */
  uint64_t rows, cols;   /* W is [rows, cols]; both >= 1 */
  void *data;            /* W, row-major FP8 codes; required */
  uint64_t ld_data;      /* >= cols */
  void *transpose;       /* Wt [cols, rows], row-major; required */
  uint64_t ld_transpose; /* >= rows */
  const void *master;    /* M [rows, cols]; required iff master_dtype != NONE */
  uint64_t ld_master;    /* >= cols */
  const float *scale;    /* s: W = sat_fp8(M*s); cast modes */
  float *scale_inv;      /* out: 1/s; cast modes */
  float *amax;           /* out: max|M| over the cast range; cast modes */
  uint64_t range_begin;  /* cast mode: flat row-major element range */
  uint64_t range_end;    /* [begin, end) this rank owns; end == 0: whole */
  uint32_t group;        /* parameter group (bucket) id; not SG_ALL_GROUPS */
  uint32_t reserved0;    /* must be 0 */
  /* --- ABI 1.1. A 1.0 host's shorter struct reads as zeros here: delayed
   * scaling, exactly the 1.0 behaviour. Which pointers each recipe needs
   * (NULL is refused where required and where not used, naming the field):
   *   DELAYED  master optional; with it scale, scale_inv, amax; no grids.
   *   CURRENT  master required; scale_inv and amax; scale NULL (the launch
   *            computes it); no grids; no owned range (see below).
   *   BLOCK    master optional (without one, transpose mode only, for a W
   *            the host quantized); block_scale_inv and block_scale_inv_t
   *            required; scale, scale_inv and amax NULL; no owned range.
   * The owned range of the sharded cast mode (range_begin/range_end) is
   * refused with CURRENT and BLOCK (SG_ERR_NOT_SUPPORTED): their scales
   * need the amax of the whole tensor (CURRENT, a cross-rank reduction
   * between the amax and the cast) or of whole 128 x 128 blocks (BLOCK),
   * which a flat row-major range cuts. Cast such parameters whole on every
   * rank, or quantize them as the host likes and refresh Wt in transpose
   * mode. The grids are FP32 device arrays, kept until session_destroy
   * like the other pointers, and must not overlap any registered memory. */
  uint32_t recipe;       /* sg_fp8_recipe; 0 = SG_RECIPE_DELAYED */
  uint32_t recipe_flags; /* sg_fp8_recipe_flag bits; must be 0 with DELAYED */
  /* BLOCK: W's grid, [ceil(rows/128)][ceil(cols/128)]: element [i][j] is
   * 1/s of W's block (i, j). Out in the cast modes, in (read) in transpose
   * mode. */
  float *block_scale_inv;
  uint64_t ld_block_scale_inv;   /* floats between grid rows; 0: dense,
                                    ceil(cols/128); else >= that */
  /* BLOCK: Wt's grid, [ceil(cols/128)][ceil(rows/128)], the transpose of
   * W's: element [j][i] is W's [i][j]. Out in cast-transpose and transpose
   * modes. (Transformer Engine pads both grids' rows to a multiple of 4
   * floats: pass that as the ld.) */
  float *block_scale_inv_t;
  uint64_t ld_block_scale_inv_t; /* 0: dense, ceil(rows/128); else >= that */
} sg_fp8_param_desc;
#define SG_V1_0_SIZE_sg_fp8_param_desc \
  SG_STRUCT_SIZE_THROUGH(sg_fp8_param_desc, reserved0)
#define SG_V1_1_SIZE_sg_fp8_param_desc \
  SG_STRUCT_SIZE_THROUGH(sg_fp8_param_desc, ld_block_scale_inv_t)

/* A static buffer: device memory a graph reads at a fixed address, which
 * replay can fill from a host-chosen source first. Kept until destroy. */
typedef struct sg_static_buffer_desc {
  size_t struct_size;
  void *data;     /* device pointer; required */
  uint64_t bytes; /* >= 1 */
} sg_static_buffer_desc;
#define SG_V1_0_SIZE_sg_static_buffer_desc \
  SG_STRUCT_SIZE_THROUGH(sg_static_buffer_desc, bytes)

/* capture_begin / capture_end. */
typedef struct sg_capture_args {
  size_t struct_size;
  uint64_t key;          /* the host's name for this graph (shape bucket) */
  sg_stream stream;      /* the capture stream; not NULL/cudaStreamLegacy */
  uint32_t capture_mode; /* sg_capture_mode; used by capture_begin only */
  uint32_t flags;        /* must be 0 */
} sg_capture_args;
#define SG_V1_0_SIZE_sg_capture_args \
  SG_STRUCT_SIZE_THROUGH(sg_capture_args, flags)

/* replay. */
typedef struct sg_replay_args {
  size_t struct_size;
  uint64_t key;
  sg_stream stream;
  /* Optional: sources[i] (or NULL for none) is copied into static buffer i
   * before the launch, registered size bytes, on `stream`, by one batched
   * copy kernel (one launch per 64 sources), ordered before the graph and
   * with no host synchronisation. The array is borrowed for the call; the
   * copy reads the sources when it runs on the stream, not during the call
   * (like cudaMemcpyAsync): the host keeps each source unchanged until the
   * work replay enqueued has run (an event recorded after replay says
   * when), or gives each step in flight its own source slot.
   * Without SG_REPLAY_HOST_SOURCES every source is device memory of the
   * session's device (not checked: the ABI 1.0 contract). */
  const void *const *static_sources;
  uint32_t static_source_count; /* <= number of registered static buffers */
  /* sg_replay_flag bits; 0 in ABI 1.0, other bits refused.
   * SG_REPLAY_HOST_SOURCES: each non-NULL source is looked up with
   * cudaPointerGetAttributes at every call. Page-locked host memory
   * (cudaMallocHost, cudaHostAlloc, cudaHostRegister) is read by the copy
   * kernel through the device address CUDA gives for it (zero-copy over
   * the bus, in the same launch as device sources); device memory of the
   * session's device is read as it is; pageable host memory (malloc, the
   * stack: the kernel could not read it) and other devices' memory are
   * refused, SG_ERR_INVALID_ARGUMENT naming args->static_sources[i], and
   * then nothing is copied or launched. Each host source must hold the
   * static buffer's registered size (CUDA cannot tell its size). */
  uint32_t flags;
} sg_replay_args;
#define SG_V1_0_SIZE_sg_replay_args \
  SG_STRUCT_SIZE_THROUGH(sg_replay_args, flags)

/* post_optimizer_step. */
typedef struct sg_refresh_args {
  size_t struct_size;
  uint32_t mode;             /* sg_refresh_mode */
  uint32_t group;            /* one group id, or SG_ALL_GROUPS */
  const int32_t *noop_flag;  /* device int32, read by the kernel; NULL, or
                                nonzero => the launch does nothing */
  uint32_t flags;            /* sg_refresh_flag bits (ABI 1.1); 0: none */
  uint32_t reserved0;        /* must be 0 */
} sg_refresh_args;
#define SG_V1_0_SIZE_sg_refresh_args \
  SG_STRUCT_SIZE_THROUGH(sg_refresh_args, reserved0)

/* Handed to the step callback. Borrowed for the callback's duration. */
typedef struct sg_step_context {
  size_t struct_size;
  sg_session *session;
  uint64_t key;
  uint64_t step_index; /* driver calls so far for this key, from 0 */
  uint32_t phase;      /* sg_step_phase */
  uint32_t reserved0;
} sg_step_context;
#define SG_V1_0_SIZE_sg_step_context \
  SG_STRUCT_SIZE_THROUGH(sg_step_context, reserved0)

/* The host's step. Launches its work on `stream` only (or on streams forked
 * from it and joined back). Returns SG_OK, or any other status to abort the
 * driver call with it. */
typedef sg_status (*sg_step_fn)(void *user, sg_stream stream,
                                const sg_step_context *ctx);

/* step (the driver). */
typedef struct sg_step_args {
  size_t struct_size;
  uint64_t key;
  sg_stream stream;
  sg_step_fn fn;        /* required */
  void *user;           /* passed back to fn */
  uint32_t outcome_out; /* out: sg_step_outcome */
  uint32_t reserved0;
  /* ABI 1.1 (zero: none, the 1.0 behaviour). Static sources, as in
   * sg_replay_args (same rules, lifetime and checks; SG_STEP_HOST_SOURCES
   * is SG_REPLAY_HOST_SOURCES): copied on `stream` before the step in every
   * phase, so fn's work sees them whether it runs eagerly (warm-up or
   * fallback), is captured (the copy runs before capture begins and is not
   * part of the graph) or is replayed. */
  const void *const *static_sources;
  uint32_t static_source_count; /* <= number of registered static buffers */
  uint32_t flags;               /* sg_step_flag bits; others refused */
} sg_step_args;
#define SG_V1_0_SIZE_sg_step_args \
  SG_STRUCT_SIZE_THROUGH(sg_step_args, reserved0)
#define SG_V1_1_SIZE_sg_step_args SG_STRUCT_SIZE_THROUGH(sg_step_args, flags)

/* step_plan (ABI 1.1): the step driver's decision, for a host that
 * captures and replays itself. */
typedef struct sg_step_plan {
  size_t struct_size;
  uint64_t key;             /* in */
  uint32_t action_out;      /* out: sg_step_action */
  uint32_t pre_capture_out; /* out: 1 when action_out is SG_ACTION_CAPTURE
                               and the session needs pre_capture before
                               capture_begin (never called, or registered
                               since); else 0 */
  uint64_t step_index_out;  /* out: the key's steps counted before this
                               call (driver steps and step_plan calls) */
} sg_step_plan;
/* New in 1.1: its smallest struct_size is its 1.1 size. */
#define SG_V1_1_SIZE_sg_step_plan \
  SG_STRUCT_SIZE_THROUGH(sg_step_plan, step_index_out)

/* RNG state for checkpoints (rng_get_state / rng_set_state). */
typedef struct sg_rng_state {
  size_t struct_size;
  uint64_t seed;
  uint64_t offset; /* base offset: advanced by each end-of-step */
} sg_rng_state;
#define SG_V1_0_SIZE_sg_rng_state SG_STRUCT_SIZE_THROUGH(sg_rng_state, offset)

/* Where the RNG state lives on the device (rng_device_state). Kernels read
 * *seed and *base_offset and add the offset rng_reserve returned; the
 * device-side helpers of stepgraph_rng.cuh do exactly that. In a
 * validation-only session both are the SG_RNG_PLACEHOLDER_* addresses. */
typedef struct sg_rng_device_state {
  size_t struct_size;
  const uint64_t *seed;        /* out: device pointer, valid until destroy */
  const uint64_t *base_offset; /* out: device pointer, valid until destroy */
} sg_rng_device_state;
#define SG_V1_0_SIZE_sg_rng_device_state \
  SG_STRUCT_SIZE_THROUGH(sg_rng_device_state, base_offset)

/* Session statistics (get_stats): counters since session_create. */
typedef struct sg_stats {
  size_t struct_size;
  uint64_t captures;          /* capture_end calls that produced a graph */
  uint64_t capture_failures;  /* capture_end calls that failed */
  uint64_t exec_updates;      /* re-captures applied with cudaGraphExecUpdate */
  uint64_t instantiations;    /* graph execs instantiated (incl. re-) */
  uint64_t replays;           /* graph launches by replay and the driver */
  uint64_t eager_runs;        /* SG_RUN_EAGERLY answers and SG_STEP_EAGER
                                 driver steps (not warm-ups) */
  uint64_t invalidations;     /* keys dropped by invalidate */
  uint64_t evictions;         /* keys dropped under graph_mem_budget */
  uint64_t refreshes;         /* post_optimizer_step launches */
  uint64_t graphs;            /* live graphs now */
  uint64_t graph_nodes;       /* nodes over live graphs now */
  uint64_t graph_alloc_bytes; /* bytes of live graphs' allocation nodes */
  uint64_t fp8_params;        /* registered FP8 parameters */
  uint64_t static_buffers;    /* registered static buffers */
  double capture_ms;          /* total time inside capture_begin..end */
  double instantiate_ms;      /* total time instantiating and updating */
  /* ABI 1.1: conditional regions (guard_begin, loop_begin). */
  uint64_t guards;            /* guards opened, eager or captured */
  uint64_t guards_skipped;    /* eager guards whose flag said skip */
  uint64_t loops;             /* loops opened, eager or captured */
  uint64_t conditional_nodes; /* IF and WHILE nodes over live graphs now */
  /* ABI 1.1: the stale-transpose detector, as of the last sync or
   * transpose_report that read it (get_stats itself reads no device
   * memory); all 0 / none while the detector is off. */
  uint64_t transpose_checks;  /* checks run */
  uint64_t stale_params;      /* parameters found stale in some check */
  uint64_t first_stale_check; /* the check (0-based) that first found one;
                                 UINT64_MAX: none */
  uint32_t first_stale_param; /* its index (registration order), lowest
                                 among those stale at that check;
                                 UINT32_MAX: none */
  uint32_t first_stale_group; /* its group; UINT32_MAX: none */
} sg_stats;
#define SG_V1_0_SIZE_sg_stats SG_STRUCT_SIZE_THROUGH(sg_stats, instantiate_ms)
#define SG_V1_1_SIZE_sg_stats \
  SG_STRUCT_SIZE_THROUGH(sg_stats, first_stale_group)

/* One key's graph (graph_info). */
typedef struct sg_graph_info {
  size_t struct_size;
  uint64_t nodes;       /* out */
  uint64_t alloc_bytes; /* out: bytes of its allocation nodes */
  uint64_t replays;     /* out */
  uint32_t eager_only;  /* out: 1 after a failed capture or when graphs
                           are disabled (then nodes is 0) */
  uint32_t reserved0;
  uint64_t conditional_nodes; /* out (ABI 1.1): its IF and WHILE nodes
                                 (guards and loops); `nodes` counts their
                                 bodies' nodes once each */
} sg_graph_info;
#define SG_V1_0_SIZE_sg_graph_info \
  SG_STRUCT_SIZE_THROUGH(sg_graph_info, reserved0)
#define SG_V1_1_SIZE_sg_graph_info \
  SG_STRUCT_SIZE_THROUGH(sg_graph_info, conditional_nodes)

/* (ABI 1.1) transpose_report: the stale-transpose detector's findings. */
typedef struct sg_transpose_report {
  size_t struct_size;
  uint32_t enabled;           /* out: 1 when the session's detector is on */
  uint32_t stale_params;      /* out: parameters found stale in some check */
  uint64_t checks;            /* out: checks run so far */
  uint64_t first_stale_check; /* out: the check (0-based: with one check a
                                 step, the step) that first found a stale
                                 parameter; UINT64_MAX: none */
  uint32_t first_stale_param; /* out: its index in registration order (the
                                 lowest of those stale at that check);
                                 UINT32_MAX: none */
  uint32_t first_stale_group; /* out: its group; UINT32_MAX: none */
  /* in: optional host array of mismatch_capacity counters (borrowed for
   * the call), or NULL. out: mismatches[i] = bytes of parameter i's Wt
   * that differed from transpose(W), summed over all checks, for i below
   * both mismatch_capacity and the registered count. */
  uint64_t *mismatches;
  uint32_t mismatch_capacity; /* in: elements of mismatches */
  uint32_t reserved0;         /* in: must be 0 */
} sg_transpose_report;
/* New in 1.1: its smallest struct_size is its 1.1 size. */
#define SG_V1_1_SIZE_sg_transpose_report \
  SG_STRUCT_SIZE_THROUGH(sg_transpose_report, reserved0)

/* sg_get_api_v1's arguments. */
typedef struct sg_get_api_args {
  size_t struct_size;
  uint32_t host_abi_version;    /* SG_ABI_VERSION of the host's header */
  uint32_t plugin_abi_version;  /* out: the plugin's major<<16 | minor */
  const struct sg_api *api;     /* out: the table; static, never freed */
  const char *library_version;  /* out: static string, e.g. "1.0.0" */
  const char *error;            /* out: on failure, why (static storage of
                                   the calling thread, valid until its next
                                   call into the plugin); else NULL */
} sg_get_api_args;
#define SG_V1_0_SIZE_sg_get_api_args \
  SG_STRUCT_SIZE_THROUGH(sg_get_api_args, error)

/* ------------------------------------------------------------------------ */
/* The function table                                                        */
/* ------------------------------------------------------------------------ */

typedef struct sg_api {
  size_t struct_size;     /* sizeof(sg_api) of the plugin: its entries */
  uint32_t abi_version;   /* plugin's major<<16 | minor */
  uint32_t reserved0;
  const char *library_version; /* static */

  /* --- Diagnostics ----------------------------------------------------- */

  /* A static English string for any status (unknown codes included). Never
   * NULL. Thread-safe, capture-safe, no session needed. */
  const char *(*status_string)(sg_status status);

  /* Copies the detail message of the session's last failed entry (or, with
   * session NULL, of the calling thread's last failure that had no session:
   * session_create, sg_get_api_v1, an entry given a NULL session) into buf,
   * NUL-terminated, truncated to buf_size-1 bytes; *needed_out (optional)
   * gets strlen of the full message. buf may be NULL
   * when buf_size is 0. An entry that succeeds leaves the message as it was.
   * Thread-safe; capture-safe.
   *
   * A session has ONE message, not one per thread: any entry on the session
   * that returns something other than SG_OK (SG_RUN_EAGERLY included), on
   * any thread, replaces it. last_error does not take the session's entry
   * lock, so when two threads use one session, the message read after a
   * failure may already be another thread's (as with sqlite3_errmsg on a
   * shared connection). A multithreaded host that needs the message of its
   * own call either serialises its calls on the session together with the
   * last_error that follows (its own lock around both), or uses one session
   * per thread, or takes the message from the log callback: with the
   * session's log level at SG_LOG_ERROR or more, every failing entry on
   * the session except last_error itself delivers exactly its own message
   * at SG_LOG_ERROR, on the failing thread, inside the failing call. The
   * session-less message (session NULL) is per thread, so it is never
   * another thread's. */
  sg_status (*last_error)(sg_session *session, char *buf,
                          size_t buf_size, size_t *needed_out);

  /* --- Session lifecycle ------------------------------------------------ */

  /* Creates a session on config->device (not validation-only: makes the
   * device's primary context current for the call, allocates the device
   * tables and RNG state). Without a usable GPU it fails with SG_ERR_CUDA
   * (or SG_ERR_INVALID_ARGUMENT for a bad ordinal), naming the CUDA error,
   * and leaks nothing. With config->nccl_comm (ABI 1.1) it also checks the
   * NCCL table (or loads NCCL), the version, and reads the communicator's
   * rank, size and device (also in validation-only sessions, which call
   * only those host functions); failures are SG_ERR_NCCL naming the call
   * and NCCL's text, or SG_ERR_INVALID_ARGUMENT / SG_ERR_STRUCT_SIZE naming
   * the field. *session_out: out, NULL on failure. Thread-safe. Not
   * capture-safe (allocates). */
  sg_status (*session_create)(const sg_session_config *config,
                              sg_session **session_out);

  /* Destroys the session: graph execs first, then graphs, device tables,
   * RNG state. NULL is a no-op. The host must not use the session during or
   * after the call; work already enqueued that uses its tables must have
   * completed or be ordered before (destroy synchronises the device only
   * through freeing memory, as cudaFree does). Every graph executable is
   * released before it returns, so that a multi-GPU host can then destroy
   * its communicator: destroy sessions first, then communicators. A
   * collective of the plugin still in flight (an agreement that timed out
   * without SG_NCCL_TIMEOUT_ABORT) is waited for by that freeing: abort the
   * communicator first when a peer is gone. Works on a session made
   * unusable by a communicator failure. */
  void (*session_destroy)(sg_session *session);

  /* --- Registration (not capture-safe; before the first capture) --------- */

  /* Appends `count` FP8 parameters. `params` is an array whose element
   * stride is params[0].struct_size; every element must carry the same
   * struct_size. Validates all of them first — NULL where required, zero or
   * overflowing sizes, leading dimensions < width, unknown format or dtype,
   * a cast range outside the parameter, any two of W, Wt, master, scale,
   * scale_inv and amax overlapping (within one descriptor, or against any
   * registered one) — and on any error registers none (the detail names the
   * element and field). Then copies the session's two device descriptor
   * tables (grouped, and merged for launches of all groups; about 280
   * bytes a parameter each), which stay at one address for the session's
   * life (their capacity is the config's param_capacity), so graphs
   * captured earlier by the host see
   * the new parameters; the copy is waited for, and no refresh of this
   * session may be in flight meanwhile. SG_ERR_CAPACITY when full. After
   * the session's first capture_begin: SG_ERR_INVALID_STATE.
   * *first_index_out (optional, out): index of params[0] in the session's
   * order. */
  sg_status (*register_fp8_params)(sg_session *session,
                                   const sg_fp8_param_desc *params,
                                   uint32_t count, uint32_t *first_index_out);

  /* Appends static buffers (stride and validation as above; buffers must
   * not overlap each other). *first_index_out (optional, out): index of
   * buffers[0], the index replay's static_sources uses. */
  sg_status (*register_static_buffers)(sg_session *session,
                                       const sg_static_buffer_desc *buffers,
                                       uint32_t count,
                                       uint32_t *first_index_out);

  /* --- Pre-capture, capture ------------------------------------------- */

  /* The pre-capture hook: call after the host's warm-up, before capture.
   * Checks that every registered pointer is still device memory of the
   * session's device, checks `stream` (not NULL/cudaStreamLegacy, not
   * capturing, on the session's device), uploads the device table ordered
   * on `stream`, and waits for that stream only — never the whole device,
   * which would break a capture running on another thread. Not
   * capture-safe. Validation-only sessions do every host-side check and
   * the state transition, and skip the stream's device checks. */
  sg_status (*pre_capture)(sg_session *session, sg_stream stream);

  /* Begins capturing args->key on args->stream (stream capture mode
   * args->capture_mode; 0 is thread-local). Requires pre_capture; the first
   * capture_begin closes registration. The host then enqueues one step on
   * the stream (and on streams forked from it and joined back); nothing of
   * it runs until the key is replayed: capture records, it does not
   * execute. Returns SG_RUN_EAGERLY when graphs are disabled
   * (STEPGRAPH_DISABLE=1 when the session was created) or the key is
   * eager-only after a failed capture: the host then runs the step itself.
   * SG_ERR_INVALID_STATE when the stream is already capturing, or (ABI
   * 1.1) when a guard or loop opened eagerly is still open (they are
   * closed), SG_ERR_INVALID_ARGUMENT when it belongs to another device.
   * With the stale-transpose detector on, the check is the capture's first
   * node. One capture
   * per session at a time; capture_end must come from the same thread
   * unless the mode is relaxed. */
  sg_status (*capture_begin)(sg_session *session, const sg_capture_args *args);

  /* Ends the capture begun on args->stream for args->key (always: the
   * session is READY again) and instantiates the key's graph — or, when the
   * key already has an executable and the new graph has the same topology
   * and no allocation nodes, updates that executable in place
   * (cudaGraphExecUpdate, ~20x cheaper), re-instantiating if CUDA refuses.
   * Graphs with allocation nodes (cudaMallocAsync during capture) are
   * instantiated with AutoFreeOnLaunch; every executable is uploaded on the
   * capture stream. With config.graph_mem_budget set, the least recently
   * replayed other graphs with allocation nodes are evicted until the new
   * one fits, and freed memory is trimmed back to the device. On a failed
   * capture: SG_ERR_CAPTURE_FAILED naming the CUDA error and its usual
   * cause; the partial graph and the key's old graph are destroyed, the
   * stream is usable, nothing leaks, the step's RNG reservations are rolled
   * back, and the key becomes eager-only (until invalidate).
   *
   * With a communicator (ABI 1.1) capture_end then runs the agreement,
   * before the graph can be replayed: this rank's outcome (capture and
   * instantiation succeeded or not) goes into one all_reduce among all
   * ranks, eagerly, on a plugin stream ordered after the work already on
   * args->stream, waited for by polling it and comm_get_async_error for up
   * to config.nccl_timeout_ms. When every rank succeeded: SG_OK. When any
   * failed, every rank drops the key's graph and marks the key eager-only
   * (until invalidate); a rank that failed returns SG_ERR_CAPTURE_FAILED
   * (also when instantiation was the failure) with its cause, the others
   * SG_RUN_EAGERLY, whose detail names the failed rank(s) and the key; all
   * then run that step eagerly. The wait timing out: SG_ERR_TIMEOUT; an
   * NCCL error: SG_ERR_NCCL; the key is eager-only in both cases. The
   * contract: every rank captures the same keys in the same order (and
   * invalidates alike), and the collectives a host captures have run
   * eagerly once before (NCCL connects lazily). */
  sg_status (*capture_end)(sg_session *session, const sg_capture_args *args);

  /* Drops the key's graph and executable (the host reallocated memory it
   * baked in) and clears an eager-only mark; the next capture of the key
   * starts fresh. SG_ERR_NOT_FOUND if the key has no graph (never captured,
   * or evicted). Not capture-safe. */
  sg_status (*invalidate)(sg_session *session, uint64_t key);

  /* --- The refresh hook ----------------------------------------------- */

  /* Post-optimizer-step FP8 refresh of every registered parameter (or one
   * group) in one kernel launch (per recipe, below) on `stream` (any stream, the legacy one
   * included). Capture-safe: no allocation, no synchronisation, no host read
   * of device memory. A launch into a capture (the host's, or the plugin's)
   * closes registration, as capture_begin does: the captured kernels were
   * chosen for the parameters registered then (their recipes, and whether
   * every tile is a whole aligned 128 x 128 one).
   * Launches of one session must be ordered (one stream, or joined by
   * events): they share per-parameter scratch in the table. Semantics:
   *  TRANSPOSE:      Wt[j][i] = W[i][j] (bytes; nothing re-quantized).
   *  CAST:           over the owned range: W = sat_fp8(M*s);
   *                  *amax = max|M| over that range; *scale_inv = 1/s.
   *  CAST_TRANSPOSE: over the whole parameter: W, Wt, amax, scale_inv.
   * M*s is one IEEE fp32 multiply (round to nearest even), 1/s one IEEE
   * division; BF16 masters are widened exactly. The conversion equals
   * __nv_cvt_float_to_fp8(x, __NV_SATFINITE, fmt): round to nearest even;
   * magnitudes past the largest finite value, and +-inf, saturate to
   * +-448 (E4M3, codes 0x7E/0xFE) or +-57344 (E5M2, 0x7B/0xFB); NaN becomes
   * 0x7F in both formats; magnitudes up to half the smallest subnormal
   * become a zero of the input's sign. amax is written, not accumulated (no
   * need to zero it); a NaN in M makes it NaN. Scales that are zero,
   * negative or non-finite are not special-cased: the outputs are what that
   * arithmetic gives (a NaN scale gives a NaN scale_inv and 0x7F codes).
   * Cast modes require every selected parameter to have a master
   * (SG_ERR_INVALID_STATE otherwise); an unknown group is
   * SG_ERR_INVALID_ARGUMENT. With no parameters registered nothing is
   * launched.
   * Recipes (ABI 1.1, sg_fp8_param_desc.recipe) change where s comes from
   * in the cast modes; TRANSPOSE stays a byte permutation for all of them.
   *  DELAYED: s = *scale, as above.
   *  CURRENT: s = scale_of(max|M| over the whole parameter), computed on
   *           the device from the masters being cast; then W (and Wt),
   *           *amax = that max|M| and *scale_inv = 1/s as above.
   *  BLOCK:   for each 128 x 128 block b of W (partial at the edges),
   *           s_b = scale_of(max|M| over b) and W's codes in b are
   *           sat_fp8(M*s_b); block_scale_inv[i][j] = 1/s_b of block (i, j);
   *           CAST_TRANSPOSE also writes Wt and block_scale_inv_t[j][i].
   *           TRANSPOSE writes Wt and block_scale_inv_t from W's grid.
   *           scale_inv and amax are not used.
   *  scale_of(a), a = max|M| as a float: 1 when a is 0, +inf or NaN; else
   *  FP8_MAX / a (one IEEE division; FP8_MAX is 448 for E4M3, 57344 for
   *  E5M2), FLT_MAX where that overflows to +inf (a subnormal a); with
   *  SG_RECIPE_POW2_SCALES, then rounded down to a power of two. (A NaN in
   *  M thus gives scale 1: the NaN's code is 0x7F and *amax is NaN.)
   * Launches: a launch runs the kernels its selected parameters need, in
   * this order on `stream`, each capture-safe and reading the no-op flag
   * and the group itself: TRANSPOSE one (two where the selected
   * parameters are mostly, not all, of whole 128 x 128 tiles: those, then
   * the rest), and, with BLOCK parameters of whole tiles, one more that
   * moves their scale_inv grids; the cast modes one per recipe present, plus for
   * CURRENT an amax pass before the cast (so a delayed or block set is one
   * launch, a current set two, a mix up to three). Which
   * kernels run is decided from the parameters registered at the call.
   * The transpose's kernels allow programmatic dependent launch: a kernel
   * the host launches with cudaLaunchAttributeProgrammaticStreamSerialization
   * right after the refresh may start before the refresh ends, and must
   * wait (cudaGridDependencySynchronize) before it reads what the refresh
   * writes, as any such kernel must; other stream work is ordered as usual.
   *
   * SG_REFRESH_REDUCE_AMAX (ABI 1.1) then makes every selected parameter's
   * amax the MAX over the ranks of the session's communicator, in the same
   * stream work and with one collective for all of them: a kernel gathers
   * their amax into a plugin buffer, one all_reduce of MAX over the amax
   * bit patterns as uint32 (for the non-negative amax that orders like the
   * values, and a NaN still wins as it does locally), a kernel scatters
   * them back. It adds two small kernels and one all-reduce of 4 bytes per
   * registered parameter in the span from the first to the last selected
   * one. Capture-safe (the collective is captured with the stream). With a
   * sharded optimizer (CAST over each rank's range) this is the amax of the
   * whole parameter, as delayed scaling needs; every rank must make the
   * same call. A noop_flag does not skip the reduction (a collective cannot
   * be skipped on one rank): it then reduces the unchanged values. Needs a
   * cast mode and selected parameters of the delayed recipe only, whose
   * scales come from amax (SG_ERR_INVALID_ARGUMENT: a current-scaling cast
   * has used its own rank's amax already, block scaling keeps none), and a
   * communicator (SG_ERR_INVALID_STATE). */
  sg_status (*post_optimizer_step)(sg_session *session, sg_stream stream,
                                   const sg_refresh_args *args);

  /* --- Replay, step driver ---------------------------------------------- */

  /* Launches args->key's graph on args->stream: one graph launch, no host
   * synchronisation, no allocation. Static sources given are copied first
   * by one batched copy kernel per 64 sources, on the same stream (see
   * sg_replay_args). SG_RUN_EAGERLY for an eager-only key: the sources are
   * copied all the same (ABI 1.1; 1.0 copied nothing), so the step the
   * host then runs eagerly reads the same static buffers a replay would;
   * SG_ERR_INVALID_STATE when the key was never captured (or was evicted or
   * invalidated), and nothing is copied. Not capture-safe. */
  sg_status (*replay)(sg_session *session, const sg_replay_args *args);

  /* Runs exactly one step of args->fn: the first config.warmup_steps calls
   * for a key eagerly, the next captures then launches the graph, later
   * calls replay (calling pre_capture itself when the session is not
   * READY); after a capture failure it runs fn eagerly, in the same call
   * and from then on, and logs the reason once. If fn fails while being
   * captured, the capture is discarded and fn's status returned.
   * args->outcome_out says what happened (written on SG_OK only);
   * ctx->step_index counts the key's successful driver calls (and its
   * step_plan calls). Static sources (ABI 1.1) are copied first, in every
   * phase (see sg_step_args). (ABI 1.1) With the stale-transpose detector
   * on, each step begins with the check, eager or captured. fn may use
   * guards and loops; one it leaves open fails the call with
   * SG_ERR_INVALID_STATE (and is closed). With a communicator (ABI 1.1)
   * the capture ends with capture_end's agreement: when another rank
   * failed, this call runs fn eagerly (SG_STEP_EAGER) as after its own
   * failure; if fn fails while being captured, this rank still takes part
   * in the agreement, as a failure. SG_ERR_TIMEOUT and SG_ERR_NCCL from
   * the agreement are returned (the step did not run). */
  sg_status (*step)(sg_session *session, sg_step_args *args);

  /* --- Graph-safe RNG -------------------------------------------------- */

  /* Reserves `count` Philox counters for one kernel of the current step;
   * *offset_out gets its offset within the step (the same sequence of
   * values every step, so it may be baked into a graph). Host-only
   * bookkeeping; capture-safe. A counter is one Philox4x32-10 block: 128
   * random bits for each of 2^64 subsequences. The kernel owns counters
   * [*base_offset + offset, ... + count) of this step, under every
   * subsequence: stepgraph_rng.cuh's sg_rng_draw(state, i, subsequence)
   * gives 4 words for i < count (a thread index for a subsequence is the
   * usual choice). Reserving 1 counter is therefore enough for a kernel
   * that wants one seed per launch (sg_rng_seed64/sg_rng_seed32: fresh
   * every step, distinct between the step's kernels, the same in eager and
   * replayed runs), or 4 words per thread. */
  sg_status (*rng_reserve)(sg_session *session, uint64_t count,
                           uint64_t *offset_out);

  /* End of step: enqueues one tiny kernel on `stream` that adds the step's
   * reserved total to the device base offset, and restarts the in-step
   * offsets at 0. Capture-safe (captured into the graph, it costs replay
   * nothing extra). Validation-only sessions (ABI 1.1; 1.0 said
   * SG_ERR_NO_DEVICE) enqueue nothing: they add the total to a host-side
   * base offset, which rng_get_state reports, and restart the offsets. */
  sg_status (*rng_end_step)(sg_session *session, sg_stream stream);

  /* Device pointers of seed and base offset (out). Thread-safe. In a
   * validation-only session (ABI 1.1; 1.0 said SG_ERR_NO_DEVICE):
   * SG_RNG_PLACEHOLDER_SEED and SG_RNG_PLACEHOLDER_BASE_OFFSET, which
   * kernels never run to read, so that a host can wire them up. */
  sg_status (*rng_device_state)(sg_session *session,
                                sg_rng_device_state *out);

  /* Checkpoint: reads/writes seed and base offset (synchronous copies on a
   * plugin stream after `stream`'s work). Not capture-safe. Validation-only
   * sessions (ABI 1.1; 1.0 said SG_ERR_NO_DEVICE) check `stream` as the
   * others do and read/write their host-side state (seed from the config,
   * base offset 0 at creation, advanced by rng_end_step). */
  sg_status (*rng_get_state)(sg_session *session, sg_stream stream,
                             sg_rng_state *out);
  sg_status (*rng_set_state)(sg_session *session, sg_stream stream,
                             const sg_rng_state *state);

  /* --- Statistics, dump -------------------------------------------------- */

  /* Fills the fields of *out that out->struct_size covers (out: borrowed
   * for the call, not NULL). Capture-safe. */
  sg_status (*get_stats)(sg_session *session, sg_stats *out);

  /* One key's graph (out as for get_stats). SG_ERR_NOT_FOUND if the key
   * has none. Capture-safe. */
  sg_status (*graph_info)(sg_session *session, uint64_t key,
                          sg_graph_info *out);

  /* Writes the key's graph as Graphviz DOT to `path` (borrowed); SG_ERR_IO
   * naming the system error when the file cannot be written. */
  sg_status (*dump_graph)(sg_session *session, uint64_t key, const char *path);

  /* --- Bounded waits ---------------------------------------------------- */

  /* Waits until the work enqueued on `stream` completes or timeout_ms
   * passes (SG_ERR_TIMEOUT; 0 polls once), by polling, so that a hung
   * collective cannot block the host forever. With the stale-transpose
   * detector on (ABI 1.1), a wait that completes also reads the detector's
   * findings (see transpose_report). Not capture-safe.
   * With a communicator (ABI 1.1) every poll also asks comm_get_async_error:
   * an error returns SG_ERR_NCCL with NCCL's name and text for it. A
   * timeout with config.nccl_on_timeout SG_NCCL_TIMEOUT_ABORT calls
   * comm_abort, and an asynchronous error leaves the communicator
   * unusable: in both cases (and after the agreement's) the session is
   * unusable from then on, and every later entry that needs the device
   * (register_*, pre_capture, capture_begin/end, replay, step,
   * post_optimizer_step, rng_end_step, rng_get/set_state, sync) returns
   * SG_ERR_NCCL naming that first failure; host-only entries (last_error,
   * get_stats, graph_info, dump_graph, rng_reserve, rng_device_state,
   * invalidate, step_plan) still answer, and session_destroy works. A
   * timeout with SG_NCCL_TIMEOUT_RETURN changes nothing: sync may be
   * called again. */
  sg_status (*sync)(sg_session *session, sg_stream stream,
                    uint32_t timeout_ms);

  /* --- ABI 1.1: the manual path's step decision ------------------------- */

  /* What the step driver would do for plan->key in this call, for a host
   * that captures and replays itself: SG_ACTION_WARMUP for the key's first
   * config.warmup_steps calls, then SG_ACTION_CAPTURE until the key has a
   * graph, then SG_ACTION_REPLAY; SG_ACTION_EAGER, from the first call,
   * when the key is eager-only (STEPGRAPH_DISABLE, or its capture failed).
   * Each successful call counts one step of the key, as a driver step does
   * (the count is shared with step()), so the host does what the answer
   * says once per call; an answer of CAPTURE that the host did not carry
   * out stays CAPTURE. plan->pre_capture_out says whether pre_capture must
   * come first. Host-only bookkeeping (no CUDA call, works in
   * validation-only sessions). Not capture-safe: SG_ERR_INVALID_STATE
   * while the session is capturing. plan: in/out, borrowed for the call,
   * not NULL. A host checks api->struct_size covers this entry before
   * calling it (a 1.0 plugin has none). */
  sg_status (*step_plan)(sg_session *session, sg_step_plan *plan);

  /* --- Conditional regions (ABI 1.1) ----------------------------------- */

  /* A guard and a loop bracket a region of the host's step. In a capture
   * the region becomes the body of a conditional node (IF for a guard,
   * WHILE for a loop), decided on the device at every replay from a device
   * int32 the host's own kernels compute, with no host synchronisation.
   * Eagerly (warm-up, STEPGRAPH_DISABLE, an eager-only key) the plugin
   * reads that int32 and tells the host what to do, so ONE host code path
   * serves both:
   *
   *   uint32_t run;
   *   api->guard_begin(s, stream, all_finite, &run);
   *   if (run) { optimizer_step(stream); api->post_optimizer_step(...); }
   *   api->guard_end(s, stream);
   *
   *   const uint32_t *mb;
   *   uint32_t again;
   *   for (api->loop_begin(s, stream, n_microbatches, &mb, &again); again;
   *        api->loop_next(s, stream, &again))
   *     microbatch(stream, mb); // its kernels read *mb: 0, 1, ..., n-1
   *
   * Which way an entry works is decided by `stream`: while the session
   * captures (capture_begin, or the step driver capturing), it must be the
   * capture stream, and the region is captured; while the session does not
   * capture, the stream must not be capturing either (SG_ERR_INVALID_STATE
   * for a capture the host began itself, e.g. torch.cuda.graph: the plugin
   * can add conditional nodes only to its own captures; the stream is left
   * as it was), and the region runs eagerly.
   *
   * Captured regions: capture_end then holds, besides what the host
   * enqueued, one one-thread kernel per guard (it sets the condition) and
   * two per loop, plus one conditional node each; the graph's size does
   * not depend on the trip count, which may change between replays with
   * no re-capture. CUDA allows only kernels, memsets, memcpys, child graphs
   * and conditional nodes in a body: an allocation (cudaMallocAsync), a
   * host function, an event wait on another capture, or a collective that
   * captures as one of those, inside a region makes the capture fail (the
   * detail names the node type) and the key run eagerly. Streams forked
   * from the capture stream must be joined back before each region entry
   * (as before capture_end). Capture-safe in the plugin's own captures.
   *
   * Regions nest, guards and loops in any order, up to 8 deep
   * (SG_ERR_CAPACITY beyond); each must be closed by the same kind of
   * entry on the same stream (SG_ERR_INVALID_STATE otherwise, the stream
   * left as it was). capture_end with a region still open discards the
   * capture (SG_ERR_INVALID_STATE; the key keeps its previous graph);
   * capture_begin with an eager region still open refuses
   * (SG_ERR_INVALID_STATE) and closes the regions. Regions belong to the
   * session: open and close them from one thread, in one stream's order.
   * In a validation-only session the begin entries check their arguments
   * and return SG_ERR_NO_DEVICE. */

  /* Opens a guard. flag: device int32, required; kept by the graph that
   * captures it (keep it at that address while the graph lives). The body
   * runs when *flag != 0 at that point of the stream's work.
   * run_body_out: out, required: 1 = enqueue the body now, 0 = skip it;
   * call guard_end either way.
   *   Eagerly: waits for `stream` (a synchronisation: everything enqueued on
   *   it completes) and reads *flag.
   *   Capturing: enqueues the condition kernel, adds an IF node and makes
   *   the stream capture into its body; always answers 1 (the body is
   *   recorded and runs at replay when *flag != 0). */
  sg_status (*guard_begin)(sg_session *session, sg_stream stream,
                           const int32_t *flag, uint32_t *run_body_out);

  /* Closes the innermost region, which must be a guard opened on `stream`.
   * Eagerly: enqueues nothing. Capturing: ends the body; what the host
   * enqueues next runs after the IF node. */
  sg_status (*guard_end)(sg_session *session, sg_stream stream);

  /* Opens a loop. trip_count: device int32, required, kept as flag is; the
   * body runs max(0, *trip_count) times, the count read when the loop is
   * reached (it must not change during the loop). *index_out: out,
   * required: a device uint32 the plugin owns, valid until session_destroy
   * (use the pointer each call returns: a captured loop gets its own),
   * holding the iteration number 0, 1, ... while the body runs and the
   * trip count after the loop. *again_out: out, required: 1 = enqueue the
   * body now, then call loop_next; 0 = the loop is over (eagerly, for a
   * trip count <= 0; loop_next must not be called then).
   *   Eagerly: waits for `stream` (a synchronisation), reads *trip_count,
   *   enqueues *index = 0.
   *   Capturing: enqueues *index = 0 and the condition (*trip_count > 0),
   *   adds a WHILE node and makes the stream capture into its body; always
   *   answers 1 (one iteration is recorded).
   * rng_reserve inside the body reserves once when captured but once per
   * iteration eagerly: reserve the whole loop's counters before it and
   * offset them by *index on the device. */
  sg_status (*loop_begin)(sg_session *session, sg_stream stream,
                          const int32_t *trip_count,
                          const uint32_t **index_out, uint32_t *again_out);

  /* Ends one iteration of the innermost region, which must be a loop
   * opened on `stream`: enqueues *index += 1. *again_out: out, required:
   * 1 = enqueue the body again, then call loop_next again; 0 = the loop is
   * closed. Eagerly: 1 until the trip count read by loop_begin is reached.
   * Capturing: also enqueues the condition (*index < *trip_count), ends
   * the body, and answers 0. */
  sg_status (*loop_next)(sg_session *session, sg_stream stream,
                         uint32_t *again_out);

  /* --- Stale-transpose detector (ABI 1.1) -------------------------------- */

  /* Enqueues one check of every registered parameter's Wt against
   * transpose(W) on `stream` (see SG_SESSION_CHECK_TRANSPOSES): call it at
   * the start of each step the host runs eagerly by itself. capture_begin
   * and the step driver check at the start of every step they capture or
   * run, so a host that uses those need not call it inside them.
   * Capture-safe; no synchronisation, no allocation. With the detector off
   * (or no parameter registered) it does nothing and returns SG_OK. */
  sg_status (*check_transposes)(sg_session *session, sg_stream stream);

  /* Waits for `stream` (not capture-safe; checks enqueued on other streams
   * must be ordered before it) and fills *out (not NULL; struct_size at
   * least its first version's) with the detector's findings so far, which
   * get_stats then also reports. With the detector off: enabled 0, counts
   * 0, firsts none, SG_OK. sync reads the same findings after its wait and
   * logs the first stale parameter once (warning level). */
  sg_status (*transpose_report)(sg_session *session, sg_stream stream,
                                sg_transpose_report *out);
} sg_api;
#define SG_V1_0_SIZE_sg_api SG_STRUCT_SIZE_THROUGH(sg_api, sync)
#define SG_V1_1_SIZE_sg_api SG_STRUCT_SIZE_THROUGH(sg_api, transpose_report)

/* ------------------------------------------------------------------------ */
/* The one exported symbol                                                   */
/* ------------------------------------------------------------------------ */

/* Negotiates the ABI and returns the table in args->api. SG_ERR_VERSION when
 * args->host_abi_version's major differs from the plugin's (args->error says
 * both); SG_ERR_STRUCT_SIZE / SG_ERR_INVALID_ARGUMENT for a bad args. The
 * table is static: never freed, valid while the library is loaded (it is
 * never really unloaded: -z nodelete). Thread-safe. */
SG_EXPORT sg_status sg_get_api_v1(sg_get_api_args *args);

typedef sg_status (*sg_get_api_v1_fn)(sg_get_api_args *args);

#ifdef __cplusplus
}
#endif

#endif /* STEPGRAPH_H */

/*
 * stepgraph.h — the stable C ABI of libstepgraph.so.1.
 *
 * A training framework ("the host") loads libstepgraph.so.1 with dlopen,
 * looks up ONE symbol, sg_get_api_v1, and reaches everything else through the
 * function table it returns. The plugin hands the host's training step over to
 * CUDA graphs: pre-capture, capture, replay, a step driver, the FP8 weight
 * transpose refresh after the optimizer step, graph-safe RNG, statistics.
 *
 * This is the only public header. It needs only <stddef.h> and <stdint.h>:
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
 *    its header declared it. The plugin rejects a struct smaller than the
 *    oldest version it knows (SG_ERR_STRUCT_SIZE), accepts a larger one, and
 *    reads or writes a field only where struct_size covers it. New fields and
 *    entries are only ever appended (ABI minor version).
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

/* Version of the library this header shipped with (semantic versioning). */
#define SG_LIBRARY_VERSION "0.1.0"

/* The one exported symbol's name, for dlsym. */
#define SG_GET_API_SYMBOL "sg_get_api_v1"

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
  SG_ERR_NCCL = 13,            /* an NCCL call failed or reported an error */
  SG_ERR_TIMEOUT = 14,         /* sync: the wait ran past its timeout */
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
  SG_SESSION_VALIDATION_ONLY = 1u << 0
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

/* ------------------------------------------------------------------------ */
/* Opaque and borrowed types                                                 */
/* ------------------------------------------------------------------------ */

/* A session: one device, its registered state, its graphs. Created by
 * session_create, destroyed by session_destroy (NULL is a no-op). */
typedef struct sg_session sg_session;

/* cudaStream_t is `struct CUstream_st *`; pass yours as it is. NULL (the
 * legacy default stream) and the special handles cudaStreamLegacy and
 * cudaStreamPerThread are refused where a stream is captured or checked. */
typedef struct CUstream_st *sg_stream;

/* ncclComm_t is `struct ncclComm *`. */
typedef struct ncclComm *sg_nccl_comm;

/* Log callback. `message` is borrowed for the call. Called from whichever
 * thread is inside the plugin, never concurrently for one session. */
typedef void (*sg_log_fn)(void *user, int32_t level, const char *message);

/* ------------------------------------------------------------------------ */
/* Argument structs                                                          */
/* ------------------------------------------------------------------------ */

/* The host's own NCCL entry points (the copy of NCCL its communicator came
 * from). The signatures are NCCL's, with its enums as int32_t and
 * ncclResult_t as the int32_t return. Reserved for multi-GPU sessions (a
 * later minor); ABI v1.0 refuses a config that sets nccl_comm. */
typedef struct sg_nccl_functions {
  size_t struct_size;
  int32_t (*all_reduce)(const void *sendbuff, void *recvbuff, size_t count,
                        int32_t datatype, int32_t op, sg_nccl_comm comm,
                        sg_stream stream);
  int32_t (*comm_get_async_error)(sg_nccl_comm comm, int32_t *async_error);
  int32_t (*comm_abort)(sg_nccl_comm comm);
} sg_nccl_functions;

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
  sg_nccl_comm nccl_comm;     /* must be NULL in ABI 1.0 (multi-GPU later) */
  const sg_nccl_functions *nccl; /* must be NULL in ABI 1.0 */
} sg_session_config;

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

/* A static buffer: device memory a graph reads at a fixed address, which
 * replay can fill from a host-chosen source first. Kept until destroy. */
typedef struct sg_static_buffer_desc {
  size_t struct_size;
  void *data;     /* device pointer; required */
  uint64_t bytes; /* >= 1 */
} sg_static_buffer_desc;

/* capture_begin / capture_end. */
typedef struct sg_capture_args {
  size_t struct_size;
  uint64_t key;          /* the host's name for this graph (shape bucket) */
  sg_stream stream;      /* the capture stream; not legacy/per-thread */
  uint32_t capture_mode; /* sg_capture_mode; used by capture_begin only */
  uint32_t flags;        /* must be 0 */
} sg_capture_args;

/* replay. */
typedef struct sg_replay_args {
  size_t struct_size;
  uint64_t key;
  sg_stream stream;
  /* Optional: sources[i] (device pointer, or NULL for none) is copied into
   * static buffer i before the launch, registered size bytes, on `stream`.
   * Borrowed for the call; the copies read them in stream order. */
  const void *const *static_sources;
  uint32_t static_source_count; /* <= number of registered static buffers */
  uint32_t flags;               /* must be 0 */
} sg_replay_args;

/* post_optimizer_step. */
typedef struct sg_refresh_args {
  size_t struct_size;
  uint32_t mode;             /* sg_refresh_mode */
  uint32_t group;            /* one group id, or SG_ALL_GROUPS */
  const int32_t *noop_flag;  /* device int32, read by the kernel; NULL, or
                                nonzero => the launch does nothing */
  uint32_t flags;            /* must be 0 */
  uint32_t reserved0;        /* must be 0 */
} sg_refresh_args;

/* Handed to the step callback. Borrowed for the callback's duration. */
typedef struct sg_step_context {
  size_t struct_size;
  sg_session *session;
  uint64_t key;
  uint64_t step_index; /* driver calls so far for this key, from 0 */
  uint32_t phase;      /* sg_step_phase */
  uint32_t reserved0;
} sg_step_context;

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
} sg_step_args;

/* RNG state for checkpoints (rng_get_state / rng_set_state). */
typedef struct sg_rng_state {
  size_t struct_size;
  uint64_t seed;
  uint64_t offset; /* base offset: advanced by each end-of-step */
} sg_rng_state;

/* Where the RNG state lives on the device (rng_device_state). Kernels read
 * *seed and *base_offset and add the offset rng_reserve returned. */
typedef struct sg_rng_device_state {
  size_t struct_size;
  const uint64_t *seed;        /* out: device pointer, valid until destroy */
  const uint64_t *base_offset; /* out: device pointer, valid until destroy */
} sg_rng_device_state;

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
} sg_stats;

/* One key's graph (graph_info). */
typedef struct sg_graph_info {
  size_t struct_size;
  uint64_t nodes;       /* out */
  uint64_t alloc_bytes; /* out: bytes of its allocation nodes */
  uint64_t replays;     /* out */
  uint32_t eager_only;  /* out: 1 after a failed capture or when graphs
                           are disabled (then nodes is 0) */
  uint32_t reserved0;
} sg_graph_info;

/* sg_get_api_v1's arguments. */
typedef struct sg_get_api_args {
  size_t struct_size;
  uint32_t host_abi_version;    /* SG_ABI_VERSION of the host's header */
  uint32_t plugin_abi_version;  /* out: the plugin's major<<16 | minor */
  const struct sg_api *api;     /* out: the table; static, never freed */
  const char *library_version;  /* out: static string, e.g. "0.1.0" */
  const char *error;            /* out: on failure, why (static storage of
                                   the calling thread, valid until its next
                                   call into the plugin); else NULL */
} sg_get_api_args;

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
   * Thread-safe; capture-safe. */
  sg_status (*last_error)(sg_session *session, char *buf,
                          size_t buf_size, size_t *needed_out);

  /* --- Session lifecycle ------------------------------------------------ */

  /* Creates a session on config->device (not validation-only: makes the
   * device's primary context current for the call, allocates the device
   * tables and RNG state). Without a usable GPU it fails with SG_ERR_CUDA
   * (or SG_ERR_INVALID_ARGUMENT for a bad ordinal), naming the CUDA error,
   * and leaks nothing. *session_out: out, NULL on failure. Thread-safe. Not
   * capture-safe (allocates). */
  sg_status (*session_create)(const sg_session_config *config,
                              sg_session **session_out);

  /* Destroys the session: graph execs first, then graphs, device tables,
   * RNG state. NULL is a no-op. The host must not use the session during or
   * after the call; work already enqueued that uses its tables must have
   * completed or be ordered before (destroy synchronises the device only
   * through freeing memory, as cudaFree does). */
  void (*session_destroy)(sg_session *session);

  /* --- Registration (not capture-safe; before the first capture) --------- */

  /* Appends `count` FP8 parameters. `params` is an array whose element
   * stride is params[0].struct_size; every element must carry the same
   * struct_size. Validates all of them first — NULL where required, zero or
   * overflowing sizes, leading dimensions < width, unknown format or dtype,
   * a cast range outside the parameter, any two of W, Wt, master, scale,
   * scale_inv and amax overlapping (within one descriptor, or against any
   * registered one) — and on any error registers none (the detail names the
   * element and field). Then copies the session's device descriptor table,
   * which stays at one address for the session's life (its capacity is the
   * config's param_capacity), so graphs captured earlier by the host see
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
   * session's device, checks `stream` (not NULL/legacy/per-thread, not
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
   * SG_ERR_INVALID_STATE when the stream is already capturing,
   * SG_ERR_INVALID_ARGUMENT when it belongs to another device. One capture
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
   * back, and the key becomes eager-only (until invalidate). */
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
   * of device memory; the launch reads the session's device table, so a
   * graph that captured it also refreshes parameters registered later.
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
   * and the group itself: TRANSPOSE one; the cast modes one per recipe
   * present, plus for CURRENT an amax pass before the cast (so a delayed or
   * block set is one launch, a current set two, a mix up to three). Which
   * kernels run is decided from the parameters registered at the call: a
   * graph captured before parameters of another recipe were registered
   * does not refresh those (register them all first). */
  sg_status (*post_optimizer_step)(sg_session *session, sg_stream stream,
                                   const sg_refresh_args *args);

  /* --- Replay, step driver ---------------------------------------------- */

  /* Launches args->key's graph on args->stream: one graph launch, no host
   * synchronisation, no allocation. Static sources given are copied first
   * by one batched copy kernel per 64 sources, on the same stream.
   * SG_RUN_EAGERLY for an eager-only key; SG_ERR_INVALID_STATE when the key
   * was never captured (or was evicted or invalidated). Not capture-safe. */
  sg_status (*replay)(sg_session *session, const sg_replay_args *args);

  /* Runs exactly one step of args->fn: the first config.warmup_steps calls
   * for a key eagerly, the next captures then launches the graph, later
   * calls replay (calling pre_capture itself when the session is not
   * READY); after a capture failure it runs fn eagerly, in the same call
   * and from then on, and logs the reason once. If fn fails while being
   * captured, the capture is discarded and fn's status returned.
   * args->outcome_out says what happened (written on SG_OK only);
   * ctx->step_index counts the key's successful driver calls. */
  sg_status (*step)(sg_session *session, sg_step_args *args);

  /* --- Graph-safe RNG -------------------------------------------------- */

  /* Reserves `count` Philox counters for one kernel of the current step;
   * *offset_out gets its offset within the step (the same sequence of
   * values every step, so it may be baked into a graph). Host-only
   * bookkeeping; capture-safe. */
  sg_status (*rng_reserve)(sg_session *session, uint64_t count,
                           uint64_t *offset_out);

  /* End of step: enqueues one tiny kernel on `stream` that adds the step's
   * reserved total to the device base offset, and restarts the in-step
   * offsets at 0. Capture-safe (captured into the graph, it costs replay
   * nothing extra). */
  sg_status (*rng_end_step)(sg_session *session, sg_stream stream);

  /* Device pointers of seed and base offset (out). Thread-safe. */
  sg_status (*rng_device_state)(sg_session *session,
                                sg_rng_device_state *out);

  /* Checkpoint: reads/writes seed and base offset (synchronous copies on a
   * plugin stream after `stream`'s work). Not capture-safe. */
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

  /* --- Multi-GPU (reserved) -------------------------------------------- */

  /* Waits until the work enqueued on `stream` completes or timeout_ms
   * passes (SG_ERR_TIMEOUT; 0 polls once), by polling, so that a hung
   * collective cannot block the host forever. (Multi-GPU sessions, a later
   * minor, will also poll the communicator's async error, SG_ERR_NCCL, and
   * abort it on timeout.) Not capture-safe. */
  sg_status (*sync)(sg_session *session, sg_stream stream,
                    uint32_t timeout_ms);
} sg_api;

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

"""The ctypes mirror of ``abi/stepgraph.h``: constants, enums, every struct,
every function type and the whole function table, in header order.

This module is the only place that knows the C layout. The layout test
(``tests/python``) compiles a program from the header that prints the size,
offset and kind of every field, entry and parameter, and compares it with
what is declared here, so the mirror cannot drift from the header.

Appending to the ABI (a minor version) is one line per field or entry,
``Field("name", ctype, since=1)``, and ABI_MINOR set to the header's (the
layout test checks both); a field of an out struct also gets a default of
None in its dataclass in results.py. ``since`` is the ABI minor that
appended it; the binding uses a field or entry only when the plugin's
reported minor has it (see ``_api.Api``). Nothing may be reordered, removed
or retyped.
"""

from __future__ import annotations

import ctypes
import enum
from ctypes import (
    CFUNCTYPE,
    POINTER,
    c_char_p,
    c_double,
    c_int32,
    c_size_t,
    c_uint32,
    c_uint64,
    c_void_p,
)
from typing import Any, Callable, ClassVar, Dict, List, NamedTuple, Tuple, Type, TypeVar

# --- Versions and named constants ------------------------------------------

ABI_MAJOR = 1
ABI_MINOR = 1  # the header minor this mirror was written for
ABI_VERSION = (ABI_MAJOR << 16) | ABI_MINOR
LIBRARY_VERSION = "1.1.0"  # SG_LIBRARY_VERSION of that header
GET_API_SYMBOL = "sg_get_api_v1"
STATUS_COUNT = 17
ALL_GROUPS = 0xFFFFFFFF  # SG_ALL_GROUPS: refresh every parameter group
# What rng_device_state gives in a validation-only session (ABI 1.1):
# addresses that are never memory; compare, never dereference.
RNG_PLACEHOLDER_SEED = 0xDEAD5EED00000000
RNG_PLACEHOLDER_BASE_OFFSET = 0xDEAD5EED00000008
FP8_BLOCK = 128  # SG_FP8_BLOCK (ABI 1.1): the block edge of Fp8Recipe.BLOCK
# What an out field says for "none" (ABI 1.1: the stale-transpose detector's
# first finding); the binding gives None for it.
NONE_U64 = 0xFFFFFFFFFFFFFFFF
NONE_U32 = 0xFFFFFFFF


def version_major(version: int) -> int:
    """SG_ABI_VERSION_MAJOR."""
    return (version & 0xFFFFFFFF) >> 16


def version_minor(version: int) -> int:
    """SG_ABI_VERSION_MINOR."""
    return version & 0xFFFF


# --- Enums (the header's enums name constants; fields are fixed-width) -----


class Status(enum.IntEnum):
    """sg_status_code. 0 is success; RUN_EAGERLY is informational."""

    OK = 0
    RUN_EAGERLY = 1
    ERR_INVALID_ARGUMENT = 2
    ERR_STRUCT_SIZE = 3
    ERR_VERSION = 4
    ERR_INVALID_STATE = 5
    ERR_NOT_SUPPORTED = 6
    ERR_NO_DEVICE = 7
    ERR_CUDA = 8
    ERR_OUT_OF_MEMORY = 9
    ERR_CAPACITY = 10
    ERR_CAPTURE_FAILED = 11
    ERR_NOT_FOUND = 12
    ERR_NCCL = 13
    ERR_TIMEOUT = 14
    ERR_IO = 15
    ERR_INTERNAL = 16


class SessionFlag(enum.IntFlag):
    """sg_session_flag: bits of sg_session_config.flags."""

    VALIDATION_ONLY = 1 << 0
    CHECK_TRANSPOSES = 1 << 1  # ABI 1.1: the stale-transpose detector


class CaptureMode(enum.IntEnum):
    """sg_capture_mode (not cudaStreamCaptureMode's numbers)."""

    THREAD_LOCAL = 0
    GLOBAL = 1
    RELAXED = 2


class LogLevel(enum.IntEnum):
    """sg_log_level: a message is delivered when its level <= the session's."""

    OFF = 0
    ERROR = 1
    WARN = 2
    INFO = 3
    DEBUG = 4


class Fp8Format(enum.IntEnum):
    """sg_fp8_format of W and Wt."""

    E4M3 = 0
    E5M2 = 1


class DType(enum.IntEnum):
    """sg_dtype of a master weight; NONE: transpose only."""

    NONE = 0
    FP32 = 1
    BF16 = 2


class Fp8Recipe(enum.IntEnum):
    """sg_fp8_recipe (ABI 1.1): where the scale W is quantized with comes
    from in the cast modes (the header's post_optimizer_step has the rules)."""

    DELAYED = 0  # the host's *scale, from earlier steps' amax (ABI 1.0)
    CURRENT = 1  # one scale per tensor from max|M| of this refresh
    BLOCK = 2  # one scale per FP8_BLOCK x FP8_BLOCK block of W


class Fp8RecipeFlag(enum.IntFlag):
    """sg_fp8_recipe_flag (ABI 1.1): bits of sg_fp8_param_desc.recipe_flags."""

    POW2_SCALES = 1 << 0  # CURRENT, BLOCK: scales rounded down to a power of two


class RefreshMode(enum.IntEnum):
    """sg_refresh_mode of post_optimizer_step."""

    TRANSPOSE = 0
    CAST = 1
    CAST_TRANSPOSE = 2


class RefreshFlag(enum.IntFlag):
    """sg_refresh_flag (ABI 1.1): bits of sg_refresh_args.flags."""

    REDUCE_AMAX = 1 << 0  # amax reduced (MAX) across the communicator's ranks


class NcclTimeoutAction(enum.IntEnum):
    """sg_nccl_timeout_action (ABI 1.1): sg_session_config.nccl_on_timeout."""

    RETURN = 0
    ABORT = 1


class StepPhase(enum.IntEnum):
    """sg_step_phase: how the step driver is running the callback."""

    WARMUP = 0
    CAPTURE = 1
    EAGER = 2


class StepOutcome(enum.IntEnum):
    """sg_step_outcome: what the step driver did for one step."""

    WARMUP = 0
    CAPTURED = 1
    REPLAYED = 2
    EAGER = 3


class ReplayFlag(enum.IntFlag):
    """sg_replay_flag (ABI 1.1): bits of sg_replay_args.flags."""

    HOST_SOURCES = 1 << 0  # static sources may be page-locked host memory


class StepFlag(enum.IntFlag):
    """sg_step_flag (ABI 1.1): bits of sg_step_args.flags."""

    HOST_SOURCES = 1 << 0


class StepAction(enum.IntEnum):
    """sg_step_action (ABI 1.1): what step_plan tells a host that captures
    and replays itself to do this call."""

    WARMUP = 0
    CAPTURE = 1
    REPLAY = 2
    EAGER = 3


# --- Layout helpers -----------------------------------------------------------


class Field(NamedTuple):
    """One field of a struct (or entry of the table), in header order."""

    name: str
    ctype: Any
    since: int = 0  # the ABI minor that appended it


class AbiStruct(ctypes.Structure):
    """A struct of the ABI. Every one begins with ``size_t struct_size``."""

    _layout_: ClassVar[Tuple[Field, ...]] = ()
    struct_size: int

    @classmethod
    def field_names(cls) -> List[str]:
        """The fields, in header order."""
        return [f.name for f in cls._layout_]

    @classmethod
    def field(cls, name: str) -> Field:
        """Field `name` (KeyError if the struct has none)."""
        for f in cls._layout_:
            if f.name == name:
                return f
        raise KeyError(f"{cls.__name__} has no field {name}")

    @classmethod
    def field_since(cls, name: str) -> int:
        """The ABI minor that appended field `name`."""
        return cls.field(name).since

    @classmethod
    def field_end(cls, name: str) -> int:
        """Offset just past field `name`: a struct_size that covers it."""
        descriptor = getattr(cls, name)
        return int(descriptor.offset + descriptor.size)


S = TypeVar("S", bound=Type[AbiStruct])


def layout(*fields: Field) -> Callable[[S], S]:
    """Gives a struct class its fields (ctypes' `_fields_`) and their minors."""

    def apply(cls: S) -> S:
        cls._layout_ = fields
        cls._fields_ = [(f.name, f.ctype) for f in fields]
        return cls

    return apply


# Opaque handles are plain pointers: sg_session *, sg_stream (cudaStream_t),
# sg_nccl_comm (ncclComm_t).
SessionPtr = c_void_p
StreamPtr = c_void_p
NcclCommPtr = c_void_p

# --- Argument structs ---------------------------------------------------------

LogFn = CFUNCTYPE(None, c_void_p, c_int32, c_char_p)

NcclAllReduceFn = CFUNCTYPE(
    c_int32, c_void_p, c_void_p, c_size_t, c_int32, c_int32, NcclCommPtr, StreamPtr
)
NcclGetAsyncErrorFn = CFUNCTYPE(c_int32, NcclCommPtr, POINTER(c_int32))
NcclAbortFn = CFUNCTYPE(c_int32, NcclCommPtr)
NcclGetVersionFn = CFUNCTYPE(c_int32, POINTER(c_int32))
NcclCommQueryFn = CFUNCTYPE(c_int32, NcclCommPtr, POINTER(c_int32))
NcclErrorStringFn = CFUNCTYPE(c_char_p, c_int32)


@layout(
    Field("struct_size", c_size_t),
    Field("all_reduce", NcclAllReduceFn),
    Field("comm_get_async_error", NcclGetAsyncErrorFn),
    Field("comm_abort", NcclAbortFn),
    Field("get_version", NcclGetVersionFn, since=1),
    Field("comm_count", NcclCommQueryFn, since=1),
    Field("comm_user_rank", NcclCommQueryFn, since=1),
    Field("comm_cu_device", NcclCommQueryFn, since=1),
    Field("get_error_string", NcclErrorStringFn, since=1),
)
class NcclFunctions(AbiStruct):
    """sg_nccl_functions: the host's NCCL for a multi-GPU session (every
    field required, kept until session_destroy; docs/MULTI_GPU.md)."""


@layout(
    Field("struct_size", c_size_t),
    Field("device", c_int32),
    Field("flags", c_uint32),
    Field("capture_mode", c_uint32),
    Field("warmup_steps", c_uint32),
    Field("param_capacity", c_uint32),
    Field("static_capacity", c_uint32),
    Field("log_level", c_int32),
    Field("reserved0", c_uint32),
    Field("log_fn", LogFn),
    Field("log_user", c_void_p),
    Field("rng_seed", c_uint64),
    Field("graph_mem_budget", c_uint64),
    Field("nccl_comm", NcclCommPtr),
    Field("nccl", POINTER(NcclFunctions)),
    Field("nccl_timeout_ms", c_uint32, since=1),
    Field("nccl_on_timeout", c_uint32, since=1),
)
class SessionConfig(AbiStruct):
    """sg_session_config: borrowed for session_create; log_user is kept."""


@layout(
    Field("struct_size", c_size_t),
    Field("format", c_uint32),
    Field("master_dtype", c_uint32),
    Field("rows", c_uint64),
    Field("cols", c_uint64),
    Field("data", c_void_p),
    Field("ld_data", c_uint64),
    Field("transpose", c_void_p),
    Field("ld_transpose", c_uint64),
    Field("master", c_void_p),
    Field("ld_master", c_uint64),
    Field("scale", c_void_p),
    Field("scale_inv", c_void_p),
    Field("amax", c_void_p),
    Field("range_begin", c_uint64),
    Field("range_end", c_uint64),
    Field("group", c_uint32),
    Field("reserved0", c_uint32),
    Field("recipe", c_uint32, since=1),
    Field("recipe_flags", c_uint32, since=1),
    Field("block_scale_inv", c_void_p, since=1),
    Field("ld_block_scale_inv", c_uint64, since=1),
    Field("block_scale_inv_t", c_void_p, since=1),
    Field("ld_block_scale_inv_t", c_uint64, since=1),
)
class Fp8ParamDesc(AbiStruct):
    """sg_fp8_param_desc: device pointers kept until session_destroy."""


@layout(
    Field("struct_size", c_size_t),
    Field("data", c_void_p),
    Field("bytes", c_uint64),
)
class StaticBufferDesc(AbiStruct):
    """sg_static_buffer_desc: device memory kept until session_destroy."""


@layout(
    Field("struct_size", c_size_t),
    Field("key", c_uint64),
    Field("stream", StreamPtr),
    Field("capture_mode", c_uint32),
    Field("flags", c_uint32),
)
class CaptureArgs(AbiStruct):
    """sg_capture_args of capture_begin / capture_end."""


@layout(
    Field("struct_size", c_size_t),
    Field("key", c_uint64),
    Field("stream", StreamPtr),
    Field("static_sources", POINTER(c_void_p)),
    Field("static_source_count", c_uint32),
    Field("flags", c_uint32),
)
class ReplayArgs(AbiStruct):
    """sg_replay_args; static_sources is borrowed for the call."""


@layout(
    Field("struct_size", c_size_t),
    Field("mode", c_uint32),
    Field("group", c_uint32),
    Field("noop_flag", POINTER(c_int32)),
    Field("flags", c_uint32),
    Field("reserved0", c_uint32),
)
class RefreshArgs(AbiStruct):
    """sg_refresh_args of post_optimizer_step."""


@layout(
    Field("struct_size", c_size_t),
    Field("session", SessionPtr),
    Field("key", c_uint64),
    Field("step_index", c_uint64),
    Field("phase", c_uint32),
    Field("reserved0", c_uint32),
)
class StepContext(AbiStruct):
    """sg_step_context: borrowed for the callback's duration."""


StepFn = CFUNCTYPE(c_int32, c_void_p, StreamPtr, POINTER(StepContext))


@layout(
    Field("struct_size", c_size_t),
    Field("key", c_uint64),
    Field("stream", StreamPtr),
    Field("fn", StepFn),
    Field("user", c_void_p),
    Field("outcome_out", c_uint32),
    Field("reserved0", c_uint32),
    Field("static_sources", POINTER(c_void_p), since=1),
    Field("static_source_count", c_uint32, since=1),
    Field("flags", c_uint32, since=1),
)
class StepArgs(AbiStruct):
    """sg_step_args of the step driver."""


@layout(
    Field("struct_size", c_size_t, since=1),
    Field("key", c_uint64, since=1),
    Field("action_out", c_uint32, since=1),
    Field("pre_capture_out", c_uint32, since=1),
    Field("step_index_out", c_uint64, since=1),
)
class StepPlan(AbiStruct):
    """sg_step_plan (ABI 1.1) of step_plan."""


@layout(
    Field("struct_size", c_size_t),
    Field("seed", c_uint64),
    Field("offset", c_uint64),
)
class RngState(AbiStruct):
    """sg_rng_state: a checkpoint of the session's RNG."""


@layout(
    Field("struct_size", c_size_t),
    Field("seed", POINTER(c_uint64)),
    Field("base_offset", POINTER(c_uint64)),
)
class RngDeviceState(AbiStruct):
    """sg_rng_device_state: device pointers valid until destroy."""


@layout(
    Field("struct_size", c_size_t),
    Field("captures", c_uint64),
    Field("capture_failures", c_uint64),
    Field("exec_updates", c_uint64),
    Field("instantiations", c_uint64),
    Field("replays", c_uint64),
    Field("eager_runs", c_uint64),
    Field("invalidations", c_uint64),
    Field("evictions", c_uint64),
    Field("refreshes", c_uint64),
    Field("graphs", c_uint64),
    Field("graph_nodes", c_uint64),
    Field("graph_alloc_bytes", c_uint64),
    Field("fp8_params", c_uint64),
    Field("static_buffers", c_uint64),
    Field("capture_ms", c_double),
    Field("instantiate_ms", c_double),
    Field("guards", c_uint64, since=1),
    Field("guards_skipped", c_uint64, since=1),
    Field("loops", c_uint64, since=1),
    Field("conditional_nodes", c_uint64, since=1),
    Field("transpose_checks", c_uint64, since=1),
    Field("stale_params", c_uint64, since=1),
    Field("first_stale_check", c_uint64, since=1),
    Field("first_stale_param", c_uint32, since=1),
    Field("first_stale_group", c_uint32, since=1),
)
class Stats(AbiStruct):
    """sg_stats: counters since session_create."""


@layout(
    Field("struct_size", c_size_t),
    Field("nodes", c_uint64),
    Field("alloc_bytes", c_uint64),
    Field("replays", c_uint64),
    Field("eager_only", c_uint32),
    Field("reserved0", c_uint32),
    Field("conditional_nodes", c_uint64, since=1),
)
class GraphInfo(AbiStruct):
    """sg_graph_info: one key's graph."""


@layout(
    Field("struct_size", c_size_t, since=1),
    Field("enabled", c_uint32, since=1),
    Field("stale_params", c_uint32, since=1),
    Field("checks", c_uint64, since=1),
    Field("first_stale_check", c_uint64, since=1),
    Field("first_stale_param", c_uint32, since=1),
    Field("first_stale_group", c_uint32, since=1),
    Field("mismatches", POINTER(c_uint64), since=1),
    Field("mismatch_capacity", c_uint32, since=1),
    Field("reserved0", c_uint32, since=1),
)
class TransposeReport(AbiStruct):
    """sg_transpose_report (ABI 1.1) of transpose_report; mismatches is a
    host array borrowed for the call."""


class Api(AbiStruct):
    """sg_api, the function table (its fields are set below)."""


@layout(
    Field("struct_size", c_size_t),
    Field("host_abi_version", c_uint32),
    Field("plugin_abi_version", c_uint32),
    Field("api", POINTER(Api)),
    Field("library_version", c_char_p),
    Field("error", c_char_p),
)
class GetApiArgs(AbiStruct):
    """sg_get_api_args of sg_get_api_v1."""


GetApiFn = CFUNCTYPE(c_int32, POINTER(GetApiArgs))

# --- The function table ---------------------------------------------------------

_S = c_int32  # sg_status

layout(
    Field("struct_size", c_size_t),
    Field("abi_version", c_uint32),
    Field("reserved0", c_uint32),
    Field("library_version", c_char_p),
    Field("status_string", CFUNCTYPE(c_char_p, _S)),
    Field("last_error", CFUNCTYPE(_S, SessionPtr, c_char_p, c_size_t, POINTER(c_size_t))),
    Field("session_create", CFUNCTYPE(_S, POINTER(SessionConfig), POINTER(SessionPtr))),
    Field("session_destroy", CFUNCTYPE(None, SessionPtr)),
    Field(
        "register_fp8_params",
        CFUNCTYPE(_S, SessionPtr, POINTER(Fp8ParamDesc), c_uint32, POINTER(c_uint32)),
    ),
    Field(
        "register_static_buffers",
        CFUNCTYPE(_S, SessionPtr, POINTER(StaticBufferDesc), c_uint32, POINTER(c_uint32)),
    ),
    Field("pre_capture", CFUNCTYPE(_S, SessionPtr, StreamPtr)),
    Field("capture_begin", CFUNCTYPE(_S, SessionPtr, POINTER(CaptureArgs))),
    Field("capture_end", CFUNCTYPE(_S, SessionPtr, POINTER(CaptureArgs))),
    Field("invalidate", CFUNCTYPE(_S, SessionPtr, c_uint64)),
    Field("post_optimizer_step", CFUNCTYPE(_S, SessionPtr, StreamPtr, POINTER(RefreshArgs))),
    Field("replay", CFUNCTYPE(_S, SessionPtr, POINTER(ReplayArgs))),
    Field("step", CFUNCTYPE(_S, SessionPtr, POINTER(StepArgs))),
    Field("rng_reserve", CFUNCTYPE(_S, SessionPtr, c_uint64, POINTER(c_uint64))),
    Field("rng_end_step", CFUNCTYPE(_S, SessionPtr, StreamPtr)),
    Field("rng_device_state", CFUNCTYPE(_S, SessionPtr, POINTER(RngDeviceState))),
    Field("rng_get_state", CFUNCTYPE(_S, SessionPtr, StreamPtr, POINTER(RngState))),
    Field("rng_set_state", CFUNCTYPE(_S, SessionPtr, StreamPtr, POINTER(RngState))),
    Field("get_stats", CFUNCTYPE(_S, SessionPtr, POINTER(Stats))),
    Field("graph_info", CFUNCTYPE(_S, SessionPtr, c_uint64, POINTER(GraphInfo))),
    Field("dump_graph", CFUNCTYPE(_S, SessionPtr, c_uint64, c_char_p)),
    Field("sync", CFUNCTYPE(_S, SessionPtr, StreamPtr, c_uint32)),
    Field("step_plan", CFUNCTYPE(_S, SessionPtr, POINTER(StepPlan)), since=1),
    Field(
        "guard_begin",
        CFUNCTYPE(_S, SessionPtr, StreamPtr, POINTER(c_int32), POINTER(c_uint32)),
        since=1,
    ),
    Field("guard_end", CFUNCTYPE(_S, SessionPtr, StreamPtr), since=1),
    Field(
        "loop_begin",
        CFUNCTYPE(
            _S, SessionPtr, StreamPtr, POINTER(c_int32), POINTER(POINTER(c_uint32)), POINTER(c_uint32)
        ),
        since=1,
    ),
    Field("loop_next", CFUNCTYPE(_S, SessionPtr, StreamPtr, POINTER(c_uint32)), since=1),
    Field("check_transposes", CFUNCTYPE(_S, SessionPtr, StreamPtr), since=1),
    Field(
        "transpose_report",
        CFUNCTYPE(_S, SessionPtr, StreamPtr, POINTER(TransposeReport)),
        since=1,
    ),
)(Api)

# --- Index for the layout test: C name -> mirror ---------------------------

STRUCTS: Dict[str, Type[AbiStruct]] = {
    "sg_nccl_functions": NcclFunctions,
    "sg_session_config": SessionConfig,
    "sg_fp8_param_desc": Fp8ParamDesc,
    "sg_static_buffer_desc": StaticBufferDesc,
    "sg_capture_args": CaptureArgs,
    "sg_replay_args": ReplayArgs,
    "sg_refresh_args": RefreshArgs,
    "sg_step_context": StepContext,
    "sg_step_args": StepArgs,
    "sg_step_plan": StepPlan,
    "sg_rng_state": RngState,
    "sg_rng_device_state": RngDeviceState,
    "sg_stats": Stats,
    "sg_graph_info": GraphInfo,
    "sg_transpose_report": TransposeReport,
    "sg_get_api_args": GetApiArgs,
    "sg_api": Api,
}

FUNCTION_TYPES: Dict[str, Any] = {
    "sg_log_fn": LogFn,
    "sg_step_fn": StepFn,
    "sg_get_api_v1_fn": GetApiFn,
}

# C enum name -> (mirror, prefix its enumerators carry in C).
ENUMS: Dict[str, Tuple[Type[enum.Enum], str]] = {
    "sg_status_code": (Status, "SG_"),
    "sg_session_flag": (SessionFlag, "SG_SESSION_"),
    "sg_capture_mode": (CaptureMode, "SG_CAPTURE_"),
    "sg_log_level": (LogLevel, "SG_LOG_"),
    "sg_fp8_format": (Fp8Format, "SG_FP8_"),
    "sg_dtype": (DType, "SG_DTYPE_"),
    "sg_fp8_recipe": (Fp8Recipe, "SG_RECIPE_"),
    "sg_fp8_recipe_flag": (Fp8RecipeFlag, "SG_RECIPE_"),
    "sg_refresh_mode": (RefreshMode, "SG_REFRESH_"),
    "sg_refresh_flag": (RefreshFlag, "SG_REFRESH_"),
    "sg_nccl_timeout_action": (NcclTimeoutAction, "SG_NCCL_TIMEOUT_"),
    "sg_step_phase": (StepPhase, "SG_PHASE_"),
    "sg_step_outcome": (StepOutcome, "SG_STEP_"),
    "sg_replay_flag": (ReplayFlag, "SG_REPLAY_"),
    "sg_step_flag": (StepFlag, "SG_STEP_"),
    "sg_step_action": (StepAction, "SG_ACTION_"),
}

CONSTANTS: Dict[str, Any] = {
    "SG_ABI_MAJOR": ABI_MAJOR,
    "SG_ABI_MINOR": ABI_MINOR,
    "SG_ABI_VERSION": ABI_VERSION,
    "SG_LIBRARY_VERSION": LIBRARY_VERSION,
    "SG_GET_API_SYMBOL": GET_API_SYMBOL,
    "SG_STATUS_COUNT": STATUS_COUNT,
    "SG_ALL_GROUPS": ALL_GROUPS,
    "SG_RNG_PLACEHOLDER_SEED": RNG_PLACEHOLDER_SEED,
    "SG_RNG_PLACEHOLDER_BASE_OFFSET": RNG_PLACEHOLDER_BASE_OFFSET,
    "SG_FP8_BLOCK": FP8_BLOCK,
}


def size_macros() -> Dict[str, int]:
    """SG_V1_<minor>_SIZE_<type> for every struct and each minor that
    appended to it: the struct_size through its last field of that minor.
    The header defines the same macros; the layout test compares them, which
    checks every field's `since`."""
    sizes = {}
    for c_name, cls in STRUCTS.items():
        for minor in sorted({f.since for f in cls._layout_}):
            last = [f for f in cls._layout_ if f.since <= minor][-1]
            sizes[f"SG_V1_{minor}_SIZE_{c_name}"] = cls.field_end(last.name)
    return sizes


CONSTANTS.update(size_macros())

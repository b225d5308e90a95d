"""stepgraph: hand a training step over to CUDA graphs through libstepgraph.so.1.

A pure-Python ctypes binding of the plugin's C ABI (abi/stepgraph.h):
``Session`` is the Pythonic layer, ``stepgraph.torch`` the PyTorch one.
``load()`` finds and negotiates the library (see ``stepgraph._loader`` for
the search order: explicit path, STEPGRAPH_LIBRARY, a checkout's build tree,
the system loader).
"""

from __future__ import annotations

from ._abi import (
    ABI_MAJOR,
    ABI_MINOR,
    ABI_VERSION,
    ALL_GROUPS,
    CaptureMode,
    DType,
    Fp8Format,
    LogLevel,
    RNG_PLACEHOLDER_BASE_OFFSET,
    RNG_PLACEHOLDER_SEED,
    RefreshMode,
    ReplayFlag,
    SessionFlag,
    Status,
    StepAction,
    StepFlag,
    StepOutcome,
    StepPhase,
)
from ._api import Api
from ._loader import load
from .errors import (
    CapacityError,
    CaptureFailed,
    CudaError,
    Error,
    FileError,
    InternalError,
    InvalidArgument,
    InvalidState,
    LibraryNotFound,
    NcclError,
    NoDevice,
    NotFound,
    NotSupported,
    OutOfMemory,
    StructSizeError,
    Timeout,
    VersionError,
)
from .results import (
    Capture,
    Fp8Param,
    GraphInfo,
    RngDeviceState,
    RngState,
    RunEagerly,
    StaticBuffer,
    StepContext,
    StepPlan,
    StepResult,
    Stats,
)
from .session import Session, address_of, stream_handle

__version__ = "1.1.0"

__all__ = [
    "ABI_MAJOR",
    "ABI_MINOR",
    "ABI_VERSION",
    "ALL_GROUPS",
    "Api",
    "CapacityError",
    "Capture",
    "CaptureFailed",
    "CaptureMode",
    "CudaError",
    "DType",
    "Error",
    "FileError",
    "Fp8Format",
    "Fp8Param",
    "GraphInfo",
    "InternalError",
    "InvalidArgument",
    "InvalidState",
    "LibraryNotFound",
    "LogLevel",
    "NcclError",
    "NoDevice",
    "NotFound",
    "NotSupported",
    "OutOfMemory",
    "RNG_PLACEHOLDER_BASE_OFFSET",
    "RNG_PLACEHOLDER_SEED",
    "RefreshMode",
    "ReplayFlag",
    "RngDeviceState",
    "RngState",
    "RunEagerly",
    "Session",
    "SessionFlag",
    "StaticBuffer",
    "Stats",
    "Status",
    "StepAction",
    "StepContext",
    "StepFlag",
    "StepOutcome",
    "StepPhase",
    "StepPlan",
    "StepResult",
    "StructSizeError",
    "Timeout",
    "VersionError",
    "address_of",
    "load",
    "stream_handle",
]

"""Exceptions: every failure of the binding raises a ``stepgraph.Error``.

An error carries the plugin's status and its detail message (what
``last_error`` says, e.g. "register_fp8_params: params[3].rows is 0").
There is one subclass per status a caller may want to catch. SG_RUN_EAGERLY
is not an error: entries that can answer it return a ``RunEagerly`` result.
Errors the binding finds itself (a closed session, a tensor of the wrong
dtype) carry the status the plugin would have returned for them.
"""

from __future__ import annotations

from typing import Dict, Optional, Type, Union

from ._abi import Status


class Error(Exception):
    """A stepgraph failure: `status` (a Status, or the plugin's int for a code
    this binding does not know) and `detail`, the plugin's message."""

    def __init__(self, status: Union[Status, int, None], detail: str) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail

    def __str__(self) -> str:
        if self.status is None:
            return self.detail
        name = self.status.name if isinstance(self.status, Status) else str(self.status)
        return f"{self.detail} [{name}]"


class LibraryNotFound(Error):
    """libstepgraph.so.1 could not be loaded from any place searched."""


class InvalidArgument(Error):
    """SG_ERR_INVALID_ARGUMENT: an argument is NULL, out of range, unknown."""


class StructSizeError(Error):
    """SG_ERR_STRUCT_SIZE: a struct_size smaller than the oldest known."""


class VersionError(Error):
    """SG_ERR_VERSION: the plugin's ABI major is not this binding's."""


class InvalidState(Error):
    """SG_ERR_INVALID_STATE: the entry is not allowed in this state (for
    example while capturing, or after the session was closed)."""


class NotSupported(Error):
    """SG_ERR_NOT_SUPPORTED: not implemented by this plugin or its ABI minor."""


class NoDevice(Error):
    """SG_ERR_NO_DEVICE: needs a GPU, and the session is validation-only."""


class CudaError(Error):
    """SG_ERR_CUDA: a CUDA call failed; the detail names it."""


class OutOfMemory(Error):
    """SG_ERR_OUT_OF_MEMORY: a host or device allocation failed."""


class CapacityError(Error):
    """SG_ERR_CAPACITY: a table sized by the session config is full."""


class CaptureFailed(Error):
    """SG_ERR_CAPTURE_FAILED: the capture was invalidated; the key now runs
    eagerly until it is invalidated."""


class NotFound(Error):
    """SG_ERR_NOT_FOUND: no graph for this key."""


class NcclError(Error):
    """SG_ERR_NCCL: an NCCL call failed or reported an error."""


class Timeout(Error):
    """SG_ERR_TIMEOUT: sync's wait ran past its timeout."""


class FileError(Error):
    """SG_ERR_IO: dump_graph could not write the file."""


class InternalError(Error):
    """SG_ERR_INTERNAL: a bug in the plugin."""


_BY_STATUS: Dict[int, Type[Error]] = {
    Status.ERR_INVALID_ARGUMENT: InvalidArgument,
    Status.ERR_STRUCT_SIZE: StructSizeError,
    Status.ERR_VERSION: VersionError,
    Status.ERR_INVALID_STATE: InvalidState,
    Status.ERR_NOT_SUPPORTED: NotSupported,
    Status.ERR_NO_DEVICE: NoDevice,
    Status.ERR_CUDA: CudaError,
    Status.ERR_OUT_OF_MEMORY: OutOfMemory,
    Status.ERR_CAPACITY: CapacityError,
    Status.ERR_CAPTURE_FAILED: CaptureFailed,
    Status.ERR_NOT_FOUND: NotFound,
    Status.ERR_NCCL: NcclError,
    Status.ERR_TIMEOUT: Timeout,
    Status.ERR_IO: FileError,
    Status.ERR_INTERNAL: InternalError,
}


def status_of(code: int) -> Union[Status, int]:
    """The Status for a known code, else the code itself."""
    try:
        return Status(code)
    except ValueError:
        return code


def error_for(code: int, detail: str) -> Error:
    """The exception for a failing status: its subclass, or Error for a code
    this binding does not know (a newer plugin)."""
    cls: Optional[Type[Error]] = _BY_STATUS.get(code)
    return (cls or Error)(status_of(code), detail)

"""Test helpers: plausible device addresses for validation-only sessions
(which never dereference them), and a double of the function table."""

from __future__ import annotations

import ctypes
from typing import Any, Callable, Dict, List

import stepgraph
from stepgraph import _abi

STREAM = 0x5000  # any handle other than 0/legacy/per-thread passes the checks


def fp8_param(base: int, rows: int = 4, cols: int = 8, **fields: Any) -> stepgraph.Fp8Param:
    """A transpose-only parameter whose W and Wt live at base and base+64KiB."""
    values: Dict[str, Any] = {"data": base, "transpose": base + 0x10000, **fields}
    return stepgraph.Fp8Param(rows=rows, cols=cols, **values)


def cast_param(base: int, rows: int = 4, cols: int = 8, **fields: Any) -> stepgraph.Fp8Param:
    """A parameter with an FP32 master and its scale, scale_inv and amax."""
    return fp8_param(
        base,
        rows,
        cols,
        master=base + 0x20000,
        master_dtype=stepgraph.DType.FP32,
        scale=base + 0x30000,
        scale_inv=base + 0x30010,
        amax=base + 0x30020,
        **fields,
    )


class TableDouble:
    """A copy of a plugin's table with some entries replaced by Python
    functions (called through C function pointers, as the plugin's are).
    `calls` records (entry, arguments) of every replaced entry called."""

    def __init__(self, api: stepgraph.Api, **entries: Callable[..., Any]) -> None:
        self.calls: List[tuple] = []
        self._functions: Dict[str, Any] = {}
        table = _abi.Api.from_buffer_copy(api.table)
        for name, fn in entries.items():
            # char * parameters arrive as addresses (ctypes would copy them
            # into bytes), so a double can write into the host's buffer.
            ftype = _abi.Api.field(name).ctype
            raw_args = [ctypes.c_void_p if t is ctypes.c_char_p else t for t in ftype._argtypes_]
            raw = ctypes.CFUNCTYPE(ftype._restype_, *raw_args)(self._recorder(name, fn))
            self._functions[name] = raw
            setattr(table, name, ctypes.cast(raw, ftype))
        self.api = stepgraph.Api(
            table, api.abi_version, api.library_version, api.path + " (double)", keepalive=(api, self)
        )

    def _recorder(self, name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def record(*args: Any) -> Any:
            self.calls.append((name, args))
            return fn(*args)

        return record

    def names(self) -> List[str]:
        """The replaced entries called, in order (last_error left out)."""
        return [name for name, _ in self.calls if name != "last_error"]


def write_message(message: bytes) -> Callable[..., int]:
    """A last_error double that reports `message`."""

    def last_error(session: Any, buf: Any, size: int, needed: Any) -> int:
        if needed:
            needed[0] = len(message)
        if size:
            ctypes.memmove(buf, message[: size - 1] + b"\0", min(size, len(message) + 1))
        return 0

    return last_error

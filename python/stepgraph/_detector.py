"""The stale-transpose detector's entries (ABI 1.1), a part of ``Session``.

With the detector on (``Session(check_transposes=True)``, or
STEPGRAPH_CHECK_TRANSPOSES=1 when the session is created) one kernel
compares every registered parameter's Wt with transpose(W) byte for byte at
the start of every step the plugin captures or its driver runs, and wherever
the host calls ``check_transposes``. ``transpose_report`` (and ``sync``)
read the findings, which ``stats()`` then reports too.
"""

from __future__ import annotations

import ctypes
from typing import TYPE_CHECKING, Any, ContextManager, Optional

from . import _abi
from ._regions import StreamLike
from .results import TransposeReport


class DetectorEntries:
    """check_transposes and transpose_report; mixed into Session."""

    if TYPE_CHECKING:
        from ._api import Api
        from .results import Stats

        api: Api

        def _call(self, entry: str, *args: Any) -> int: ...
        def _refresh_stream(self, stream: StreamLike) -> int: ...
        def _around(self, stream: StreamLike) -> ContextManager[int]: ...
        def stats(self) -> Stats: ...

    def check_transposes(self, stream: StreamLike = None) -> None:
        """Enqueues one check of every registered parameter's Wt on `stream`:
        call it at the start of each step you run eagerly yourself (capture
        and the step driver check by themselves). Capture-safe; no
        synchronisation. With the detector off it does nothing."""
        self._call("check_transposes", self._refresh_stream(stream))

    def transpose_report(self, stream: StreamLike = None, *, with_mismatches: bool = False) -> TransposeReport:
        """Waits for `stream` (checks enqueued on other streams must be
        ordered before it) and returns the detector's findings so far; with
        `with_mismatches`, also each registered parameter's count of
        mismatching Wt bytes over all checks. Not capture-safe."""
        self.api.entry("transpose_report")  # NotSupported from a 1.0 plugin, naming the entry
        count = self.stats().fp8_params if with_mismatches else 0
        counts = (ctypes.c_uint64 * count)()
        out = self.api.new(
            _abi.TransposeReport,
            "out",
            mismatches=ctypes.cast(counts, ctypes.POINTER(ctypes.c_uint64)) if count else None,
            mismatch_capacity=count,
        )
        with self._around(stream) as s:
            self._call("transpose_report", s, ctypes.byref(out))
        return TransposeReport(
            enabled=bool(out.enabled),
            stale_params=out.stale_params,
            checks=out.checks,
            first_stale_check=none_if_unset(out.first_stale_check, _abi.NONE_U64),
            first_stale_param=none_if_unset(out.first_stale_param, _abi.NONE_U32),
            first_stale_group=none_if_unset(out.first_stale_group, _abi.NONE_U32),
            mismatches=tuple(counts) if with_mismatches else None,
        )


def none_if_unset(value: Optional[int], unset: int) -> Optional[int]:
    """None for a field's "none" value (UINT64_MAX / UINT32_MAX)."""
    return None if value == unset else value

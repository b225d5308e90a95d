"""C callbacks into Python that never let an exception unwind into C.

ctypes would print an exception raised in a callback and hand C a zero
(SG_OK for the step function): a failed step would look like a success. So
each trampoline catches everything (BaseException: KeyboardInterrupt too),
keeps it, tells C what it can (the step function returns a failing status),
and the binding re-raises it in the caller once the plugin has returned.
"""

from __future__ import annotations

import traceback
from contextlib import AbstractContextManager
from typing import Any, Callable, List, Optional

from . import _abi
from .results import StepContext

# What the step function returns when the Python callback raised. The plugin
# returns a failing callback's status unchanged; a code outside sg_status_code
# cannot be mistaken for one of the plugin's own.
STEP_CALLBACK_RAISED = -1

StepFunction = Callable[[StepContext], None]
# Wraps one callback run (the torch layer: current stream, allocator pool).
StepScope = Callable[[StepContext], "AbstractContextManager[Any]"]
LogFunction = Callable[[int, str], None]


class StepTrampoline:
    """The sg_step_fn for one Session.step call: runs `fn` inside `scope`."""

    def __init__(self, fn: StepFunction, scope: StepScope) -> None:
        self._fn = fn
        self._scope = scope
        self.errors: List[BaseException] = []
        self.phases: List[_abi.StepPhase] = []
        self.c_function = _abi.StepFn(self._call)

    def _call(self, user: Optional[int], stream: Optional[int], ctx: Any) -> int:
        try:
            c = ctx.contents
            context = StepContext(
                key=c.key,
                step_index=c.step_index,
                phase=_abi.StepPhase(c.phase),
                stream=stream or 0,
            )
            self.phases.append(context.phase)
            with self._scope(context):
                self._fn(context)
            return int(_abi.Status.OK)
        except BaseException as exc:  # noqa: B902 - nothing may unwind into C
            self.errors.append(exc)
            return STEP_CALLBACK_RAISED

    def fallback_error(self) -> Optional[BaseException]:
        """The exception of a capture the plugin abandoned for an eager run,
        with its frames' locals released (they may hold graph memory)."""
        if not self.errors:
            return None
        exc = self.errors[0]
        if exc.__traceback__ is not None:
            traceback.clear_frames(exc.__traceback__)
        return exc


class LogTrampoline:
    """The sg_log_fn of a session: delivers (level, message) to `fn`. An
    exception in `fn` is kept and re-raised after the entry that logged."""

    def __init__(self, fn: LogFunction) -> None:
        self._fn = fn
        self.pending: List[BaseException] = []
        self.c_function = _abi.LogFn(self._call)

    def _call(self, user: Optional[int], level: int, message: Optional[bytes]) -> None:
        try:
            try:
                named: int = _abi.LogLevel(level)
            except ValueError:
                named = level
            self._fn(named, (message or b"").decode("utf-8", "replace"))
        except BaseException as exc:  # noqa: B902 - nothing may unwind into C
            self.pending.append(exc)

    def take(self) -> Optional[BaseException]:
        """The first exception raised since the last take, if any."""
        if not self.pending:
            return None
        first = self.pending[0]
        self.pending.clear()
        return first

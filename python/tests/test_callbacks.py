"""Callbacks from C into Python: the step callback and the log callback.
An exception in either never unwinds into C; it reaches the caller.

Validation-only sessions refuse step() before calling the callback
(SG_ERR_NO_DEVICE, see test_session), so the step tests use a double of the
step entry that calls the binding's C callback as the plugin's driver does.
The log tests use the real plugin: its entries log through the callback."""

from __future__ import annotations

import ctypes
import gc
import sys
import traceback
import weakref
from typing import Any, Iterator, List, Tuple

import pytest

import stepgraph
from helpers import STREAM, TableDouble, write_message
from stepgraph import StepOutcome, StepPhase, _abi
from stepgraph._callbacks import STEP_CALLBACK_RAISED


class Driver:
    """A double of the step entry: runs the callback once per phase, going
    on after a failing phase only when it is followed by another (as the
    plugin's driver falls back to an eager run after a failed capture)."""

    def __init__(self, *phases: StepPhase, outcome: StepOutcome = StepOutcome.WARMUP) -> None:
        self.phases = phases
        self.outcome = outcome
        self.statuses: List[int] = []

    def __call__(self, session: int, args_pointer: Any) -> int:
        args = args_pointer.contents
        status = 0
        for index, phase in enumerate(self.phases):
            ctx = _abi.StepContext(session=session, key=args.key, step_index=index, phase=phase)
            ctx.struct_size = ctypes.sizeof(ctx)
            status = args.fn(args.user, args.stream, ctypes.byref(ctx))
            self.statuses.append(status)
        if status == 0:
            args.outcome_out = self.outcome
        return status


@pytest.fixture
def unraisable(monkeypatch: pytest.MonkeyPatch) -> List[Any]:
    """What ctypes would report as 'Exception ignored' from a callback."""
    seen: List[Any] = []
    monkeypatch.setattr(sys, "unraisablehook", seen.append)
    return seen


def _session(api: stepgraph.Api, **entries: Any) -> Tuple[stepgraph.Session, TableDouble]:
    double = TableDouble(api, **entries)
    return stepgraph.Session(validation_only=True, library=double.api), double


def test_step_passes_context_and_outcome(api: stepgraph.Api) -> None:
    driver = Driver(StepPhase.WARMUP, outcome=StepOutcome.WARMUP)
    session, _ = _session(api, step=driver)
    seen: List[stepgraph.StepContext] = []
    result = session.step(seen.append, key=9, stream=STREAM)
    assert result == stepgraph.StepResult(StepOutcome.WARMUP)
    assert seen == [stepgraph.StepContext(key=9, step_index=0, phase=StepPhase.WARMUP, stream=STREAM)]
    assert driver.statuses == [0]


def test_step_exception_becomes_a_failing_status_and_is_reraised(
    api: stepgraph.Api, unraisable: List[Any]
) -> None:
    driver = Driver(StepPhase.WARMUP)
    session, _ = _session(api, step=driver)

    def failing_step(ctx: stepgraph.StepContext) -> None:
        raise ValueError(f"bad step {ctx.key}")

    with pytest.raises(ValueError, match="bad step 4") as info:
        session.step(failing_step, key=4, stream=STREAM)
    assert driver.statuses == [STEP_CALLBACK_RAISED]  # what C saw: not SG_OK
    frames = [frame.name for frame in traceback.extract_tb(info.value.__traceback__)]
    assert "failing_step" in frames
    assert unraisable == []


def test_keyboard_interrupt_in_the_step_does_not_escape_into_c(
    api: stepgraph.Api, unraisable: List[Any]
) -> None:
    driver = Driver(StepPhase.EAGER)
    session, _ = _session(api, step=driver)

    def interrupted(ctx: stepgraph.StepContext) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        session.step(interrupted, stream=STREAM)
    assert driver.statuses == [STEP_CALLBACK_RAISED]
    assert unraisable == []


def test_capture_failure_with_eager_fallback_returns_the_reason(api: stepgraph.Api) -> None:
    """The plugin found the capture invalidated and ran the step eagerly in
    the same call: success, outcome EAGER, and the exception that explains
    it, with the frames' locals released (they may hold graph memory)."""
    driver = Driver(StepPhase.CAPTURE, StepPhase.EAGER, outcome=StepOutcome.EAGER)
    session, _ = _session(api, step=driver)

    class Temporary:
        pass

    refs: List["weakref.ref[Temporary]"] = []

    def step(ctx: stepgraph.StepContext) -> None:
        temporary = Temporary()
        refs.append(weakref.ref(temporary))
        if ctx.phase == StepPhase.CAPTURE:
            raise RuntimeError("operation not permitted when stream is capturing")

    result = session.step(step, key=2, stream=STREAM)
    assert result.outcome == StepOutcome.EAGER
    assert isinstance(result.capture_error, RuntimeError)
    assert "capturing" in str(result.capture_error)
    assert driver.statuses == [STEP_CALLBACK_RAISED, 0]
    gc.collect()
    assert [r() for r in refs] == [None, None]


def test_callback_scope_wraps_the_capture_phase_only(api: stepgraph.Api) -> None:
    """What stepgraph.torch builds on: the capture phase runs inside the
    capture body's scope, and afterwards the layer learns whether the key
    kept a graph (here it has none: graph_info answers NOT_FOUND)."""
    events: List[str] = []

    class Layer(stepgraph.Session):
        def _body_scope(self, key: int, stream: int) -> Any:
            return _recording(events, f"body {key} {stream:#x}")

        def _graph_dropped(self, key: int) -> None:
            events.append(f"dropped {key}")

        def _graph_installed(self, key: int) -> None:
            events.append(f"installed {key}")

    double = TableDouble(api, step=Driver(StepPhase.WARMUP, StepPhase.CAPTURE, outcome=StepOutcome.CAPTURED))
    with Layer(validation_only=True, library=double.api) as session:
        session.step(lambda ctx: events.append(ctx.phase.name), key=3, stream=STREAM)
    assert events == ["WARMUP", "enter body 3 0x5000", "CAPTURE", "exit body 3 0x5000", "dropped 3"]


def _recording(events: List[str], name: str) -> Any:
    import contextlib

    @contextlib.contextmanager
    def scope() -> Iterator[None]:
        events.append("enter " + name)
        yield
        events.append("exit " + name)

    return scope()


def _logging(api: stepgraph.Api, level: stepgraph.LogLevel, messages: List[Tuple[int, str]]) -> stepgraph.Session:
    return stepgraph.Session(
        validation_only=True, log=lambda lvl, text: messages.append((lvl, text)), log_level=level, library=api
    )


def test_log_callback_receives_messages(api: stepgraph.Api) -> None:
    messages: List[Tuple[int, str]] = []
    with _logging(api, stepgraph.LogLevel.INFO, messages) as session:
        with pytest.raises(stepgraph.NotFound):
            session.graph_info(6)
    assert any(level == stepgraph.LogLevel.INFO and "session created" in text for level, text in messages)
    assert (stepgraph.LogLevel.ERROR, "graph_info: key 6 has no graph") in messages
    assert all(isinstance(level, stepgraph.LogLevel) for level, _ in messages)


def test_log_level_filters(api: stepgraph.Api) -> None:
    messages: List[Tuple[int, str]] = []
    with _logging(api, stepgraph.LogLevel.ERROR, messages) as session:
        session.pre_capture(STREAM)  # logs at DEBUG
        with pytest.raises(stepgraph.NotFound):
            session.graph_info(6)
    assert messages == [(stepgraph.LogLevel.ERROR, "graph_info: key 6 has no graph")]


def test_log_callback_exception_reaches_the_caller(api: stepgraph.Api, unraisable: List[Any]) -> None:
    def broken_log(level: int, text: str) -> None:
        if "pre_capture" in text or "no graph" in text:
            raise ValueError(f"log failed on: {text}")

    with stepgraph.Session(
        validation_only=True, log=broken_log, log_level=stepgraph.LogLevel.DEBUG, library=api
    ) as session:
        with pytest.raises(ValueError, match="log failed on: pre_capture"):
            session.pre_capture(STREAM)  # the entry itself succeeded
        with pytest.raises(stepgraph.NotFound) as info:
            session.graph_info(6)
        assert isinstance(info.value.__context__, ValueError)
        session.rng_reserve(4)  # nothing pending any more
    assert unraisable == []


def test_capture_answering_run_eagerly_runs_the_body(api: stepgraph.Api) -> None:
    session, double = _session(
        api,
        capture_begin=lambda s, args: int(stepgraph.Status.RUN_EAGERLY),
        last_error=write_message(b"capture_begin: key 5 runs eagerly: graphs are disabled"),
    )
    ran = []
    with session.capture(5, STREAM) as capture:
        ran.append(capture)
    assert ran == [
        stepgraph.Capture(
            5, STREAM, stepgraph.RunEagerly(5, "capture_begin: key 5 runs eagerly: graphs are disabled")
        )
    ]
    assert "capture_end" not in double.names()


def test_replay_answering_run_eagerly_is_a_value(api: stepgraph.Api) -> None:
    session, _ = _session(
        api,
        replay=lambda s, args: int(stepgraph.Status.RUN_EAGERLY),
        last_error=write_message(b"replay: key 1 runs eagerly: capture failed"),
    )
    assert session.replay(1, STREAM) == stepgraph.RunEagerly(1, "replay: key 1 runs eagerly: capture failed")


def _capture_double(api: stepgraph.Api, end_status: int = 0) -> Tuple[stepgraph.Session, TableDouble]:
    return _session(
        api,
        capture_begin=lambda s, args: 0,
        capture_end=lambda s, args: end_status,
        invalidate=lambda s, key: 0,
        last_error=write_message(b"capture_end: capture of key 1 failed with cudaErrorStreamCaptureInvalidated"),
    )


def test_capture_ends_the_capture(api: stepgraph.Api) -> None:
    session, double = _capture_double(api)
    with session.capture(1, STREAM) as capture:
        assert capture.eager is None
    assert double.names() == ["capture_begin", "capture_end"]


def test_capture_body_exception_drops_the_partial_graph(api: stepgraph.Api) -> None:
    session, double = _capture_double(api)
    with pytest.raises(ZeroDivisionError):
        with session.capture(1, STREAM):
            1 / 0
    assert double.names() == ["capture_begin", "capture_end", "invalidate"]


def test_capture_failure_raises_capture_failed(api: stepgraph.Api) -> None:
    session, _ = _capture_double(api, end_status=int(stepgraph.Status.ERR_CAPTURE_FAILED))
    with pytest.raises(stepgraph.CaptureFailed, match="cudaErrorStreamCaptureInvalidated"):
        with session.capture(1, STREAM):
            pass

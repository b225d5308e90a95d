"""Conditional regions (ABI 1.1): guard_begin, guard_end, loop_begin,
loop_next and their Pythonic forms.

Through the real plugin on validation-only sessions: every argument the
binding passes is checked and named, the opening entries stop at the device
(NoDevice), the closing ones refuse what is not open. Through a double of
the four entries that answers as the plugin does eagerly and while
capturing: what ``guard`` and ``loop`` call, yield and close, also when the
body raises or leaves early."""

from __future__ import annotations

import ctypes
from typing import Any, List, Optional

import pytest

import stepgraph
from helpers import STREAM, TableDouble
from stepgraph import Status

FLAG = 0x900000  # a device int32 (never dereferenced by a validation-only session)
INDEX = 0xA00000  # the index word the double hands out


def _address(pointer: Any) -> Optional[int]:
    return ctypes.cast(pointer, ctypes.c_void_p).value


# --- The real plugin --------------------------------------------------------


@pytest.mark.parametrize(
    "call, error, detail",
    [
        (lambda s: s.guard_begin(None, STREAM), stepgraph.InvalidArgument, "guard_begin: flag is NULL"),
        (lambda s: s.guard_begin(FLAG, 0), stepgraph.InvalidArgument, "guard_begin: stream is the legacy default stream"),
        (lambda s: s.guard_begin(FLAG, STREAM), stepgraph.NoDevice, "guard_begin: needs a GPU"),
        (lambda s: s.loop_begin(None, STREAM), stepgraph.InvalidArgument, "loop_begin: trip_count is NULL"),
        (lambda s: s.loop_begin(FLAG, 0), stepgraph.InvalidArgument, "loop_begin: stream is the legacy default stream"),
        (lambda s: s.loop_begin(FLAG, STREAM), stepgraph.NoDevice, "loop_begin: needs a GPU"),
        (lambda s: s.guard_end(STREAM), stepgraph.InvalidState, "guard_end: no guard is open"),
        (lambda s: s.loop_next(STREAM), stepgraph.InvalidState, "loop_next: no loop is open"),
    ],
    ids=["flag", "guard stream", "guard device", "trip_count", "loop stream", "loop device", "guard_end", "loop_next"],
)
def test_region_entries_check_their_arguments(session: stepgraph.Session, call: Any, error: type, detail: str) -> None:
    with pytest.raises(stepgraph.Error) as info:
        call(session)
    assert type(info.value) is error
    assert info.value.detail.startswith(detail), info.value.detail
    assert info.value.detail == session.last_error()


def test_the_mirror_passes_each_out_argument_where_the_plugin_expects_it(session: stepgraph.Session) -> None:
    """The raw entries with one out pointer NULL at a time: the plugin names
    the one the mirror's signature put in that place."""
    handle, api = session.handle, session.api
    flag = ctypes.cast(FLAG, ctypes.POINTER(ctypes.c_int32))
    value = ctypes.c_uint32(7)
    index = ctypes.POINTER(ctypes.c_uint32)()
    calls = [
        (lambda: api.entry("guard_begin")(handle, STREAM, flag, None), "run_body_out is NULL"),
        (lambda: api.entry("loop_begin")(handle, STREAM, flag, None, ctypes.byref(value)), "index_out is NULL"),
        (lambda: api.entry("loop_begin")(handle, STREAM, flag, ctypes.byref(index), None), "again_out is NULL"),
        (lambda: api.entry("loop_next")(handle, STREAM, None), "again_out is NULL"),
    ]
    for call, detail in calls:
        assert call() == Status.ERR_INVALID_ARGUMENT
        assert detail in session.last_error()
    assert value.value == 7 and not index  # nothing written on failure


def test_guard_and_loop_stop_at_the_device_without_running_the_body(session: stepgraph.Session) -> None:
    ran: List[Any] = []
    with pytest.raises(stepgraph.NoDevice, match="guard_begin: needs a GPU"):
        with session.guard(FLAG, STREAM) as run:
            ran.append(run)
    with pytest.raises(stepgraph.NoDevice, match="loop_begin: needs a GPU"):
        for index in session.loop(FLAG, STREAM):
            ran.append(index)
    assert ran == []
    with pytest.raises(stepgraph.InvalidState, match="no guard is open"):
        session.guard_end(STREAM)  # nothing was opened


def test_flags_from_objects_and_streams_from_objects(session: stepgraph.Session) -> None:
    class TensorLike:
        def data_ptr(self) -> int:
            return FLAG

    class TorchStream:
        cuda_stream = STREAM

    with pytest.raises(stepgraph.NoDevice):  # both accepted: the device is next
        session.guard_begin(TensorLike(), TorchStream())
    with pytest.raises(stepgraph.InvalidArgument, match="float is not a device address"):
        session.loop_begin(1.5, STREAM)


def test_a_1_0_plugin_has_no_regions(api: stepgraph.Api) -> None:
    old = stepgraph.Api(api.table, 1 << 16, "1.0.0", "a 1.0 plugin", keepalive=api)
    with stepgraph.Session(validation_only=True, library=old) as session:
        for call, entry in [
            (lambda: session.guard_begin(FLAG, STREAM), "guard_begin"),
            (lambda: session.guard_end(STREAM), "guard_end"),
            (lambda: next(session.loop(FLAG, STREAM)), "loop_begin"),
            (lambda: session.loop_next(STREAM), "loop_next"),
        ]:
            with pytest.raises(stepgraph.NotSupported, match=f"{entry}: the plugin .* it needs ABI 1.1"):
                call()


# --- A double of the entries: what guard and loop do --------------------------


class Regions:
    """The four region entries as the plugin answers them: eagerly, the
    guard's run from `run` and `trips` iterations; capturing, always run
    and one recorded iteration. `fail_end` makes guard_end fail."""

    def __init__(self, run: int = 1, trips: int = 3, captured: bool = False, fail_end: bool = False) -> None:
        self.run, self.trips, self.captured, self.fail_end = run, trips, captured, fail_end
        self.done = 0
        self.flags: List[Optional[int]] = []
        self.streams: List[int] = []

    def entries(self) -> dict:
        return {
            "guard_begin": self.guard_begin,
            "guard_end": self.guard_end,
            "loop_begin": self.loop_begin,
            "loop_next": self.loop_next,
        }

    def guard_begin(self, session: int, stream: int, flag: Any, run_out: Any) -> int:
        self.streams.append(stream)
        self.flags.append(_address(flag))
        run_out[0] = 1 if self.captured else self.run
        return 0

    def guard_end(self, session: int, stream: int) -> int:
        self.streams.append(stream)
        return Status.ERR_INVALID_STATE if self.fail_end else 0

    def loop_begin(self, session: int, stream: int, trips: Any, index_out: Any, again_out: Any) -> int:
        self.streams.append(stream)
        self.flags.append(_address(trips))
        index_out[0] = ctypes.cast(INDEX, ctypes.POINTER(ctypes.c_uint32))
        again_out[0] = 1 if self.captured else int(self.trips > 0)
        return 0

    def loop_next(self, session: int, stream: int, again_out: Any) -> int:
        self.streams.append(stream)
        self.done += 1
        again_out[0] = 0 if self.captured else int(self.done < self.trips)
        return 0


def _session(api: stepgraph.Api, regions: Regions) -> "tuple[stepgraph.Session, TableDouble]":
    double = TableDouble(api, **regions.entries())
    return stepgraph.Session(validation_only=True, library=double.api), double


@pytest.mark.parametrize("run", [1, 0])
def test_guard_yields_whether_to_run_and_always_closes(api: stepgraph.Api, run: int) -> None:
    regions = Regions(run=run)
    session, double = _session(api, regions)
    with session.guard(FLAG, STREAM) as answer:
        assert double.names() == ["guard_begin"]
    assert answer is bool(run)
    assert double.names() == ["guard_begin", "guard_end"]
    assert regions.flags == [FLAG] and regions.streams == [STREAM, STREAM]


def test_a_captured_guard_always_runs_its_body(api: stepgraph.Api) -> None:
    session, _ = _session(api, Regions(run=0, captured=True))
    with session.guard(FLAG, STREAM) as run:
        assert run is True


def test_guard_closes_when_the_body_raises(api: stepgraph.Api) -> None:
    session, double = _session(api, Regions())
    with pytest.raises(ValueError, match="in the body"):
        with session.guard(FLAG, STREAM):
            raise ValueError("in the body")
    assert double.names() == ["guard_begin", "guard_end"]


def test_a_failing_guard_end_does_not_hide_the_body_exception(api: stepgraph.Api) -> None:
    session, double = _session(api, Regions(fail_end=True))
    with pytest.raises(ValueError):
        with session.guard(FLAG, STREAM):
            raise ValueError("in the body")
    assert double.names()[-1] == "guard_end"
    with pytest.raises(stepgraph.InvalidState):  # without a body exception it is reported
        with session.guard(FLAG, STREAM):
            pass


def test_guard_keeps_its_flag_until_close(api: stepgraph.Api) -> None:
    class Flag:
        def data_ptr(self) -> int:
            return FLAG

    session, _ = _session(api, Regions())
    flag = Flag()
    with session.guard(flag, STREAM):
        pass
    assert flag in session.kept
    session.close()
    assert session.kept == ()


def test_eager_loop_yields_the_index_once_per_iteration(api: stepgraph.Api) -> None:
    regions = Regions(trips=3)
    session, double = _session(api, regions)
    seen = [(index, list(double.names())) for index in session.loop(FLAG, STREAM)]
    assert [index for index, _ in seen] == [INDEX] * 3
    assert [names.count("loop_next") for _, names in seen] == [0, 1, 2]  # body before each loop_next
    assert double.names() == ["loop_begin"] + ["loop_next"] * 3
    assert set(regions.streams) == {STREAM} and regions.flags == [FLAG]


def test_captured_loop_yields_once(api: stepgraph.Api) -> None:
    session, double = _session(api, Regions(trips=5, captured=True))
    assert list(session.loop(FLAG, STREAM)) == [INDEX]
    assert double.names() == ["loop_begin", "loop_next"]


def test_empty_eager_loop_yields_nothing_and_never_calls_loop_next(api: stepgraph.Api) -> None:
    session, double = _session(api, Regions(trips=0))
    assert list(session.loop(FLAG, STREAM)) == []
    assert double.names() == ["loop_begin"]


def test_leaving_a_loop_early_closes_it(api: stepgraph.Api) -> None:
    regions = Regions(trips=4)
    session, double = _session(api, regions)
    for _ in session.loop(FLAG, STREAM):
        break
    assert double.names() == ["loop_begin"] + ["loop_next"] * 4  # until it answered 0
    with pytest.raises(KeyError):
        regions.done = 0
        for _ in session.loop(FLAG, STREAM):
            raise KeyError("in the body")
    assert double.names()[5:] == ["loop_begin"] + ["loop_next"] * 4


def test_loop_begin_and_next_directly(api: stepgraph.Api) -> None:
    session, _ = _session(api, Regions(trips=2))
    assert session.loop_begin(FLAG, STREAM) == (INDEX, True)
    assert session.loop_next(STREAM) is True
    assert session.loop_next(STREAM) is False

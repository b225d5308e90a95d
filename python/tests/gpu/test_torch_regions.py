"""Guards and loops (ABI 1.1) around PyTorch in-place work: one step with a
guard, a loop and a guard nested in the loop whose flag the loop body
computes on the device from the iteration index. Run eagerly through the
plugin's eager regions, captured by session.capture and by the step
driver, then replayed with the flag and trip count changed between replays
(no re-capture): every step bit-identical to the same step written in
plain PyTorch with host-side decisions. Regions in a capture the host began
(torch.cuda.graph) are refused and leave that capture intact."""

from __future__ import annotations

from typing import Any, List, Optional, Tuple

import pytest

from torch_support import assert_same_bits, require_torch

torch = require_torch()

import stepgraph  # noqa: E402
import stepgraph.torch as sgt  # noqa: E402
from stepgraph import StepOutcome  # noqa: E402

# (guard flag, trip count) per step; a trip count <= 0 runs no iteration.
SEQUENCE: List[Tuple[int, int]] = [(1, 3), (0, 2), (1, 0), (0, 5), (1, -2), (1, 4), (0, 1), (1, 6)]


class State:
    """The step's tensors: acc is updated in place; flag, trips and odd are
    the regions' device int32s."""

    def __init__(self) -> None:
        g = torch.Generator().manual_seed(5)
        self.x = torch.randn(4096, generator=g).cuda()
        self.acc = torch.zeros(4096, device="cuda")
        self.flag = torch.zeros(1, dtype=torch.int32, device="cuda")
        self.trips = torch.zeros(1, dtype=torch.int32, device="cuda")
        self.odd = torch.zeros(1, dtype=torch.int32, device="cuda")
        self.last_index: Optional[Any] = None

    def set(self, run: int, trips: int) -> None:
        """The step's inputs, on the current stream."""
        self.flag.fill_(run)
        self.trips.fill_(trips)


def regions_step(session: sgt.Session, s: State) -> None:
    """The step through stepgraph's regions (one code path: eager, captured)."""
    with session.guard(s.flag) as run:
        if run:
            s.acc.mul_(0.5)
    for index in session.loop(s.trips):
        s.acc.add_(s.x)
        torch.remainder(index, 2, out=s.odd)  # decided on the device, per iteration
        with session.guard(s.odd) as odd:
            if odd:
                s.acc.add_(index)
        s.last_index = index


def reference_step(s: State, run: int, trips: int) -> None:
    """The same step in plain PyTorch, the same kernels on the same dtypes."""
    if run:
        s.acc.mul_(0.5)
    for i in range(max(0, trips)):
        s.acc.add_(s.x)
        if i % 2:
            s.acc.add_(torch.full((1,), i, dtype=torch.int32, device="cuda"))


def _eager_on(session: sgt.Session, s: State, run: int, trips: int) -> None:
    """One step through the plugin's eager regions, on the session's stream
    (the regions refuse the legacy default stream)."""
    session.stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(session.stream):
        s.set(run, trips)
        regions_step(session, s)
    torch.cuda.current_stream().wait_stream(session.stream)


def test_guard_and_loop_in_a_capture_replay_as_eager() -> None:
    s, ref = State(), State()
    with sgt.Session() as session:
        _eager_on(session, s, 1, 3)  # also the warm-up before capturing
        reference_step(ref, 1, 3)
        torch.cuda.synchronize()
        assert_same_bits(s.acc, ref.acc, "the eager step")
        stats = session.stats()
        assert (stats.guards, stats.guards_skipped, stats.loops) == (4, 2, 1)  # the inner guard skipped i = 0, 2
        assert int(s.last_index.item()) == 3  # after the loop: the trip count

        session.pre_capture()
        before = s.acc.clone()
        with session.capture(1) as capture:
            regions_step(session, s)
        assert capture.eager is None
        torch.cuda.synchronize()
        assert_same_bits(s.acc, before, "after capture (it records, runs nothing)")
        info = session.graph_info(1)
        assert info.conditional_nodes == 3 and not info.eager_only  # guard, loop, nested guard
        stats = session.stats()
        assert (stats.guards, stats.loops, stats.conditional_nodes) == (6, 2, 3)

        for step, (run, trips) in enumerate(SEQUENCE):
            s.set(run, trips)
            assert session.replay(1) is None
            reference_step(ref, run, trips)
            torch.cuda.synchronize()
            assert_same_bits(s.acc, ref.acc, f"replay {step} (flag {run}, trip count {trips})")
            if trips > 0:
                assert int(s.last_index.item()) == trips, f"replay {step}: the index after the loop"
        assert session.graph_info(1).replays == len(SEQUENCE)
        assert session.stats().captures == 1  # the trip count changed with no re-capture


def test_the_step_driver_runs_regions_eagerly_then_captures_and_replays_them() -> None:
    s, ref = State(), State()
    outcomes = []
    with sgt.Session(warmup_steps=2) as session:
        for step, (run, trips) in enumerate(SEQUENCE):
            s.set(run, trips)
            outcomes.append(session.step(lambda ctx: regions_step(session, s), key=2).outcome)
            reference_step(ref, run, trips)
            torch.cuda.synchronize()
            assert_same_bits(s.acc, ref.acc, f"step {step} ({outcomes[-1].name}, flag {run}, trip count {trips})")
        assert session.graph_info(2).conditional_nodes == 3
    assert outcomes == [StepOutcome.WARMUP] * 2 + [StepOutcome.CAPTURED] + [StepOutcome.REPLAYED] * (len(SEQUENCE) - 3)


def test_a_body_that_raises_closes_its_regions() -> None:
    """Eagerly: the exception leaves guard and loop closed, so the next
    step (and capture_begin) work."""
    s, ref = State(), State()
    with sgt.Session() as session:
        session.stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(session.stream):
            s.set(1, 4)
            with pytest.raises(ZeroDivisionError):
                with session.guard(s.flag):
                    for _ in session.loop(s.trips):
                        raise ZeroDivisionError("in the body")
        torch.cuda.current_stream().wait_stream(session.stream)
        _eager_on(session, s, 0, 2)
        reference_step(ref, 0, 2)
        torch.cuda.synchronize()
        assert_same_bits(s.acc, ref.acc, "the step after the exception")
        session.pre_capture()
        with session.capture(3) as capture:
            s.acc.add_(1)
        assert capture.eager is None


def test_regions_refuse_a_capture_the_host_began() -> None:
    s = State()
    with sgt.Session() as session:
        s.acc.add_(1)  # warm-up of the captured kernel
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):  # PyTorch's default: global capture mode
            with pytest.raises(stepgraph.InvalidState, match="not in a capture of this session"):
                session.guard_begin(s.flag)
            with pytest.raises(stepgraph.InvalidState, match="not in a capture of this session"):
                next(session.loop(s.trips))
            s.acc.add_(1)
        graph.replay()
        torch.cuda.synchronize()
        assert bool((s.acc == 2).all()), "the host's capture was harmed"
        assert session.stats().guards == 0

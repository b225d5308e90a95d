"""Plugin-owned captures of PyTorch work: a step that allocates temporaries,
captured by stepgraph (the step driver and the capture context manager) and
replayed many times, bit-identical to eager; the eager fallback after a
forced capture failure (.item() inside the step) with its reason; random
operations refused; invalidate and close release the private pool."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, List, Tuple

import pytest

from torch_support import assert_same_bits, require_torch

torch = require_torch()

import stepgraph  # noqa: E402
import stepgraph.torch as sgt  # noqa: E402
from stepgraph import StepOutcome  # noqa: E402

STEPS = 20
WARMUP = 2


class Mlp:
    """A two-layer MLP trained by hand: every line allocates temporaries."""

    def __init__(self, seed: int) -> None:
        g = torch.Generator().manual_seed(seed)
        self.x = torch.randn(64, 96, generator=g).cuda()
        self.target = torch.randn(64, 40, generator=g).cuda()
        self.w1 = (torch.randn(96, 128, generator=g) * 0.1).cuda()
        self.w2 = (torch.randn(128, 40, generator=g) * 0.1).cuda()
        self.loss = torch.zeros((), device="cuda")

    def step(self) -> None:
        h = torch.tanh(self.x @ self.w1)
        out = h @ self.w2
        g_out = (out - self.target) * (2.0 / out.numel())
        g_w2 = h.t() @ g_out
        g_h = (g_out @ self.w2.t()) * (1 - h * h)
        g_w1 = self.x.t() @ g_h
        self.w1.sub_(0.05 * g_w1)
        self.w2.sub_(0.05 * g_w2)
        self.loss.copy_((out - self.target).pow(2).mean())

    def state(self) -> List[Any]:
        return [self.w1, self.w2, self.loss]


class AutogradModel:
    """nn.Module, autograd backward and torch.optim.SGD with momentum."""

    def __init__(self, seed: int) -> None:
        torch.manual_seed(seed)
        self.model = torch.nn.Sequential(
            torch.nn.Linear(96, 128), torch.nn.Tanh(), torch.nn.Linear(128, 40)
        ).cuda()
        g = torch.Generator().manual_seed(seed + 1)
        self.x = torch.randn(64, 96, generator=g).cuda()
        self.target = torch.randn(64, 40, generator=g).cuda()
        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.05, momentum=0.9)
        self.loss = torch.zeros((), device="cuda")

    def step(self) -> None:
        loss = torch.nn.functional.mse_loss(self.model(self.x), self.target)
        loss.backward()
        self.opt.step()
        self.opt.zero_grad(set_to_none=True)
        self.loss.copy_(loss.detach())

    def state(self) -> List[Any]:
        return [*self.model.parameters(), self.loss]


MODELS = [Mlp, AutogradModel]


def eager_reference(model_type: Callable[[int], Any], steps: int) -> Any:
    model = model_type(7)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(steps):
            model.step()
    torch.cuda.synchronize()
    return model


def assert_same_state(actual: Any, expected: Any) -> None:
    for i, (a, e) in enumerate(zip(actual.state(), expected.state())):
        assert_same_bits(a, e, f"state tensor {i}")


@pytest.mark.parametrize("model_type", MODELS, ids=lambda m: m.__name__)
def test_step_driver_graphs_a_step_that_allocates(model_type: Callable[[int], Any]) -> None:
    expected = eager_reference(model_type, STEPS)
    model = model_type(7)
    with sgt.Session(warmup_steps=WARMUP) as session:
        outcomes = [session.step(lambda ctx: model.step(), key=1).outcome for _ in range(STEPS)]
        torch.cuda.synchronize()
        assert outcomes == [StepOutcome.WARMUP] * WARMUP + [StepOutcome.CAPTURED] + [StepOutcome.REPLAYED] * (
            STEPS - WARMUP - 1
        )
        assert_same_state(model, expected)
        info = session.graph_info(1)
        assert info.nodes > 5 and not info.eager_only and info.replays == STEPS - WARMUP
        stats = session.stats()
        assert (stats.captures, stats.capture_failures, stats.eager_runs) == (1, 0, 0)
        assert session.graph_pool(1) is not None


@pytest.mark.parametrize("model_type", MODELS, ids=lambda m: m.__name__)
def test_capture_context_manager_graphs_a_step_that_allocates(model_type: Callable[[int], Any]) -> None:
    expected = eager_reference(model_type, STEPS)
    model = model_type(7)
    with sgt.Session() as session:
        # Warm up on the stream the capture uses, as PyTorch recommends.
        session.stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(session.stream):
            for _ in range(WARMUP):
                model.step()
        session.pre_capture()
        with session.capture(3) as capture:
            model.step()  # recorded, not run
        assert capture.eager is None
        for _ in range(STEPS - WARMUP):
            assert session.replay(3) is None
        torch.cuda.synchronize()
        assert_same_state(model, expected)


def test_dump_graph_of_a_pytorch_capture(tmp_path: Path) -> None:
    model = Mlp(3)
    with sgt.Session(warmup_steps=1) as session:
        session.step(lambda ctx: model.step(), key=4)
        session.step(lambda ctx: model.step(), key=4)
        session.dump_graph(4, tmp_path / "step.dot")
    assert (tmp_path / "step.dot").read_text().startswith("digraph")


def test_eager_fallback_after_a_forced_capture_failure() -> None:
    x = torch.arange(1024, dtype=torch.float32, device="cuda")
    out = torch.zeros_like(x)
    logged: List[Tuple[int, str]] = []

    def step(ctx: stepgraph.StepContext) -> None:
        doubled = x * 2
        if doubled.sum().item() > 0:  # a host sync: illegal while capturing
            out.copy_(doubled + ctx.step_index)

    with sgt.Session(
        warmup_steps=1, log=lambda level, text: logged.append((level, text)), log_level=stepgraph.LogLevel.ERROR
    ) as session:
        assert session.step(step, key=1).outcome == StepOutcome.WARMUP
        result = session.step(step, key=1)
        assert result.outcome == StepOutcome.EAGER
        assert isinstance(result.capture_error, RuntimeError)
        assert "captur" in str(result.capture_error)
        torch.cuda.synchronize()
        assert torch.equal(out, x * 2 + 1)  # the eager rerun ran the step
        reasons = [text for _, text in logged if "capture of key 1 failed" in text]
        assert reasons and "cudaErrorStreamCapture" in reasons[0], logged
        assert session.graph_info(1).eager_only
        assert session.stats().capture_failures == 1
        assert session.graph_pool(1) is None  # the failed capture's pool is released
        later = session.step(step, key=1)
        assert later == stepgraph.StepResult(StepOutcome.EAGER)
        eager = session.replay(1)
        assert isinstance(eager, stepgraph.RunEagerly) and "capture of key 1 failed" in eager.reason


def test_random_operations_in_a_plugin_capture_are_refused() -> None:
    x = torch.ones(4096, device="cuda")
    out = torch.empty_like(x)

    def step(ctx: stepgraph.StepContext) -> None:
        out.copy_(torch.nn.functional.dropout(x, 0.5, training=True))

    with sgt.Session(warmup_steps=1) as session:
        assert session.step(step, key=2).outcome == StepOutcome.WARMUP  # eager: fine
        with pytest.raises(sgt.UnsupportedRandomness, match="torch.cuda.graph") as info:
            session.step(step, key=2)
        assert "not in capture mode" in str(info.value.__cause__)
        assert info.value.status == stepgraph.Status.ERR_NOT_SUPPORTED
        with pytest.raises(stepgraph.NotFound):
            session.graph_info(2)  # no graph, and not eager-only: it may capture again
        session.pre_capture()
        with pytest.raises(sgt.UnsupportedRandomness):
            with session.capture(5):
                step(None)  # type: ignore[arg-type]
        assert session.graph_pool(2) is None and session.graph_pool(5) is None


def test_disabled_graphs_run_the_body_eagerly(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STEPGRAPH_DISABLE", "1")
    x = torch.arange(256, dtype=torch.float32, device="cuda")
    out = torch.zeros_like(x)
    with sgt.Session() as session:
        session.pre_capture()
        with session.capture(1) as capture:
            out.copy_(x * 3)
        assert capture.eager is not None and "graphs are disabled" in capture.eager.reason
        torch.cuda.synchronize()
        assert torch.equal(out, x * 3)
        assert isinstance(session.replay(1), stepgraph.RunEagerly)
        assert session.step(lambda ctx: out.add_(1), key=2).outcome == StepOutcome.EAGER


MIB = 1 << 20


def _pool_bytes(pool: Any) -> int:
    return sum(s["total_size"] for s in torch.cuda.memory_snapshot() if tuple(s.get("segment_pool_id", ())) == pool)


@pytest.mark.parametrize("release", ["invalidate", "close"])
def test_losing_the_graph_releases_its_pool(release: str) -> None:
    x = torch.randn(16 * MIB, device="cuda")  # 64 MiB
    out = torch.empty_like(x)

    def step(ctx: stepgraph.StepContext) -> None:
        doubled = x * 2  # two 64 MiB temporaries alive at once
        out.copy_(doubled + 1)

    session = sgt.Session(warmup_steps=1)
    session.step(step, key=7)
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    baseline = torch.cuda.memory_reserved()
    assert session.step(step, key=7).outcome == StepOutcome.CAPTURED
    for _ in range(3):
        session.step(step, key=7)
    torch.cuda.synchronize()
    assert torch.equal(out, x * 2 + 1)
    pool = session.graph_pool(7)
    assert pool is not None and _pool_bytes(pool) >= 128 * MIB
    assert torch.cuda.memory_reserved() >= baseline + 128 * MIB
    if release == "invalidate":
        session.invalidate(7)
        assert session.graph_pool(7) is None
    else:
        session.close()
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    assert _pool_bytes(pool) == 0
    assert torch.cuda.memory_reserved() <= baseline
    session.close()


@pytest.mark.parametrize("explicit", [False, True], ids=["side stream", "caller's stream"])
def test_the_step_runs_on_the_capture_stream(explicit: bool) -> None:
    caller = torch.cuda.Stream()
    seen: List[Tuple[Any, int, int]] = []

    def step(ctx: stepgraph.StepContext) -> None:
        seen.append((ctx.phase, ctx.stream, torch.cuda.current_stream().cuda_stream))

    with sgt.Session(warmup_steps=1) as session:
        for _ in range(3):
            session.step(step, key=1, stream=caller if explicit else None)
        expected = caller.cuda_stream if explicit else session.stream.cuda_stream
    assert [phase for phase, _, _ in seen] == [stepgraph.StepPhase.WARMUP, stepgraph.StepPhase.CAPTURE]
    assert all(s == expected and current == expected for _, s, current in seen)

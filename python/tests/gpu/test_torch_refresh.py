"""The FP8 refresh from PyTorch, checked byte for byte against PyTorch's own
w.t().contiguous() and clamp(m * s).to(fp8) on odd shapes with padded
strides; then inside torch.cuda.graph (a host-owned capture, PyTorch's
default global capture mode), following in-place master updates across
replays; the no-op flag; rng_end_step inside torch.cuda.graph."""

from __future__ import annotations

from typing import Any, Dict, List, Tuple

import pytest

from torch_support import assert_same_bits, bits, require_torch

torch = require_torch()

import stepgraph  # noqa: E402
import stepgraph.torch as sgt  # noqa: E402
from stepgraph import RefreshMode  # noqa: E402

E4M3, E5M2 = torch.float8_e4m3fn, torch.float8_e5m2
MAX_FINITE = {E4M3: 448.0, E5M2: 57344.0}
SENTINEL = 0xA5  # padding bytes the refresh must not touch
ODD_SHAPES = [(1, 1), (3, 5), (17, 33), (129, 67), (250, 1031)]


def padded_fp8(rows: int, cols: int, pad: int, fmt: Any, random: bool = False) -> Tuple[Any, Any]:
    """(buffer of bytes [rows, cols + pad], the FP8 view [rows, cols])."""
    if random:
        buf = torch.randint(0, 256, (rows, cols + pad), dtype=torch.uint8, device="cuda")
    else:
        buf = torch.full((rows, cols + pad), SENTINEL, dtype=torch.uint8, device="cuda")
    return buf, buf.view(fmt)[:, :cols]


class CastParam:
    """A parameter with a padded master and padded W / Wt, for the cast modes."""

    def __init__(self, rows: int, cols: int, fmt: Any, master_dtype: Any, scale: float) -> None:
        self.fmt = fmt
        self.master = (torch.randn(rows, cols + 3, device="cuda") * 300).to(master_dtype)[:, :cols]
        self.w_buf, self.w = padded_fp8(rows, cols, 2, fmt)
        self.wt_buf, self.wt = padded_fp8(cols, rows, 5, fmt)
        self.scale = torch.tensor([scale], device="cuda")
        self.scale_inv = torch.zeros(1, device="cuda")
        self.amax = torch.zeros(1, device="cuda")

    def desc(self, **kwargs: Any) -> stepgraph.Fp8Param:
        return sgt.fp8_param(
            self.w, self.wt, master=self.master, scale=self.scale, scale_inv=self.scale_inv, amax=self.amax, **kwargs
        )

    def expected(self) -> Tuple[Any, Any, Any]:
        """PyTorch's answer, on the CPU: (W, amax, scale_inv)."""
        m = self.master.float().cpu()  # BF16 widens exactly
        s = self.scale.cpu()
        limit = MAX_FINITE[self.fmt]
        return (m * s).clamp(-limit, limit).to(self.fmt), m.abs().max().reshape(1), 1.0 / s

    def check(self, what: str) -> None:
        w, amax, scale_inv = self.expected()
        assert_same_bits(self.w, w, f"{what}: W")
        assert_same_bits(self.wt, w.t().contiguous(), f"{what}: Wt")
        assert_same_bits(self.amax, amax, f"{what}: amax")
        assert_same_bits(self.scale_inv, scale_inv, f"{what}: scale_inv")
        rows, cols = self.w.shape
        assert bool((self.w_buf[:, cols:] == SENTINEL).all()), f"{what}: W's padding was written"
        assert bool((self.wt_buf[:, rows:] == SENTINEL).all()), f"{what}: Wt's padding was written"


@pytest.mark.parametrize("fmt", [E4M3, E5M2])
def test_transpose_equals_torch_on_odd_padded_shapes(fmt: Any) -> None:
    cases: List[Dict[str, Any]] = []
    with sgt.Session() as session:
        for i, (rows, cols) in enumerate(ODD_SHAPES):
            w_buf, w = padded_fp8(rows, cols, 3 + i, fmt, random=True)
            wt_buf, wt = padded_fp8(cols, rows, 1 + 2 * i, fmt)
            cases.append({"w": w, "wt": wt, "wt_buf": wt_buf, "rows": rows})
        session.register_fp8_params([sgt.fp8_param(c["w"], c["wt"]) for c in cases])
        session.refresh(RefreshMode.TRANSPOSE)
        torch.cuda.synchronize()
        for c in cases:
            assert_same_bits(c["wt"], c["w"].t().contiguous(), f"Wt of {tuple(c['w'].shape)}")
            assert bool((c["wt_buf"][:, c["rows"]:] == SENTINEL).all())
        assert session.stats().refreshes == 1


@pytest.mark.parametrize("master_dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("fmt", [E4M3, E5M2])
def test_cast_transpose_equals_torch(fmt: Any, master_dtype: Any) -> None:
    # Scales from tiny (subnormal outputs) to large (saturation).
    params = [
        CastParam(rows, cols, fmt, master_dtype, scale)
        for (rows, cols), scale in zip([(1, 1), (7, 9), (33, 17), (130, 257)], [1.37, 2.0**-9, 0.75, 40.0])
    ]
    with sgt.Session() as session:
        session.register_fp8_params([p.desc() for p in params])
        session.refresh(RefreshMode.CAST_TRANSPOSE)
        torch.cuda.synchronize()
        for p in params:
            p.check(f"{tuple(p.w.shape)} {fmt} from {master_dtype}")


def test_cast_mode_writes_only_the_owned_range() -> None:
    p = CastParam(9, 13, E4M3, torch.float32, 3.0)
    begin, end = 10, 75
    with sgt.Session() as session:
        session.register_fp8_params([p.desc(cast_range=(begin, end))])
        session.refresh(RefreshMode.CAST)
        torch.cuda.synchronize()
    w, _, scale_inv = p.expected()
    flat_expected = bits(w).flatten()
    flat_actual = bits(p.w).flatten()
    sentinel = torch.full_like(flat_actual, SENTINEL)
    assert torch.equal(flat_actual[begin:end], flat_expected[begin:end])
    assert torch.equal(flat_actual[:begin], sentinel[:begin]) and torch.equal(flat_actual[end:], sentinel[end:])
    assert bool((p.wt_buf == SENTINEL).all()), "the cast mode wrote Wt"
    m = p.master.float().cpu().flatten()[begin:end]
    assert_same_bits(p.amax, m.abs().max().reshape(1), "amax over the range")
    assert_same_bits(p.scale_inv, scale_inv, "scale_inv")


def _warm_up(fn: Any) -> None:
    """Runs fn once eagerly on a side stream, as torch.cuda.graph's docs do."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        fn()
    torch.cuda.current_stream().wait_stream(side)


def test_refresh_inside_torch_cuda_graph_follows_master_updates() -> None:
    p = CastParam(67, 45, E4M3, torch.float32, 0.5)
    delta = torch.randn(67, 45, device="cuda")
    with sgt.Session() as session:
        session.register_fp8_params([p.desc()])

        def optimizer_step() -> None:
            p.master.add_(delta)  # the in-place master update
            session.refresh(RefreshMode.CAST_TRANSPOSE)

        _warm_up(optimizer_step)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):  # PyTorch's default: capture_error_mode="global"
            optimizer_step()
        for replay in range(4):
            delta.mul_(-1.5)  # the graph reads its inputs in place too
            graph.replay()
            torch.cuda.synchronize()
            p.check(f"replay {replay}")
        assert session.stats().refreshes == 2  # the warm-up and the capture's one launch


def test_noop_flag_skips_the_captured_refresh() -> None:
    p = CastParam(31, 20, E5M2, torch.bfloat16, 2.0)
    flag = torch.zeros(1, dtype=torch.int32, device="cuda")
    delta = torch.ones(31, 20, device="cuda", dtype=torch.bfloat16)
    with sgt.Session() as session:
        session.register_fp8_params([p.desc()])

        def optimizer_step() -> None:
            p.master.add_(delta)
            session.refresh(RefreshMode.CAST_TRANSPOSE, noop=flag)

        _warm_up(optimizer_step)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            optimizer_step()
        torch.cuda.synchronize()
        p.check("before the replays")
        flag.fill_(1)
        before = bits(p.w), bits(p.wt)
        graph.replay()
        torch.cuda.synchronize()
        assert torch.equal(bits(p.w), before[0]) and torch.equal(bits(p.wt), before[1]), "a no-op launch wrote"
        flag.fill_(0)
        graph.replay()
        torch.cuda.synchronize()
        p.check("after a replay with the flag cleared")
        assert any(flag is kept for kept in session.kept)


def test_noop_flag_must_be_one_int32() -> None:
    with sgt.Session() as session:
        with pytest.raises(stepgraph.InvalidArgument, match="noop has dtype torch.int64"):
            session.refresh(noop=torch.zeros(1, dtype=torch.int64, device="cuda"))


def test_rng_end_step_inside_torch_cuda_graph() -> None:
    with sgt.Session(rng_seed=1234) as session:
        start = session.rng_get_state()
        assert start == stepgraph.RngState(seed=1234, offset=0)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            assert session.rng_reserve(1000) == 0
            assert session.rng_reserve(24) == 1000
            session.rng_end_step()
        assert session.rng_get_state().offset == 0  # a capture runs nothing
        for _ in range(3):
            graph.replay()
        assert session.rng_get_state() == stepgraph.RngState(seed=1234, offset=3 * 1024)
        state = session.rng_device_state()
        assert state.seed != 0 and state.base_offset not in (0, state.seed)

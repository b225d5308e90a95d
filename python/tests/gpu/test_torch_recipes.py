"""The FP8 recipes (ABI 1.1) through stepgraph.torch, checked byte for byte
against PyTorch following the header's rules (post_optimizer_step):
scale_of(a) = 1 when a is 0, +inf or NaN, else FP8_MAX / a (one IEEE
division), FLT_MAX where that overflows (a subnormal a), rounded down to a
power of two with POW2_SCALES; W = sat_fp8(M * s), amax = max|M|,
scale_inv = 1 / s. Current scaling takes a = max|M| over the parameter,
block scaling over each 128 x 128 block of W (grids with padded rows, as
Transformer Engine lays them out). Then current scaling inside
torch.cuda.graph, following in-place master updates across replays."""

from __future__ import annotations

from typing import Any, List, Tuple

import pytest

from torch_support import assert_same_bits, require_torch

torch = require_torch()

import stepgraph  # noqa: E402
import stepgraph.torch as sgt  # noqa: E402
from stepgraph import FP8_BLOCK, Fp8Recipe, Fp8RecipeFlag, RefreshMode  # noqa: E402

E4M3, E5M2 = torch.float8_e4m3fn, torch.float8_e5m2
FP8_MAX = {E4M3: 448.0, E5M2: 57344.0}
FLT_MAX = torch.finfo(torch.float32).max
SENTINEL = 0xA5  # padding bytes of W and Wt the refresh must not touch
GRID_PAD = -7.0  # padding floats of the grids
# Shapes with the magnitude of their masters: 0 (scale 1), a subnormal
# max|M| (scale FLT_MAX), and ordinary ones.
CASES = [((1, 1), 300.0), ((3, 5), 1e-3), ((17, 33), 0.0), ((129, 67), 1e-39), ((250, 1031), 3e4)]


def scale_of(amax: Any, fmt: Any, pow2: bool) -> Any:
    """The header's scale_of, elementwise over float32 CPU amaxes."""
    s = torch.full_like(amax, FP8_MAX[fmt]) / amax
    s = torch.where(torch.isinf(s), torch.full_like(s, FLT_MAX), s)
    s = torch.where((amax == 0) | ~torch.isfinite(amax), torch.ones_like(s), s)
    if pow2:  # clear the mantissa bits (every s here is positive and normal)
        s = (s.view(torch.int32) & 0x7F800000).view(torch.float32)
    return s


def quantize(m: Any, s: Any, fmt: Any) -> Any:
    """sat_fp8(M * s): one fp32 multiply, saturated, round to nearest even."""
    limit = FP8_MAX[fmt]
    return (m * s).clamp(-limit, limit).to(fmt)


def padded_fp8(rows: int, cols: int, pad: int, fmt: Any) -> Tuple[Any, Any]:
    buf = torch.full((rows, cols + pad), SENTINEL, dtype=torch.uint8, device="cuda")
    return buf, buf.view(fmt)[:, :cols]


def assert_padding_kept(w_buf: Any, w: Any, wt_buf: Any, what: str) -> None:
    rows, cols = w.shape
    assert bool((w_buf[:, cols:] == SENTINEL).all()), f"{what}: W's padding was written"
    assert bool((wt_buf[:, rows:] == SENTINEL).all()), f"{what}: Wt's padding was written"


def padded_master(rows: int, cols: int, dtype: Any, magnitude: float) -> Any:
    return (torch.randn(rows, cols + 3, device="cuda") * magnitude).to(dtype)[:, :cols]


def _flags(pow2: bool) -> int:
    return int(Fp8RecipeFlag.POW2_SCALES) if pow2 else 0


class CurrentParam:
    """A current-scaling parameter with padded master, W and Wt."""

    def __init__(self, rows: int, cols: int, fmt: Any, master_dtype: Any, pow2: bool, magnitude: float) -> None:
        self.fmt, self.pow2 = fmt, pow2
        self.master = padded_master(rows, cols, master_dtype, magnitude)
        self.w_buf, self.w = padded_fp8(rows, cols, 2, fmt)
        self.wt_buf, self.wt = padded_fp8(cols, rows, 5, fmt)
        self.scale_inv = torch.zeros(1, device="cuda")
        self.amax = torch.zeros(1, device="cuda")

    def desc(self) -> stepgraph.Fp8Param:
        return sgt.fp8_param(
            self.w,
            self.wt,
            master=self.master,
            scale_inv=self.scale_inv,
            amax=self.amax,
            recipe=Fp8Recipe.CURRENT,
            recipe_flags=_flags(self.pow2),
        )

    def check(self, what: str, transpose: bool = True) -> None:
        m = self.master.float().cpu()  # BF16 widens exactly
        amax = m.abs().max().reshape(1)
        s = scale_of(amax, self.fmt, self.pow2)
        w = quantize(m, s, self.fmt)
        assert_same_bits(self.amax, amax, f"{what}: amax")
        assert_same_bits(self.scale_inv, 1.0 / s, f"{what}: scale_inv")
        assert_same_bits(self.w, w, f"{what}: W")
        if transpose:
            assert_same_bits(self.wt, w.t().contiguous(), f"{what}: Wt")
        else:
            assert bool((self.wt_buf == SENTINEL).all()), f"{what}: the cast mode wrote Wt"
        assert_padding_kept(self.w_buf, self.w, self.wt_buf, what)


@pytest.mark.parametrize("pow2", [False, True], ids=["exact scales", "pow2 scales"])
@pytest.mark.parametrize("master_dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("fmt", [E4M3, E5M2])
def test_current_scaling_equals_torch(fmt: Any, master_dtype: Any, pow2: bool) -> None:
    params = [CurrentParam(r, c, fmt, master_dtype, pow2, magnitude) for (r, c), magnitude in CASES]
    delayed_master = padded_master(9, 14, master_dtype, 50.0)
    _, delayed_w = padded_fp8(9, 14, 1, fmt)
    _, delayed_wt = padded_fp8(14, 9, 1, fmt)
    delayed = dict(scale=torch.tensor([0.75], device="cuda"), scale_inv=torch.zeros(1, device="cuda"), amax=torch.zeros(1, device="cuda"))
    with sgt.Session() as session:
        # A delayed-scaling parameter beside them: one refresh runs both recipes.
        session.register_fp8_params([p.desc() for p in params] + [sgt.fp8_param(delayed_w, delayed_wt, master=delayed_master, **delayed)])
        session.refresh(RefreshMode.CAST_TRANSPOSE)
        torch.cuda.synchronize()
        for p, (shape, magnitude) in zip(params, CASES):
            p.check(f"{shape} x {magnitude} {fmt} from {master_dtype}")
        m = delayed_master.float().cpu()
        assert_same_bits(delayed_w, quantize(m, torch.tensor([0.75]), fmt), "the delayed parameter's W")
        assert_same_bits(delayed["amax"], m.abs().max().reshape(1), "the delayed parameter's amax")


def test_current_scaling_cast_mode_leaves_wt() -> None:
    p = CurrentParam(33, 70, E4M3, torch.float32, False, 12.0)
    with sgt.Session() as session:
        session.register_fp8_params([p.desc()])
        session.refresh(RefreshMode.CAST)
        torch.cuda.synchronize()
        p.check("cast mode", transpose=False)


def test_current_scaling_inside_torch_cuda_graph_follows_the_masters() -> None:
    """The scale is computed on the device at every replay, from the master
    as the graph's own in-place update left it."""
    p = CurrentParam(67, 45, E4M3, torch.float32, True, 10.0)
    delta = torch.randn(67, 45, device="cuda")
    with sgt.Session() as session:
        session.register_fp8_params([p.desc()])

        def optimizer_step() -> None:
            p.master.add_(delta)
            session.refresh(RefreshMode.CAST_TRANSPOSE)

        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):  # warm-up, as torch.cuda.graph's docs do
            optimizer_step()
        torch.cuda.current_stream().wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            optimizer_step()
        amaxes = []
        for replay in range(4):
            delta.mul_(-3.0)  # the masters' range changes: so must the scale
            graph.replay()
            torch.cuda.synchronize()
            p.check(f"replay {replay}")
            amaxes.append(float(p.amax.item()))
        assert len(set(amaxes)) == 4, amaxes


def _blocks(n: int) -> int:
    return -(-n // FP8_BLOCK)


def _pad4(n: int) -> int:
    return -(-n // 4) * 4


class BlockParam:
    """A block-scaling parameter: padded W and Wt, and grids whose rows are
    padded to 4 floats (Transformer Engine's layout), registered as views."""

    def __init__(self, rows: int, cols: int, fmt: Any, master_dtype: Any, pow2: bool, magnitude: float) -> None:
        self.fmt, self.pow2 = fmt, pow2
        self.master = padded_master(rows, cols, master_dtype, magnitude)
        if rows > FP8_BLOCK or cols > FP8_BLOCK:
            self.master[:FP8_BLOCK, :FP8_BLOCK] = 0  # one block of zeros: its scale is 1
        self.w_buf, self.w = padded_fp8(rows, cols, 2, fmt)
        self.wt_buf, self.wt = padded_fp8(cols, rows, 3, fmt)
        r, c = _blocks(rows), _blocks(cols)
        self.grid_buf = torch.full((r, _pad4(c)), GRID_PAD, device="cuda")
        self.grid_t_buf = torch.full((c, _pad4(r)), GRID_PAD, device="cuda")
        self.grid, self.grid_t = self.grid_buf[:, :c], self.grid_t_buf[:, :r]

    def desc(self) -> stepgraph.Fp8Param:
        return sgt.fp8_param(
            self.w,
            self.wt,
            master=self.master,
            recipe=Fp8Recipe.BLOCK,
            recipe_flags=_flags(self.pow2),
            block_scale_inv=self.grid,
            block_scale_inv_t=self.grid_t,
        )

    def expected(self) -> Tuple[Any, Any]:
        """(W, W's grid) from the header's rules, on the CPU."""
        m = self.master.float().cpu()
        rows, cols = m.shape
        r, c = _blocks(rows), _blocks(cols)
        padded = torch.zeros(r * FP8_BLOCK, c * FP8_BLOCK)  # zeros do not change a max of |M|
        padded[:rows, :cols] = m.abs()
        amax = padded.view(r, FP8_BLOCK, c, FP8_BLOCK).amax(dim=(1, 3))
        s = scale_of(amax, self.fmt, self.pow2)
        per_element = s.repeat_interleave(FP8_BLOCK, 0).repeat_interleave(FP8_BLOCK, 1)[:rows, :cols]
        return quantize(m, per_element, self.fmt), 1.0 / s

    def check(self, what: str, transposed: bool) -> None:
        w, grid = self.expected()
        assert_same_bits(self.w, w, f"{what}: W")
        assert_same_bits(self.grid, grid, f"{what}: block_scale_inv")
        if transposed:
            assert_same_bits(self.wt, w.t().contiguous(), f"{what}: Wt")
            assert_same_bits(self.grid_t, grid.t().contiguous(), f"{what}: block_scale_inv_t")
        else:
            assert bool((self.wt_buf == SENTINEL).all()), f"{what}: the cast mode wrote Wt"
            assert bool((self.grid_t_buf == GRID_PAD).all()), f"{what}: the cast mode wrote block_scale_inv_t"
        assert_padding_kept(self.w_buf, self.w, self.wt_buf, what)
        assert bool((self.grid_buf[:, self.grid.shape[1]:] == GRID_PAD).all()), f"{what}: the grid's padding was written"
        assert bool((self.grid_t_buf[:, self.grid_t.shape[1]:] == GRID_PAD).all()), f"{what}: the grid_t's padding was written"


BLOCK_SHAPES = [((1, 1), 3.0), ((129, 67), 40.0), ((300, 260), 2e3), ((250, 1031), 0.5)]


@pytest.mark.parametrize("pow2", [False, True], ids=["exact scales", "pow2 scales"])
@pytest.mark.parametrize("fmt, master_dtype", [(E4M3, torch.float32), (E5M2, torch.bfloat16)])
def test_block_scaling_equals_torch(fmt: Any, master_dtype: Any, pow2: bool) -> None:
    params: List[BlockParam] = [BlockParam(r, c, fmt, master_dtype, pow2, m) for (r, c), m in BLOCK_SHAPES]
    with sgt.Session() as session:
        session.register_fp8_params([p.desc() for p in params])
        session.refresh(RefreshMode.CAST)
        torch.cuda.synchronize()
        for p in params:
            p.check(f"cast {tuple(p.w.shape)}", transposed=False)
        session.refresh(RefreshMode.CAST_TRANSPOSE)
        torch.cuda.synchronize()
        for p in params:
            p.check(f"cast-transpose {tuple(p.w.shape)}", transposed=True)
        for p in params:  # TRANSPOSE rebuilds Wt and its grid from W and W's grid
            p.wt.view(torch.uint8).fill_(0x11)
            p.grid_t.fill_(-1.0)
        session.refresh(RefreshMode.TRANSPOSE)
        torch.cuda.synchronize()
        for p in params:
            p.check(f"transpose {tuple(p.w.shape)}", transposed=True)

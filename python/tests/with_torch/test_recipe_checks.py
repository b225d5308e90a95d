"""stepgraph.torch's checks of ABI 1.1 tensors that need PyTorch but no GPU:
the block-scaling grids (dtype, 2-D, rows contiguous, the shape W's blocks
give) and the int32 flags of guards and loops. Dtype, layout and shape come
before the device, so a tensor that passes them is refused for being on the
CPU; which tensors a recipe needs is the plugin's check (test_recipes.py)."""

from __future__ import annotations

import pytest

from torch_support import require_torch

torch = require_torch(gpu=False)

import stepgraph  # noqa: E402
import stepgraph.torch as sgt  # noqa: E402
from stepgraph import Fp8Recipe  # noqa: E402

ROWS, COLS = 200, 300  # 2 x 3 blocks of 128
STREAM = 0x5000


def _w(rows: int = ROWS, cols: int = COLS):
    return torch.zeros(rows, cols, dtype=torch.float8_e4m3fn)


def _block(**grids):
    return sgt.fp8_param(_w(), _w(COLS, ROWS), recipe=Fp8Recipe.BLOCK, **grids)


@pytest.mark.parametrize(
    "grids, detail",
    [
        ({"block_scale_inv": torch.zeros(2, 3, dtype=torch.float16)}, "block_scale_inv has dtype torch.float16; expected torch.float32"),
        ({"block_scale_inv": torch.zeros(6)}, "block_scale_inv has shape (6,); it must be 2-D"),
        ({"block_scale_inv": torch.zeros(3, 2).t()}, "block_scale_inv's rows are not contiguous"),
        (
            {"block_scale_inv": torch.zeros(2, 4)},
            "block_scale_inv has shape (2, 4); weight (200, 300) in 128 x 128 blocks needs (2, 3) "
            "(a grid with padded rows: pass grid[:, :3])",
        ),
        ({"block_scale_inv_t": torch.zeros(2, 3)}, "block_scale_inv_t has shape (2, 3); weight (200, 300) in 128 x 128 blocks needs (3, 2)"),
        ({"block_scale_inv_t": [[1.0]]}, "block_scale_inv_t is a list, not a torch.Tensor"),
    ],
)
def test_grids_are_checked_naming_the_tensor(grids: dict, detail: str) -> None:
    with pytest.raises(stepgraph.InvalidArgument) as info:
        _block(**grids)
    assert detail in info.value.detail


def test_padded_grids_pass_the_checks() -> None:
    """Transformer Engine pads grid rows to 4 floats: views without the
    padding pass every check but the device."""
    grid = torch.zeros(2, 4)[:, :3]
    grid_t = torch.zeros(3, 4)[:, :2]
    with pytest.raises(stepgraph.InvalidArgument, match="weight is on cpu"):
        _block(block_scale_inv=grid, block_scale_inv_t=grid_t)


def test_an_exact_block_multiple_has_no_partial_block() -> None:
    w, wt = _w(256, 128), _w(128, 256)
    with pytest.raises(stepgraph.InvalidArgument, match=r"needs \(2, 1\)"):
        sgt.fp8_param(w, wt, recipe=Fp8Recipe.BLOCK, block_scale_inv=torch.zeros(3, 1))
    with pytest.raises(stepgraph.InvalidArgument, match="weight is on cpu"):
        sgt.fp8_param(w, wt, recipe=Fp8Recipe.BLOCK, block_scale_inv=torch.zeros(2, 1))


def test_current_scaling_takes_no_scale() -> None:
    """Delayed scaling's rule (a master needs scale, scale_inv and amax) is
    not CURRENT's: there the launch computes the scale."""
    master = torch.zeros(ROWS, COLS)
    scalars = {"scale_inv": torch.ones(1), "amax": torch.ones(1)}
    with pytest.raises(stepgraph.InvalidArgument, match="scale is required with a master"):
        sgt.fp8_param(_w(), _w(COLS, ROWS), master=master, **scalars)
    with pytest.raises(stepgraph.InvalidArgument, match="weight is on cpu"):
        sgt.fp8_param(_w(), _w(COLS, ROWS), master=master, recipe=Fp8Recipe.CURRENT, **scalars)
    with pytest.raises(stepgraph.InvalidArgument, match="amax has dtype torch.float64"):
        sgt.fp8_param(
            _w(), _w(COLS, ROWS), master=master, recipe=Fp8Recipe.CURRENT, scale_inv=torch.ones(1),
            amax=torch.ones(1, dtype=torch.float64),
        )


@pytest.mark.parametrize(
    "call, detail",
    [
        (lambda s: s.guard_begin(torch.zeros(1, dtype=torch.int64), STREAM), "flag has dtype torch.int64; expected torch.int32"),
        (lambda s: s.loop_begin(torch.zeros(2, dtype=torch.int32), STREAM), "trip_count has 2 elements; it must hold exactly one"),
        (lambda s: s.loop_begin(torch.zeros(1, dtype=torch.int32), STREAM), "trip_count is on cpu; it must be a CUDA tensor"),
        (lambda s: s.guard_begin(7, STREAM), "flag is a int, not a torch.Tensor"),
        (lambda s: s.guard_begin(None, STREAM), "guard_begin: flag is NULL"),  # the plugin's own check
    ],
)
def test_region_flags_are_one_int32_cuda_tensor(call, detail: str) -> None:
    with sgt.Session(torch.device("cuda"), validation_only=True) as session:
        with pytest.raises(stepgraph.InvalidArgument) as info:
            call(session)
    assert detail in info.value.detail


def test_the_torch_loop_yields_index_views_and_closes_when_left(api, monkeypatch: pytest.MonkeyPatch) -> None:
    """stepgraph.torch.Session.loop wraps the base loop: one view per
    iteration of the index the plugin gave, and leaving early still closes
    the region. (A double of the entries: no GPU here.)"""
    from helpers import TableDouble
    from test_regions import INDEX, Regions

    import stepgraph.torch._session as torch_session

    monkeypatch.setattr(torch_session, "index_view", lambda address, device: ("view", address, device))
    regions = Regions(trips=3)
    double = TableDouble(api, **regions.entries())
    with sgt.Session(torch.device("cuda"), validation_only=True, library=double.api) as session:
        monkeypatch.setattr(session, "_int32_address", lambda value, name: 0x900000)
        assert list(session.loop("trips", STREAM)) == [("view", INDEX, 0)] * 3
        regions.done = 0
        for _ in session.loop("trips", STREAM):
            break
    assert double.names() == ["loop_begin"] + ["loop_next"] * 3 + ["loop_begin"] + ["loop_next"] * 3

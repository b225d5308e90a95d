"""Registration from CUDA tensors: leading dimensions from strides, the
owners kept, the device checked."""

from __future__ import annotations

import pytest

from torch_support import require_torch

torch = require_torch()

import stepgraph  # noqa: E402
import stepgraph.torch as sgt  # noqa: E402

E4M3, E5M2 = torch.float8_e4m3fn, torch.float8_e5m2


def _w(rows: int = 4, cols: int = 8, dtype=E4M3, device: str = "cuda"):
    return torch.zeros(rows, cols, dtype=dtype, device=device)


def _scalars():
    return {k: torch.ones(1, device="cuda") for k in ("scale", "scale_inv", "amax")}


def test_leading_dimensions_come_from_strides() -> None:
    w = torch.zeros(5, 40, dtype=E5M2, device="cuda")[:, :33]
    wt = torch.zeros(33, 16, dtype=E5M2, device="cuda")[:, :5]
    m = torch.zeros(5, 48, device="cuda")[:, :33]
    param = sgt.fp8_param(w, wt, master=m, **_scalars(), group=4, cast_range=(3, 70))
    assert (param.rows, param.cols, param.ld_data, param.ld_transpose, param.ld_master) == (5, 33, 40, 16, 48)
    assert param.format == stepgraph.Fp8Format.E5M2 and param.master_dtype == stepgraph.DType.FP32
    assert (param.data, param.transpose, param.master) == (w.data_ptr(), wt.data_ptr(), m.data_ptr())
    assert (param.range_begin, param.range_end, param.group) == (3, 70, 4)
    assert any(w is t for t in param.owner) and any(m is t for t in param.owner)


def test_session_registers_tensors_and_keeps_them() -> None:
    with sgt.Session() as session:
        w, wt = _w(), _w(8, 4)
        assert session.register_fp8(w, wt) == 0
        assert session.register_static(torch.zeros(16, device="cuda")) == 0
        assert any(w is t for owner in session.kept if isinstance(owner, tuple) for t in owner)
        assert session.stats().fp8_params == 1


@pytest.mark.skipif(torch.cuda.device_count() < 2, reason="needs two GPUs")
def test_tensor_on_another_device_is_refused() -> None:
    with sgt.Session(device=0) as session:
        with pytest.raises(stepgraph.InvalidArgument, match="weight is on cuda:1, the session on cuda:0"):
            session.register_fp8(_w(device="cuda:1"), _w(8, 4, device="cuda:1"))


def test_block_grids_leading_dimensions_come_from_strides() -> None:
    """Transformer Engine pads grid rows to 4 floats: the views' strides
    give the leading dimensions."""
    w, wt = _w(200, 300), _w(300, 200)
    grid = torch.zeros(2, 4, device="cuda")[:, :3]
    grid_t = torch.zeros(3, 4, device="cuda")[:, :2]
    param = sgt.fp8_param(
        w, wt, recipe=stepgraph.Fp8Recipe.BLOCK, recipe_flags=stepgraph.Fp8RecipeFlag.POW2_SCALES,
        block_scale_inv=grid, block_scale_inv_t=grid_t,
    )
    assert (param.block_scale_inv, param.ld_block_scale_inv) == (grid.data_ptr(), 4)
    assert (param.block_scale_inv_t, param.ld_block_scale_inv_t) == (grid_t.data_ptr(), 4)
    assert param.recipe == stepgraph.Fp8Recipe.BLOCK and param.recipe_flags == 1
    assert (param.scale, param.scale_inv, param.amax) == (0, 0, 0)
    with sgt.Session() as session:
        assert session.register_fp8_params([param]) == 0
        assert any(grid is t for owner in session.kept if isinstance(owner, tuple) for t in owner)


def test_a_recipe_the_plugin_refuses_names_the_field() -> None:
    master = torch.zeros(4, 8, device="cuda")
    with sgt.Session() as session:
        with pytest.raises(stepgraph.InvalidArgument, match=r"params\[0\].scale is set but recipe SG_RECIPE_CURRENT"):
            session.register_fp8(_w(), _w(8, 4), master=master, **_scalars(), recipe=stepgraph.Fp8Recipe.CURRENT)
        with pytest.raises(stepgraph.InvalidArgument, match=r"params\[0\].block_scale_inv is NULL"):
            session.register_fp8(_w(), _w(8, 4), recipe=stepgraph.Fp8Recipe.BLOCK, block_scale_inv_t=torch.zeros(1, 1, device="cuda"))
        assert session.stats().fp8_params == 0

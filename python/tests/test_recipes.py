"""FP8 recipes (ABI 1.1: Fp8Param.recipe and the fields after it) through
validation-only sessions: valid current- and block-scaling parameters are
registered; a bad one is refused with the plugin's message naming the
element and field, and then none is; a 1.0 plugin gets no recipe field."""

from __future__ import annotations

from typing import Any, Callable

import pytest

import stepgraph
from helpers import STREAM
from stepgraph import DType, Fp8Recipe, Fp8RecipeFlag, RefreshMode

ROWS, COLS = 200, 300  # 2 x 3 blocks of 128, the last ones partial


def _param(k: int, **fields: Any) -> stepgraph.Fp8Param:
    """Parameter k's W, Wt, FP32 master, scalars and grids, apart from any
    other parameter's."""
    base = (k + 1) << 24
    values = dict(
        rows=ROWS,
        cols=COLS,
        data=base,
        transpose=base + 0x100000,
        master=base + 0x200000,
        master_dtype=DType.FP32,
        scale=base + 0x400000,
        scale_inv=base + 0x400010,
        amax=base + 0x400020,
    )
    values.update(fields)
    return stepgraph.Fp8Param(**values)


def current(k: int, **fields: Any) -> stepgraph.Fp8Param:
    return _param(k, **{"recipe": Fp8Recipe.CURRENT, "scale": 0, **fields})


def block(k: int, **fields: Any) -> stepgraph.Fp8Param:
    base = (k + 1) << 24
    values = dict(
        recipe=Fp8Recipe.BLOCK,
        recipe_flags=Fp8RecipeFlag.POW2_SCALES,
        scale=0,
        scale_inv=0,
        amax=0,
        block_scale_inv=base + 0x500000,
        block_scale_inv_t=base + 0x500100,
    )
    values.update(fields)
    return _param(k, **values)


def test_valid_recipes_are_registered(session: stepgraph.Session) -> None:
    params = [
        current(0, recipe_flags=Fp8RecipeFlag.POW2_SCALES),
        block(1, ld_block_scale_inv=4, ld_block_scale_inv_t=4),  # Transformer Engine's padded rows
        block(2, master=0, master_dtype=DType.NONE),  # a W the host quantized: transpose mode
        current(3, range_begin=0, range_end=ROWS * COLS, master_dtype=DType.BF16),
        _param(4),  # delayed scaling beside them
    ]
    assert session.register_fp8_params(params) == 0
    assert session.stats().fp8_params == 5
    with pytest.raises(stepgraph.InvalidState, match="registered param 2 has no master"):
        session.refresh(RefreshMode.CAST_TRANSPOSE)
    with pytest.raises(stepgraph.NoDevice):
        session.refresh(RefreshMode.TRANSPOSE, stream=STREAM)


Edit = Callable[[], stepgraph.Fp8Param]

CASES = [
    ("recipe", lambda: current(1, recipe=3), stepgraph.InvalidArgument, "params[1].recipe is 3"),
    ("recipe_flags", lambda: block(1, recipe_flags=2), stepgraph.InvalidArgument, "params[1].recipe_flags is 0x2"),
    (
        "delayed with a flag",
        lambda: _param(1, recipe_flags=Fp8RecipeFlag.POW2_SCALES),
        stepgraph.InvalidArgument,
        "params[1].recipe_flags is 0x1 but recipe is SG_RECIPE_DELAYED",
    ),
    (
        "current without master",
        lambda: current(1, master=0, master_dtype=DType.NONE),
        stepgraph.InvalidArgument,
        "params[1].recipe is SG_RECIPE_CURRENT but master_dtype is SG_DTYPE_NONE",
    ),
    (
        "current with scale",
        lambda: current(1, scale=(2 << 24) + 0x400030),
        stepgraph.InvalidArgument,
        "params[1].scale is set but recipe SG_RECIPE_CURRENT computes the scale",
    ),
    ("current without amax", lambda: current(1, amax=0), stepgraph.InvalidArgument, "params[1].amax is NULL"),
    (
        "current with an owned range",
        lambda: current(1, range_begin=0, range_end=100),
        stepgraph.NotSupported,
        "params[1]: an owned range [0, 100) needs SG_RECIPE_DELAYED",
    ),
    (
        "block with scale_inv",
        lambda: block(1, scale_inv=(2 << 24) + 0x400010),
        stepgraph.InvalidArgument,
        "params[1].scale_inv is set",
    ),
    ("block without grid", lambda: block(1, block_scale_inv=0), stepgraph.InvalidArgument, "params[1].block_scale_inv is NULL"),
    (
        "short grid ld",
        lambda: block(1, ld_block_scale_inv=2),
        stepgraph.InvalidArgument,
        "params[1].ld_block_scale_inv is 2, less than the width 3",
    ),
    (
        "short grid_t ld",
        lambda: block(1, ld_block_scale_inv_t=1),
        stepgraph.InvalidArgument,
        "params[1].ld_block_scale_inv_t is 1, less than the width 2",
    ),
    (
        "delayed with a grid",
        lambda: _param(1, block_scale_inv_t=(2 << 24) + 0x500000),
        stepgraph.InvalidArgument,
        "params[1]: block_scale_inv, block_scale_inv_t or their ld set, but recipe is SG_RECIPE_DELAYED",
    ),
    (
        "grids overlap",
        lambda: block(1, block_scale_inv_t=(2 << 24) + 0x500010),
        stepgraph.InvalidArgument,
        "params[1].block_scale_inv_t overlaps params[1].block_scale_inv",
    ),
]


@pytest.mark.parametrize("what, bad, error, detail", CASES, ids=[c[0] for c in CASES])
def test_a_bad_recipe_field_is_refused_with_the_plugin_message(
    session: stepgraph.Session, what: str, bad: Edit, error: type, detail: str
) -> None:
    with pytest.raises(stepgraph.Error) as info:
        session.register_fp8_params([block(0), bad(), current(2)])
    assert type(info.value) is error
    assert detail in info.value.detail
    assert info.value.detail == session.last_error()
    assert info.value.detail.startswith("register_fp8_params: ")
    assert session.stats().fp8_params == 0  # all or none


def test_recipe_values_outside_their_c_type_are_refused_by_the_binding(session: stepgraph.Session) -> None:
    with pytest.raises(stepgraph.InvalidArgument, match=r"params\[0\].recipe_flags is -1, outside"):
        session.register_fp8_params([current(0, recipe_flags=-1)])
    with pytest.raises(stepgraph.InvalidArgument, match=r"params\[0\].ld_block_scale_inv is 'x', not an integer"):
        session.register_fp8_params([block(0, ld_block_scale_inv="x")])


def test_a_1_0_plugin_gets_no_recipe_field(api: stepgraph.Api) -> None:
    old = stepgraph.Api(api.table, 1 << 16, "1.0.0", "a 1.0 plugin", keepalive=api)
    with stepgraph.Session(validation_only=True, library=old) as session:
        with pytest.raises(stepgraph.NotSupported, match=r"params\[0\].recipe needs ABI 1.1"):
            session.register_fp8_params([current(0)])
        with pytest.raises(stepgraph.NotSupported, match=r"params\[0\].block_scale_inv needs ABI 1.1"):
            session.register_fp8_params([_param(0, block_scale_inv=0x1000)])
        assert session.register_fp8_params([_param(0)]) == 0  # delayed: the 1.0 fields alone

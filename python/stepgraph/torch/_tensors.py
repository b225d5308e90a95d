"""Registration descriptors from torch tensors, with the checks the plugin
cannot make: dtype, device, layout, shapes. Leading dimensions come from
the strides; a tensor whose rows are not contiguous (a transposed view), of
the wrong dtype, or on another device is refused with a message naming it.
Which tensors a recipe needs is the plugin's check (it names the field).
Also: the device int32 of a refresh's no-op flag and of a region (guard flag,
loop trip count), and a tensor view of a loop's index.
"""

from __future__ import annotations

from typing import Collection, Dict, Optional, Tuple

import torch

from .. import FP8_BLOCK, DType, Fp8Format, Fp8Param, Fp8Recipe, InvalidArgument, StaticBuffer, Status

FP8_FORMATS: Dict[torch.dtype, Fp8Format] = {
    torch.float8_e4m3fn: Fp8Format.E4M3,
    torch.float8_e5m2: Fp8Format.E5M2,
}
MASTER_DTYPES: Dict[torch.dtype, DType] = {
    torch.float32: DType.FP32,
    torch.bfloat16: DType.BF16,
}


def refuse(message: str) -> InvalidArgument:
    return InvalidArgument(Status.ERR_INVALID_ARGUMENT, message)


def check_tensor(t: torch.Tensor, name: str, dtypes: Collection[torch.dtype]) -> None:
    """`t` is a strided tensor of one of `dtypes`."""
    if not isinstance(t, torch.Tensor):
        raise refuse(f"{name} is a {type(t).__name__}, not a torch.Tensor")
    if t.dtype not in dtypes:
        raise refuse(f"{name} has dtype {t.dtype}; expected {', '.join(str(d) for d in dtypes)}")
    if t.layout != torch.strided:
        raise refuse(f"{name} has layout {t.layout}; only strided tensors can be registered")


def check_device(t: torch.Tensor, name: str, device: Optional[int]) -> None:
    """`t` is a CUDA tensor (of `device` when given)."""
    if t.device.type != "cuda":
        raise refuse(f"{name} is on {t.device}; it must be a CUDA tensor")
    if device is not None and t.device.index != device:
        raise refuse(f"{name} is on {t.device}, the session on cuda:{device}")


def matrix(t: torch.Tensor, name: str, dtypes: Collection[torch.dtype]) -> Tuple[int, int, int]:
    """(rows, cols, leading dimension) of a row-major 2-D matrix."""
    check_tensor(t, name, dtypes)
    if t.dim() != 2:
        raise refuse(f"{name} has shape {tuple(t.shape)}; it must be 2-D")
    rows, cols = t.shape
    row_stride, col_stride = t.stride()
    if cols > 1 and col_stride != 1:
        raise refuse(
            f"{name}'s rows are not contiguous (strides {t.stride()}: a transposed "
            "or strided view); registered matrices are row-major with element "
            "stride 1 (use .contiguous(), or register the underlying matrix)"
        )
    if rows > 1 and row_stride < cols:
        raise refuse(f"{name}'s rows overlap (strides {t.stride()}, width {cols})")
    return rows, cols, max(row_stride, cols)


def scalar(t: torch.Tensor, name: str, dtype: torch.dtype) -> int:
    """The address of a one-element tensor of `dtype`."""
    check_tensor(t, name, (dtype,))
    if t.numel() != 1:
        raise refuse(f"{name} has {t.numel()} elements; it must hold exactly one")
    return int(t.data_ptr())


def fp8_param(
    weight: torch.Tensor,
    transpose: torch.Tensor,
    *,
    master: Optional[torch.Tensor] = None,
    scale: Optional[torch.Tensor] = None,
    scale_inv: Optional[torch.Tensor] = None,
    amax: Optional[torch.Tensor] = None,
    recipe: Fp8Recipe = Fp8Recipe.DELAYED,
    recipe_flags: int = 0,
    block_scale_inv: Optional[torch.Tensor] = None,
    block_scale_inv_t: Optional[torch.Tensor] = None,
    group: int = 0,
    cast_range: Optional[Tuple[int, int]] = None,
    device: Optional[int] = None,
) -> Fp8Param:
    """An FP8 parameter from tensors: `weight` W [rows, cols] and `transpose`
    Wt [cols, rows], both float8_e4m3fn or both float8_e5m2; for the cast
    modes a float32 or bfloat16 `master` [rows, cols] with float32 one-element
    `scale`, `scale_inv` and `amax`. `cast_range` is the flat row-major
    element range [begin, end) of the master this rank casts (None: all).

    `recipe` (ABI 1.1) is where the scale comes from: DELAYED (`scale`),
    CURRENT (computed from max|M| at each refresh: master, scale_inv and
    amax, no scale) or BLOCK (one scale per 128 x 128 block of W, into the
    float32 grids `block_scale_inv` [ceil(rows/128), ceil(cols/128)] and
    `block_scale_inv_t`, its transpose; no scale, scale_inv or amax; master
    optional). A grid's leading dimension comes from its strides, so a view
    of a grid with padded rows (Transformer Engine's) works: pass
    grid[:, :width]. `recipe_flags` takes Fp8RecipeFlag bits.

    The tensors are the parameter's owner: a session keeps them alive until
    it closes; they must also stay at their addresses (no resize, no
    re-assignment of .data). Dtypes, layouts and shapes are checked first,
    then that every tensor is on the CUDA device (`device` when given)."""
    rows, cols, ld = matrix(weight, "weight", FP8_FORMATS)
    t_rows, t_cols, t_ld = matrix(transpose, "transpose", FP8_FORMATS)
    if transpose.dtype != weight.dtype:
        raise refuse(f"transpose has dtype {transpose.dtype}, weight {weight.dtype}; they must match")
    if (t_rows, t_cols) != (cols, rows):
        raise refuse(f"transpose has shape {(t_rows, t_cols)}; weight is {(rows, cols)}, so it must be {(cols, rows)}")
    param = Fp8Param(
        rows=rows,
        cols=cols,
        data=int(weight.data_ptr()),
        transpose=int(transpose.data_ptr()),
        format=FP8_FORMATS[weight.dtype],
        ld_data=ld,
        ld_transpose=t_ld,
        group=group,
        recipe=recipe,
        recipe_flags=recipe_flags,
        owner=(weight, transpose, master, scale, scale_inv, amax, block_scale_inv, block_scale_inv_t),
    )
    scalars = {"scale": scale, "scale_inv": scale_inv, "amax": amax}
    if recipe == Fp8Recipe.DELAYED:
        _require_delayed_scalars(master, scalars)
    if master is not None:
        _add_master(param, master)
    for name, value in scalars.items():
        if value is not None:
            setattr(param, name, scalar(value, name, torch.float32))
    _add_grids(param, block_scale_inv, block_scale_inv_t)
    if cast_range is not None:
        param.range_begin, param.range_end = cast_range
    for name, t in zip(_OWNER_NAMES, param.owner):
        if t is not None:
            check_device(t, name, device)
    return param


_OWNER_NAMES = ("weight", "transpose", "master", "scale", "scale_inv", "amax", "block_scale_inv", "block_scale_inv_t")


def _require_delayed_scalars(master: Optional[torch.Tensor], scalars: Dict[str, Optional[torch.Tensor]]) -> None:
    """Delayed scaling: with a master, all of scale, scale_inv and amax; without one, none."""
    if master is None:
        if any(t is not None for t in scalars.values()):
            raise refuse("scale, scale_inv and amax are used by the cast modes, which need a master")
        return
    for name, value in scalars.items():
        if value is None:
            raise refuse(f"{name} is required with a master (the cast modes write or read it)")


def _add_master(param: Fp8Param, master: torch.Tensor) -> None:
    m_rows, m_cols, m_ld = matrix(master, "master", MASTER_DTYPES)
    if (m_rows, m_cols) != (param.rows, param.cols):
        raise refuse(f"master has shape {(m_rows, m_cols)}; weight is {(param.rows, param.cols)}")
    param.master = int(master.data_ptr())
    param.master_dtype = MASTER_DTYPES[master.dtype]
    param.ld_master = m_ld


def _add_grids(param: Fp8Param, grid: Optional[torch.Tensor], grid_t: Optional[torch.Tensor]) -> None:
    """Block scaling's grids: W's [ceil(rows/128), ceil(cols/128)], Wt's its
    transpose; leading dimensions from the strides."""
    blocks = (-(-param.rows // FP8_BLOCK), -(-param.cols // FP8_BLOCK))
    if grid is not None:
        param.block_scale_inv, param.ld_block_scale_inv = _grid(grid, "block_scale_inv", blocks, param)
    if grid_t is not None:
        flipped = (blocks[1], blocks[0])
        param.block_scale_inv_t, param.ld_block_scale_inv_t = _grid(grid_t, "block_scale_inv_t", flipped, param)


def _grid(t: torch.Tensor, name: str, shape: Tuple[int, int], param: Fp8Param) -> Tuple[int, int]:
    rows, cols, ld = matrix(t, name, (torch.float32,))
    if (rows, cols) != shape:
        raise refuse(
            f"{name} has shape {(rows, cols)}; weight {(param.rows, param.cols)} in "
            f"{FP8_BLOCK} x {FP8_BLOCK} blocks needs {shape} (a grid with padded rows: "
            f"pass grid[:, :{shape[1]}])"
        )
    return int(t.data_ptr()), ld


def static_buffer(t: torch.Tensor, name: str = "buffer", device: Optional[int] = None) -> StaticBuffer:
    """A static buffer from a contiguous CUDA tensor (kept until close)."""
    if not isinstance(t, torch.Tensor):
        raise refuse(f"{name} is a {type(t).__name__}, not a torch.Tensor")
    if t.layout != torch.strided or not t.is_contiguous():
        raise refuse(f"{name} is not contiguous (strides {t.stride()}); a static buffer is one byte range")
    check_device(t, name, device)
    return StaticBuffer(int(t.data_ptr()), t.numel() * t.element_size(), owner=t)


def device_int32(t: torch.Tensor, name: str, device: Optional[int]) -> int:
    """The address of one int32 on the device: a refresh's no-op flag, a
    guard's flag, a loop's trip count."""
    address = scalar(t, name, torch.int32)
    check_device(t, name, device)
    return address


def index_view(address: int, device: int) -> torch.Tensor:
    """A one-element int32 tensor viewing a loop's uint32 index, which the
    plugin owns (the iteration numbers fit an int32). No allocation and no
    CUDA call, so it may be made while capturing. Uses the PyTorch internal
    torch._C._construct_storage_from_data_pointer (a storage that does not
    own its memory; python/README.md lists it, tests/gpu/test_torch_internals.py
    checks it)."""
    where = torch.device("cuda", device)
    storage = torch._C._construct_storage_from_data_pointer(address, where, 4)
    return torch.empty(0, dtype=torch.int32, device=where).set_(storage, 0, (1,), (1,))

"""stepgraph.torch's registration checks that need PyTorch but no GPU:
dtype, layout and shape come first, then the device (a CPU tensor is
refused for being on the CPU). gpu/test_torch_registration.py has the rest."""

from __future__ import annotations

import pytest

from torch_support import require_torch

torch = require_torch(gpu=False)

import stepgraph  # noqa: E402
import stepgraph.torch as sgt  # noqa: E402

E4M3, E5M2 = torch.float8_e4m3fn, torch.float8_e5m2


def _w(rows: int = 4, cols: int = 8, dtype=E4M3, device: str = "cpu"):
    return torch.zeros(rows, cols, dtype=dtype, device=device)


def _scalars(device: str = "cpu"):
    return {k: torch.ones(1, device=device) for k in ("scale", "scale_inv", "amax")}


@pytest.mark.parametrize(
    "weight, transpose, detail",
    [
        (torch.zeros(4, 8), _w(8, 4), "weight has dtype torch.float32; expected torch.float8_e4m3fn, torch.float8_e5m2"),
        (_w(), torch.zeros(8, 4, dtype=torch.uint8), "transpose has dtype torch.uint8"),
        (_w(), _w(8, 4, E5M2), "transpose has dtype torch.float8_e5m2, weight torch.float8_e4m3fn"),
        (_w(8, 4).t(), _w(8, 4), "weight's rows are not contiguous"),
        (_w(), _w(4, 8), "transpose has shape (4, 8); weight is (4, 8), so it must be (8, 4)"),
        (torch.zeros(32, dtype=E4M3), _w(8, 4), "weight has shape (32,); it must be 2-D"),
        (_w().as_strided((4, 8), (2, 1)), _w(8, 4), "weight's rows overlap"),
        ([[0.0]], _w(8, 4), "weight is a list, not a torch.Tensor"),
        (_w(), _w(8, 4), "weight is on cpu; it must be a CUDA tensor"),
    ],
)
def test_fp8_param_refuses_naming_the_tensor(weight, transpose, detail: str) -> None:
    with pytest.raises(stepgraph.InvalidArgument) as info:
        sgt.fp8_param(weight, transpose)
    assert detail in info.value.detail


@pytest.mark.parametrize(
    "master, change, detail",
    [
        (torch.zeros(4, 8, dtype=torch.float16), {}, "master has dtype torch.float16; expected torch.float32, torch.bfloat16"),
        (torch.zeros(8, 4).t(), {}, "master's rows are not contiguous"),
        (torch.zeros(4, 8), {"scale": torch.ones(1, dtype=torch.float64)}, "scale has dtype torch.float64"),
        (torch.zeros(4, 8), {"amax": torch.ones(2)}, "amax has 2 elements; it must hold exactly one"),
        (torch.zeros(4, 8), {"scale_inv": None}, "scale_inv is required with a master"),
    ],
)
def test_master_and_scalars_are_checked(master, change: dict, detail: str) -> None:
    scalars = {**_scalars(), **change}
    with pytest.raises(stepgraph.InvalidArgument) as info:
        sgt.fp8_param(_w(), _w(8, 4), master=master, **scalars)
    assert detail in info.value.detail


def test_scales_without_master_are_refused() -> None:
    with pytest.raises(stepgraph.InvalidArgument, match="cast modes, which need a master"):
        sgt.fp8_param(_w(), _w(8, 4), scale=torch.ones(1))


def test_static_buffer_must_be_contiguous() -> None:
    with pytest.raises(stepgraph.InvalidArgument, match="buffer is not contiguous"):
        sgt.static_buffer(torch.zeros(4, 4).t())


def test_a_session_needs_a_cuda_device() -> None:
    with pytest.raises(stepgraph.InvalidArgument, match="device is cpu; a session needs a CUDA device"):
        sgt.Session(torch.device("cpu"), validation_only=True)


def test_a_validation_only_session_needs_no_gpu() -> None:
    with sgt.Session(torch.device("cuda"), validation_only=True) as session:
        assert session.device == 0 and session.validation_only

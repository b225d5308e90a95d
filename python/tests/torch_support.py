"""What the PyTorch tests share: skip without PyTorch or a GPU (fail under
STEPGRAPH_REQUIRE_GPU=1), and bitwise comparisons."""

from __future__ import annotations

import os
from typing import Any

import pytest


def require_torch(gpu: bool = True) -> Any:
    """The torch module; otherwise skips the calling test module with the
    reason, or fails it when STEPGRAPH_REQUIRE_GPU=1."""
    reason = None
    try:
        import torch
    except ImportError as exc:
        reason = f"PyTorch is not installed ({exc})"
    else:
        if gpu and not torch.cuda.is_available():
            reason = "no usable GPU (torch.cuda.is_available() is False)"
    if reason is None:
        return torch
    if os.environ.get("STEPGRAPH_REQUIRE_GPU") == "1":
        pytest.fail(f"STEPGRAPH_REQUIRE_GPU=1 but {reason}", pytrace=False)
    pytest.skip(reason, allow_module_level=True)


def bits(t: Any) -> Any:
    """The tensor's bytes on the CPU, for bit-for-bit comparisons."""
    import torch

    return t.detach().reshape(-1).contiguous().view(torch.uint8).cpu()


def assert_same_bits(actual: Any, expected: Any, what: str) -> None:
    import torch

    a, e = bits(actual), bits(expected)
    assert a.shape == e.shape, f"{what}: {tuple(a.shape)} bytes, expected {tuple(e.shape)}"
    if not torch.equal(a, e):
        where = (a != e).nonzero()[:5].flatten().tolist()
        raise AssertionError(f"{what}: bytes differ (first at byte indices {where})")

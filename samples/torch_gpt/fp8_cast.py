"""The FP8 cast of activations and gradients in one kernel (Triton): it
reads x once, records max|x| into the tensor's amax (an atomic max, so the
order of the blocks does not matter and the result is exact) and writes
sat(x * scale) in FP8, rounded to nearest even. In PyTorch ops the same is
four kernels and four passes over x (the amax reduction, the multiply, the
clamp, the conversion), which on the large configuration cost more than the
FP8 GEMMs save. Without Triton, scaling.py falls back to those ops; both
give the same bits (the tests compare the plugin's cast with the fallback's
on the weights). The amax of a NaN-holding x ignores the NaN here, as
Transformer Engine's does; the NaN itself is still cast to NaN."""

from __future__ import annotations

from typing import Optional

import torch

try:
    import triton
    import triton.language as tl
except ImportError:  # the fallback in scaling.py
    triton = None

BLOCK = 4096

if triton is not None:

    @triton.jit
    def _cast_kernel(x_ptr, out_ptr, scale_ptr, amax_ptr, n, fp8_max, BLOCK: tl.constexpr):
        offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offsets < n
        x = tl.load(x_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
        tl.atomic_max(amax_ptr, tl.max(tl.abs(x), axis=0))
        y = tl.clamp(x * tl.load(scale_ptr), -fp8_max, fp8_max)
        tl.store(out_ptr + offsets, y.to(out_ptr.dtype.element_ty), mask=mask)


def fused_cast(x: torch.Tensor, scale: torch.Tensor, amax: torch.Tensor, fp8: torch.dtype,
               fp8_max: float) -> Optional[torch.Tensor]:
    """sat(x * scale) in `fp8`, amax = max(amax, max|x|); None without
    Triton or for a tensor that is not a contiguous CUDA one."""
    if triton is None or not x.is_cuda or not x.is_contiguous():
        return None
    out = torch.empty(x.shape, dtype=fp8, device=x.device)
    n = x.numel()
    _cast_kernel[(triton.cdiv(n, BLOCK),)](x, out, scale, amax, n, fp8_max, BLOCK=BLOCK, num_warps=8)
    return out

"""Per-tensor delayed scaling, on the device.

A ScalingState holds, for n tensors of one FP8 format, this step's amax
(written by whoever casts the tensor: the FP8 linear layers for activations
and gradients, the stepgraph refresh for weights), an amax history, and the
scale and scale_inv the next cast uses. `update` is Transformer Engine's
delayed-scaling rule with margin 0: amax = max over the history,
scale = FP8_MAX / amax, and 1 where that amax is 0 or not finite; and
scale_inv = 1 / scale, except for weights, whose scale_inv must stay the one
their current W was cast with: the refresh writes it with W. It runs a
fixed handful of kernels for all n tensors, never synchronises, and so can be
captured."""

from __future__ import annotations

import torch

from fp8_cast import fused_cast

E4M3 = torch.float8_e4m3fn
E5M2 = torch.float8_e5m2
FP8_MAX = {E4M3: 448.0, E5M2: 57344.0}
# Floats per tensor: cuBLASLt refuses (CUBLAS_STATUS_NOT_SUPPORTED) an FP8
# GEMM whose scale pointer is not 16-byte aligned, so each tensor's amax,
# scale and scale_inv start a row of 4 (the other 3 are padding that the
# update computes along, harmlessly).
ROW = 4


class ScalingState:
    def __init__(self, n: int, fp8: torch.dtype, history: int, device: torch.device,
                 refresh_owned: bool = False) -> None:
        self.fp8 = fp8
        # Weights: the refresh writes their amax (not accumulated) and the
        # scale_inv of the W it cast; update leaves both alone.
        self.refresh_owned = refresh_owned
        self.fp8_max = FP8_MAX[fp8]
        self.amax = torch.zeros(n, ROW, device=device)
        self.history = torch.zeros(history, n, ROW, device=device)
        self.scale = torch.ones(n, ROW, device=device)
        self.scale_inv = torch.ones(n, ROW, device=device)

    def __len__(self) -> int:
        return self.amax.shape[0]

    def one(self, name: str, slot: int) -> torch.Tensor:
        """The one-element, 16-byte aligned view of tensor `slot`'s amax,
        scale or scale_inv (what the plugin and _scaled_mm are given)."""
        return getattr(self, name)[slot, :1]

    def update(self) -> None:
        self.history.copy_(torch.roll(self.history, 1, 0))
        self.history[0].copy_(self.amax)
        if not self.refresh_owned:
            self.amax.zero_()  # the fused cast takes the max into it
        amax = self.history.amax(0)
        scale = self.fp8_max / amax
        scale = torch.where(torch.isfinite(scale) & (amax > 0), scale, torch.ones_like(scale))
        self.scale.copy_(scale)
        if not self.refresh_owned:
            torch.reciprocal(self.scale, out=self.scale_inv)

    def cast(self, slot: int, x: torch.Tensor) -> torch.Tensor:
        """FP8 x for tensor `slot`, recording its amax: one fused kernel
        (fp8_cast.py), or the same bits in PyTorch ops."""
        out = fused_cast(x, self.one("scale", slot), self.amax[slot, :1], self.fp8, self.fp8_max)
        if out is not None:
            return out
        self.record_amax(slot, x)
        return self.quantize(slot, x)

    def record_amax(self, slot: int, x: torch.Tensor) -> None:
        """amax[slot] = max|x| (NaN if x holds one), one reduction kernel."""
        torch.linalg.vector_norm(x, float("inf"), dtype=torch.float32, out=self.amax[slot, 0])

    def quantize(self, slot: int, x: torch.Tensor) -> torch.Tensor:
        """x * scale[slot], saturated to the format's range, in FP8. PyTorch's
        conversion rounds to nearest even but does not saturate (448.5 would
        become NaN in E4M3), hence the clamp."""
        # The view has a dimension, so it takes part in type promotion:
        # bf16 x fp32 is one kernel into FP32.
        scaled = x * self.one("scale", slot)
        return scaled.clamp_(-self.fp8_max, self.fp8_max).to(self.fp8)

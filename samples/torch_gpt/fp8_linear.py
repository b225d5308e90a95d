"""The FP8 linear layer of the hybrid recipe, through torch._scaled_mm.

Forward  y  = x W^T:  x in E4M3 (delayed scale), W in E4M3 (the stepgraph
                       refresh's cast of the FP32 master).
Backward dx = dy W:   dy in E5M2 (delayed scale) times W^T, the FP8
                       transpose the refresh writes: _scaled_mm wants its
                       second operand column-major, and the column-major
                       view of W is W^T stored row-major.
         dW = dy^T x: in BF16 (two FP8 operands would need two more
                       transposes a step), as FP32 into the master's grad.
The master is an input of the function only to receive dW: the forward reads
W, never the master, so a stale W or W^T reaches the loss as it would in a
real trainer."""

from __future__ import annotations

from typing import Any, Optional, Tuple

import torch

from scaling import E4M3, ScalingState


class Fp8Weight(torch.nn.Module):
    """An FP32 master [out, in] with its FP8 copies W [out, in] and
    W^T [in, out] and its slot in the weights' scaling state, whose scale,
    scale_inv and amax the refresh uses and writes."""

    w: torch.Tensor
    wt: torch.Tensor

    def __init__(self, out_features: int, in_features: int, slot: int, device: torch.device) -> None:
        super().__init__()
        self.master = torch.nn.Parameter(torch.empty(out_features, in_features, device=device))
        self.register_buffer("w", torch.zeros(out_features, in_features, dtype=E4M3, device=device))
        self.register_buffer("wt", torch.zeros(in_features, out_features, dtype=E4M3, device=device))
        self.slot = slot


class Fp8Linear(torch.nn.Module):
    def __init__(self, weight: Fp8Weight, weights: ScalingState, acts: ScalingState,
                 grads: ScalingState, slot: int) -> None:
        super().__init__()
        self.weight = weight
        self.states = (weights, acts, grads)
        self.slot = slot  # this layer's slot among the activations and the gradients

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        shape = x.shape
        y = _Fp8LinearFn.apply(x.reshape(-1, shape[-1]), self.weight.master, self.weight, self.states, self.slot)
        return y.view(*shape[:-1], y.shape[-1])


class _Fp8LinearFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, master: torch.Tensor, weight: Fp8Weight,
                states: Tuple[ScalingState, ScalingState, ScalingState], slot: int) -> torch.Tensor:
        weights, acts, _ = states
        x = x.to(torch.bfloat16)
        xq = acts.cast(slot, x)
        y = torch._scaled_mm(xq, weight.w.t(), scale_a=acts.one("scale_inv", slot),
                             scale_b=weights.one("scale_inv", weight.slot), out_dtype=torch.bfloat16)
        ctx.save_for_backward(x)
        ctx.weight, ctx.states, ctx.slot = weight, states, slot
        return y

    @staticmethod
    def backward(ctx: Any, dy: torch.Tensor) -> Tuple[Optional[torch.Tensor], ...]:
        (x,) = ctx.saved_tensors
        weights, _, grads = ctx.states
        weight, slot = ctx.weight, ctx.slot
        dy = dy.to(torch.bfloat16).contiguous()
        dyq = grads.cast(slot, dy)
        dx = torch._scaled_mm(dyq, weight.wt.t(), scale_a=grads.one("scale_inv", slot),
                              scale_b=weights.one("scale_inv", weight.slot), out_dtype=torch.bfloat16)
        dw = torch.mm(dy.t(), x).float()
        return dx, dw, None, None, None

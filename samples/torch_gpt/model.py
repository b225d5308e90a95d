"""A small decoder-only transformer (GPT-2 shaped): token and position
embeddings, pre-norm blocks of causal self-attention (through
scaled_dot_product_attention) and a GELU MLP, a final norm and an untied
head. The four linear layers of a block are FP8 (fp8_linear.py) or BF16
(under autocast); embeddings, norms and the head stay BF16 under autocast
over FP32 parameters, as in the usual hybrid recipe."""

from __future__ import annotations

import math
from typing import Callable, List

import torch
import torch.nn.functional as F

from config import Config
from fp8_linear import Fp8Linear, Fp8Weight
from scaling import E4M3, E5M2, ScalingState

LinearFactory = Callable[[int, int], torch.nn.Module]
LINEARS_PER_BLOCK = 4


class Bf16Linear(torch.nn.Module):
    def __init__(self, out_features: int, in_features: int, device: torch.device) -> None:
        super().__init__()
        self.master = torch.nn.Parameter(torch.empty(out_features, in_features, device=device))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.linear(x, self.master)


class Fp8Linears:
    """Makes the FP8 linear layers of a model and owns their scaling:
    one state for the weights (E4M3; the refresh writes their amax), one
    for the activations entering them (E4M3) and one for the gradients
    leaving them (E5M2)."""

    def __init__(self, count: int, history: int, device: torch.device) -> None:
        self.weights = ScalingState(count, E4M3, history, device, refresh_owned=True)
        self.acts = ScalingState(count, E4M3, history, device)
        self.grads = ScalingState(count, E5M2, history, device)
        self.device = device
        self.layers: List[Fp8Weight] = []

    def __call__(self, out_features: int, in_features: int) -> torch.nn.Module:
        slot = len(self.layers)
        weight = Fp8Weight(out_features, in_features, slot, self.device)
        self.layers.append(weight)
        return Fp8Linear(weight, self.weights, self.acts, self.grads, slot)

    def update_scales(self) -> None:
        for state in (self.weights, self.acts, self.grads):
            state.update()


class Block(torch.nn.Module):
    def __init__(self, cfg: Config, linear: LinearFactory, device: torch.device) -> None:
        super().__init__()
        width = cfg.width
        self.heads = cfg.heads
        self.ln1 = torch.nn.LayerNorm(width, device=device)
        self.qkv = linear(3 * width, width)
        self.proj = linear(width, width)
        self.ln2 = torch.nn.LayerNorm(width, device=device)
        self.fc1 = linear(4 * width, width)
        self.fc2 = linear(width, 4 * width)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch, seq, width = x.shape
        qkv = self.qkv(self.ln1(x)).view(batch, seq, 3, self.heads, width // self.heads)
        q, k, v = qkv.permute(2, 0, 3, 1, 4).unbind(0)
        attn = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(attn.transpose(1, 2).reshape(batch, seq, width))
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))


class Gpt(torch.nn.Module):
    def __init__(self, cfg: Config, linear: LinearFactory, device: torch.device) -> None:
        super().__init__()
        self.tokens = torch.nn.Embedding(cfg.vocab, cfg.width, device=device)
        self.positions = torch.nn.Parameter(torch.zeros(cfg.seq, cfg.width, device=device))
        self.blocks = torch.nn.ModuleList(Block(cfg, linear, device) for _ in range(cfg.layers))
        self.ln_f = torch.nn.LayerNorm(cfg.width, device=device)
        self.head = torch.nn.Linear(cfg.width, cfg.vocab, bias=False, device=device)
        self._init(cfg)

    def _init(self, cfg: Config) -> None:
        """GPT-2's: N(0, 0.02), residual projections scaled by 1/sqrt(2L)."""
        for name, p in self.named_parameters():
            if p.dim() == 2:
                std = 0.02 / math.sqrt(2 * cfg.layers) if name.endswith(("proj.master", "fc2.master")) else 0.02
                torch.nn.init.normal_(p, std=std)

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        x = self.tokens(idx) + self.positions
        for block in self.blocks:
            x = block(x)
        return self.head(self.ln_f(x))

"""One training run's state and its step: model, AdamW, FP8 scaling and
refresh, batches and the per-step loss log, all in device memory, so that
`step()` launches work only and can be run eagerly, captured by
torch.cuda.graph or captured by stepgraph alike."""

from __future__ import annotations

import functools
from typing import Callable, List, Optional

import torch
import torch.nn.functional as F

import stepgraph.torch as sgt
from stepgraph import Fp8Param, RefreshMode

from config import Config
from corpus import Batches
from model import LINEARS_PER_BLOCK, Bf16Linear, Fp8Linears, Gpt

# How W and W^T follow the masters after each optimizer step.
REFRESHES = (
    "stepgraph",  # the plugin's cast-transpose: one launch for every weight
    "stale",      # the plugin's cast only: W follows, W^T keeps its first value (the seed's bug)
    "torch",      # per tensor in PyTorch: cast, amax, w.t().contiguous()
    "none",       # BF16: there is no FP8 copy
)
PLUGIN_REFRESHES = ("stepgraph", "stale")  # the ones that need a stepgraph session


class Trainer:
    def __init__(self, cfg: Config, text: bytes, steps: int, refresh: str = "stepgraph",
                 session: Optional[sgt.Session] = None, check_transposes: bool = False,
                 device: Optional[torch.device] = None) -> None:
        if refresh not in REFRESHES:
            raise ValueError(f"refresh {refresh!r} is not one of {', '.join(REFRESHES)}")
        if refresh in PLUGIN_REFRESHES and session is None:
            raise ValueError(f"refresh {refresh!r} needs a stepgraph session")
        cfg.check()
        self.cfg, self.refresh_kind, self.session = cfg, refresh, session
        self.check_transposes = check_transposes
        self.device = device or torch.device("cuda", torch.cuda.current_device())
        torch.manual_seed(cfg.seed)
        self.fp8: Optional[Fp8Linears] = None
        if refresh == "none":
            linear: Callable[[int, int], torch.nn.Module] = functools.partial(Bf16Linear, device=self.device)
        else:
            self.fp8 = Fp8Linears(LINEARS_PER_BLOCK * cfg.layers, cfg.history, self.device)
            linear = self.fp8
        self.model = Gpt(cfg, linear, self.device)
        self.batches = Batches(text, steps, cfg.batch, cfg.seq, cfg.seed, self.device)
        self.step_index = torch.zeros(1, dtype=torch.int64, device=self.device)
        self.losses = torch.full((steps,), float("nan"), device=self.device)
        params = list(self.model.parameters())
        for p in params:  # grads exist before the first step, so every mode accumulates into them
            p.grad = torch.zeros_like(p)
        self.optimizer = torch.optim.AdamW(
            params, lr=torch.tensor(cfg.lr, device=self.device), weight_decay=cfg.weight_decay,
            capturable=True, foreach=True)
        if self.fp8 is not None:
            self._first_refresh()

    # --- the step ---------------------------------------------------------------

    def step(self) -> None:
        if self.check_transposes and self.session is not None:
            self.session.check_transposes()
        inputs, targets = self.batches.take(self.step_index)
        loss = self.loss_of(inputs, targets)
        loss.backward()
        self.optimizer.step()
        self.optimizer.zero_grad(set_to_none=False)
        if self.fp8 is not None:
            self._refresh()
            self.fp8.update_scales()
        self.losses.index_copy_(0, self.step_index, loss.detach().view(1))
        self.step_index.add_(1)

    def loss_of(self, inputs: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        """The forward and the loss: what a host may compile (bench/torch_gpt
        replaces it on the instance with torch.compile's version)."""
        with torch.autocast("cuda", dtype=torch.bfloat16, cache_enabled=False):
            logits = self.model(inputs)
        return F.cross_entropy(logits.float().flatten(0, 1), targets.flatten())

    # --- FP8 weights ----------------------------------------------------------------

    def _refresh(self) -> None:
        assert self.fp8 is not None
        if self.refresh_kind == "torch":
            self._torch_refresh()
            return
        assert self.session is not None
        mode = RefreshMode.CAST if self.refresh_kind == "stale" else RefreshMode.CAST_TRANSPOSE
        self.session.refresh(mode)

    def _torch_refresh(self) -> None:
        """What a trainer without the plugin writes: per weight, the amax,
        the cast (saturated, as the plugin's), scale_inv and a transpose."""
        assert self.fp8 is not None
        state = self.fp8.weights
        for weight in self.fp8.layers:
            state.record_amax(weight.slot, weight.master.detach())
            weight.w.copy_(state.quantize(weight.slot, weight.master.detach()))
            weight.wt.copy_(weight.w.t().contiguous())
        torch.reciprocal(state.scale, out=state.scale_inv)

    def _first_refresh(self) -> None:
        """W and W^T of the initial masters: a refresh at scale 1 gives each
        weight's amax, the weights' scales follow from it, and a second
        refresh casts with them (W^T included, in every refresh mode)."""
        assert self.fp8 is not None
        if self.session is not None:
            self.session.register_fp8_params(self._fp8_params())
        with torch.no_grad():
            for _ in range(2):
                if self.refresh_kind == "torch":
                    self._torch_refresh()
                else:
                    assert self.session is not None
                    self.session.refresh(RefreshMode.CAST_TRANSPOSE)
                self.fp8.weights.update()

    def _fp8_params(self) -> List[Fp8Param]:
        assert self.fp8 is not None
        state = self.fp8.weights
        return [
            sgt.fp8_param(layer.w, layer.wt, master=layer.master.detach(),
                          scale=state.one("scale", layer.slot), scale_inv=state.one("scale_inv", layer.slot),
                          amax=state.one("amax", layer.slot), device=self.device.index)
            for layer in self.fp8.layers
        ]

    # --- results ------------------------------------------------------------------

    def masters(self) -> List[torch.Tensor]:
        return [p.detach().clone() for p in self.model.parameters()]


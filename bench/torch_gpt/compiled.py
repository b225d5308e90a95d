"""The bench's torch.compile column as a mode of the sample (modes.MODES):
the model's forward and loss compiled with mode="reduce-overhead" (CUDA
graphs through cudagraph trees, the backward through AOTAutograd), the
batch gather, AdamW and the loss log eager around it."""

from __future__ import annotations

import time
from typing import Any

import torch
import torch.nn.functional as F

import modes
from trainer import Trainer

COMPILE_STEPS = 3  # steps timed as "capture": compilation and cudagraph recording


class Compiled(modes.Mode):
    name = "compile"
    refresh = "none"

    def __init__(self, trainer: Trainer) -> None:
        super().__init__(trainer)
        model = trainer.model

        def loss_of(inputs: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
            with torch.autocast("cuda", dtype=torch.bfloat16, cache_enabled=False):
                logits = model(inputs)
            return F.cross_entropy(logits.float().flatten(0, 1), targets.flatten())

        self.loss_of: Any = torch.compile(loss_of, mode="reduce-overhead")
        self.steps = 0
        self.compile_s = 0.0

    def step(self) -> None:
        timing = self.steps < COMPILE_STEPS
        if timing:
            torch.cuda.synchronize()
        start = time.perf_counter()
        t = self.trainer
        inputs, targets = t.batches.take(t.step_index)
        torch.compiler.cudagraph_mark_step_begin()
        loss = self.loss_of(inputs, targets)
        loss.backward()
        t.optimizer.step()
        t.optimizer.zero_grad(set_to_none=False)
        t.losses.index_copy_(0, t.step_index, loss.detach().view(1))
        t.step_index.add_(1)
        if timing:
            torch.cuda.synchronize()
            self.compile_s += time.perf_counter() - start
            if self.steps + 1 == COMPILE_STEPS:
                self.capture_ms = self.compile_s * 1e3
        self.steps += 1

    def close(self) -> None:
        torch._dynamo.reset()  # drops the compiled graphs and their cudagraph pools


def register_compile_mode() -> None:
    modes.MODES[Compiled.name] = Compiled

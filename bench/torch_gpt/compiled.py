"""The bench's torch.compile column as a mode of the sample (modes.MODES):
the model's forward and loss compiled with mode="reduce-overhead" (CUDA
graphs through cudagraph trees, the backward through AOTAutograd), the
batch gather, AdamW and the loss log eager around it."""

from __future__ import annotations

import time

import torch

import modes
from trainer import Trainer

COMPILE_STEPS = 3  # steps timed as "capture": compilation and cudagraph recording


class Compiled(modes.Mode):
    name = "compile"
    refresh = "none"

    def __init__(self, trainer: Trainer) -> None:
        super().__init__(trainer)
        # The instance's loss_of (forward and loss) becomes the compiled one;
        # the rest of the trainer's step stays eager around it.
        trainer.loss_of = torch.compile(trainer.loss_of, mode="reduce-overhead")  # type: ignore[method-assign]
        self.steps = 0
        self.compile_s = 0.0

    def step(self) -> None:
        timing = self.steps < COMPILE_STEPS
        if timing:
            torch.cuda.synchronize()
        start = time.perf_counter()
        torch.compiler.cudagraph_mark_step_begin()
        self.trainer.step()
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

"""The model and training configurations of the sample (see README.md)."""

from __future__ import annotations

import dataclasses
from typing import Dict


@dataclasses.dataclass(frozen=True)
class Config:
    """A decoder-only transformer and its training step.

    Every width is a multiple of 16, as torch._scaled_mm requires of the
    FP8 GEMMs' dimensions, and so is batch * seq (the GEMMs' M)."""

    layers: int
    width: int
    heads: int
    seq: int
    batch: int
    vocab: int = 256  # byte-level: every character of the corpus is one byte
    lr: float = 1e-3
    weight_decay: float = 0.01
    history: int = 16  # amax history of delayed scaling (Transformer Engine's default is 1024)
    seed: int = 1234

    @property
    def tokens(self) -> int:
        return self.batch * self.seq

    def check(self) -> None:
        for name in ("width", "tokens"):
            if getattr(self, name) % 16:
                raise ValueError(f"{name} = {getattr(self, name)} is not a multiple of 16 (torch._scaled_mm)")
        if self.width % self.heads:
            raise ValueError(f"width {self.width} is not a multiple of heads {self.heads}")


# small: launch-bound. 2,048 tokens through 4 layers of width 256 is about
# 25 MFLOP per GEMM, well under a microsecond of the H200's tensor cores,
# while an eager step launches several hundred kernels of 3-5 us of host
# time each: the step is the launches, which a graph removes.
# large: compute-bound. 8,192 tokens through 12 layers of width 1024 is
# about 7 TFLOP a step, milliseconds of GEMM time against a few hundred
# microseconds of launches.
PRESETS: Dict[str, Config] = {
    "small": Config(layers=4, width=256, heads=4, seq=128, batch=16),
    "large": Config(layers=12, width=1024, heads=16, seq=1024, batch=8),
}

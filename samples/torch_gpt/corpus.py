"""The training text: the repository's own sources and documents, read at
start-up (no download), as bytes on the device, and each step's batch taken
there from a table of offsets drawn once, so a step reads no host input and
every mode sees the same batches."""

from __future__ import annotations

import pathlib
from typing import Iterable, List, Tuple

import torch

ROOT = pathlib.Path(__file__).resolve().parents[2]
# What the corpus is made of, relative to the repository root.
PATTERNS = ("*.md", "abi/*.h", "plugin/*.[ch]", "kernels/*.c*", "kernels/*.h",
            "samples/**/*.[ch]", "docs/*.md", "python/**/*.py")


def corpus_files(root: pathlib.Path = ROOT, patterns: Iterable[str] = PATTERNS) -> List[pathlib.Path]:
    files = sorted({p for pattern in patterns for p in root.glob(pattern) if p.is_file()})
    if not files:
        raise FileNotFoundError(f"no corpus files under {root} ({', '.join(patterns)})")
    return files


def read_corpus(root: pathlib.Path = ROOT) -> bytes:
    return b"\n".join(path.read_bytes() for path in corpus_files(root))


class Batches:
    """`steps` batches of `batch` windows of seq + 1 bytes, on the device.

    The offsets come from a seeded CPU generator, so two runs (and two
    modes) draw the same batches; `take(step)` gathers one step's inputs
    and targets with device ops only, capturable, where `step` is a
    one-element int64 device tensor."""

    def __init__(self, text: bytes, steps: int, batch: int, seq: int, seed: int, device: torch.device) -> None:
        if len(text) < seq + 2:
            raise ValueError(f"the corpus has {len(text)} bytes, fewer than seq + 2 = {seq + 2}")
        generator = torch.Generator().manual_seed(seed)
        self.data = torch.frombuffer(bytearray(text), dtype=torch.uint8).to(device=device, dtype=torch.int64)
        self.offsets = torch.randint(0, len(text) - seq - 1, (steps, batch), generator=generator).to(device)
        self.window = torch.arange(seq + 1, device=device)
        self.steps = steps

    def take(self, step: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        rows = torch.index_select(self.offsets, 0, step).view(-1, 1)
        chunk = self.data[rows + self.window]
        return chunk[:, :-1], chunk[:, 1:]

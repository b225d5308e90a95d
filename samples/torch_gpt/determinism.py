"""What makes PyTorch's CUDA step reproducible bit for bit, set before the
first CUDA call (cuBLAS reads CUBLAS_WORKSPACE_CONFIG when it creates its
first handle):

- torch.use_deterministic_algorithms(True): PyTorch picks the deterministic
  kernel where it has two (embedding backward, index_copy, the flash
  attention backward's dq accumulation) and raises where it has none, so a
  non-deterministic op cannot creep in unnoticed;
- CUBLAS_WORKSPACE_CONFIG=:4096:8: a fixed cuBLAS workspace per stream, which
  use_deterministic_algorithms requires (cuBLAS's split-K choice depends on
  it);
- fill_uninitialized_memory off: deterministic mode would otherwise fill
  every torch.empty with NaN, a kernel per allocation the step does not need
  (every buffer the step reads it has written first);
- no randomness in the step: no dropout, the batches come from offsets drawn
  once (corpus.py), AdamW draws nothing.
"""

from __future__ import annotations

import os

import torch


def pin_determinism() -> None:
    os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    torch.use_deterministic_algorithms(True)
    torch.utils.deterministic.fill_uninitialized_memory = False  # type: ignore[attr-defined]

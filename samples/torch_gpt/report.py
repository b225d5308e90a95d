"""What train.py prints: the loss curve's summary and the table of modes."""

from __future__ import annotations

from typing import List, Optional

import torch

from config import Config
from runs import RunResult, all_same_bits, same_bits

WINDOW = 20  # steps averaged at each end of the run for "the loss falls"


def unigram_entropy(text: bytes) -> float:
    """Nats per byte of the corpus's byte frequencies: the loss of the best
    model that ignores the context."""
    counts = torch.bincount(torch.frombuffer(bytearray(text), dtype=torch.uint8).long(), minlength=256).double()
    p = counts[counts > 0] / counts.sum()
    return float(-(p * p.log()).sum())


def loss_fell(result: RunResult, text: bytes) -> bool:
    """The check of the loss falling: the mean loss of the last WINDOW steps
    is below the corpus's unigram entropy, so the model predicts better than
    the byte frequencies alone: it has learned to use the context. (It
    starts at about ln 256 = 5.5 nats; the unigram entropy of this
    repository's text is about 3.2.)"""
    return float(result.losses[-WINDOW:].mean()) < unigram_entropy(text)


def print_losses(results: List[RunResult]) -> None:
    for r in results:
        losses = r.losses
        marks = ", ".join(f"{i}: {float(losses[i]):.4f}" for i in _marks(len(losses)))
        print(f"{r.mode:>12} loss  {marks}")
        if r.stale_report:
            print(f"{'':>12} detector: {r.stale_report}")


def print_table(cfg: Config, text: bytes, results: List[RunResult]) -> int:
    """Prints the table; returns 1 when a mode that must match eager does not."""
    eager = next((r for r in results if r.mode == "eager"), None)
    print("| mode | ms/step | tokens/s | GPU ops per eager step | graph nodes | peak MiB | capture ms | vs eager |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    failed = False
    for r in results:
        verdict = _verdict(r, eager)
        failed |= verdict.startswith("DIFFER") or verdict.startswith("IDENTICAL (stale")
        print(f"| {r.mode} | {r.step_ms:.4f} | {r.tokens_per_s(cfg):,.0f} | {_opt(r.gpu_ops_per_eager_step)} | "
              f"{_opt(r.graph_nodes)} | {r.peak_mib:.1f} | {_opt(r.capture_ms, '.1f')} | {verdict} |")
    for r in results:
        if r.mode != "stale" and not loss_fell(r, text):
            print(f"{r.mode}: the loss did not fall below the unigram entropy {unigram_entropy(text):.4f} "
                  f"(last {WINDOW} steps: {float(r.losses[-WINDOW:].mean()):.4f})")
            failed = True
    return 1 if failed else 0


def divergence(result: RunResult, eager: RunResult) -> float:
    """max over steps of |loss - eager loss|."""
    return float((result.losses - eager.losses).abs().max())


def first_difference(result: RunResult, eager: RunResult) -> Optional[int]:
    differs = (result.losses.view(-1) != eager.losses.view(-1)).nonzero()
    return int(differs[0]) if len(differs) else None


def _verdict(r: RunResult, eager: Optional[RunResult]) -> str:
    if eager is None or r is eager:
        return "reference" if r is eager else "no eager run"
    identical = same_bits(r.losses, eager.losses) and all_same_bits(r.masters, eager.masters)
    if r.mode == "stale":
        if identical:
            return "IDENTICAL (stale W^T must show)"
        return f"differs from step {first_difference(r, eager)}, by up to {divergence(r, eager):.4f} (expected)"
    return "bit-identical (losses, masters)" if identical else f"DIFFER from step {first_difference(r, eager)}"


def _marks(n: int) -> List[int]:
    return sorted({0, 1, n // 4, n // 2, 3 * n // 4, n - 1})


def _opt(value: Optional[float], fmt: str = "d") -> str:
    return "-" if value is None else format(value, fmt)

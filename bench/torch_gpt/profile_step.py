"""Where one eager step's GPU time goes, from the PyTorch profiler: kernels
grouped by what they do, for the closing question of the benchmark (why a
column is slower than another)."""

from __future__ import annotations

from typing import Dict, List, Optional, Tuple

import torch
from torch.profiler import ProfilerActivity, profile

import stepgraph.torch as sgt
from config import Config
from modes import WARMUP_STEPS
from runs import refresh_of
from trainer import PLUGIN_REFRESHES, Trainer

# (category, substrings of the kernel name, lower case), first match wins.
CATEGORIES: List[Tuple[str, Tuple[str, ...]]] = [
    ("GEMM FP8", ("e4m3", "e5m2", "f8f6f4", "fp8")),
    ("GEMM", ("gemm", "nvjet", "xmma", "cutlass", "cublas")),
    ("attention", ("flash", "fmha", "attention")),
    ("stepgraph refresh", ("sg_k_", "refresh")),
    ("AdamW", ("multi_tensor", "foreach", "adam")),
    ("reductions (amax, norms, loss)", ("reduce", "norm", "softmax", "nll")),
    ("elementwise (casts, scales, GELU, adds)", ("elementwise", "vectorized", "unrolled", "copy", "fill")),
]


def category(name: str) -> str:
    lower = name.lower()
    return next((c for c, keys in CATEGORIES if any(k in lower for k in keys)), "other")


def profile_eager_step(cfg: Config, text: bytes, precision: str, refresh: Optional[str]) -> Dict[str, Tuple[int, float]]:
    """{category: (kernels, GPU us)} of one eager step after warm-up."""
    kind = refresh_of(precision, refresh, "stepgraph")
    session = sgt.Session() if kind in PLUGIN_REFRESHES else None
    try:
        trainer = Trainer(cfg, text, WARMUP_STEPS + 1, kind, session)
        for _ in range(WARMUP_STEPS):
            trainer.step()
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            trainer.step()
            torch.cuda.synchronize()
    finally:
        if session is not None:
            session.close()
    out: Dict[str, Tuple[int, float]] = {}
    for e in prof.events():
        if e.device_type == torch.autograd.DeviceType.CUDA:
            n, us = out.get(category(e.name), (0, 0.0))
            out[category(e.name)] = (n + 1, us + e.time_range.elapsed_us())
    return out


def print_profiles(name: str, profiles: Dict[str, Dict[str, Tuple[int, float]]]) -> None:
    columns = list(profiles)
    print(f"\nGPU time of one eager step by kernel category, {name} (kernels, us)")
    print("| category | " + " | ".join(columns) + " |")
    print("| --- |" + " ---: |" * len(columns))
    rows = sorted({c for p in profiles.values() for c in p})
    for row in rows + ["total"]:
        cells = []
        for column in columns:
            p = profiles[column]
            n, us = (sum(v[0] for v in p.values()), sum(v[1] for v in p.values())) if row == "total" else p.get(row, (0, 0.0))
            cells.append(f"{n}, {us:.0f}")
        print(f"| {row} | " + " | ".join(cells) + " |")

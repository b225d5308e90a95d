#!/usr/bin/env python3
"""The PyTorch FP8 GPT sample (samples/torch_gpt) against what its users
would otherwise run, on one GPU in one process: for each configuration
(small: launch-bound, large: compute-bound) and each column, a fresh model
from the same seed trained for --steps steps; ms/step is the median of the
steps after warm-up (CUDA events), peak memory torch.cuda.max_memory_allocated
over the run, and "capture" the wall time of capture + instantiation (for
torch.compile: the first steps, compilation included).

Columns:
  bf16-eager          BF16 autocast, PyTorch eager
  bf16-graph          the same step under torch.cuda.graph
  bf16-compile        torch.compile(mode="reduce-overhead") of the model's
                      forward and loss (its backward through AOTAutograd;
                      AdamW stays the eager foreach one)
  fp8-eager           FP8 linears, refresh per tensor in PyTorch (cast,
                      amax, w.t().contiguous()), eager
  fp8-graph           the same under torch.cuda.graph
  fp8-plugin-graph    FP8, the stepgraph refresh inside torch.cuda.graph
  fp8-stepgraph       FP8, the step handed to stepgraph (the sample's mode)

  bench_torch_gpt.py [--configs small,large] [--steps 300,60]
      [--columns ...] [--csv out.csv] [--profile]

Exits 77 without PyTorch or an FP8 GPU. Determinism is not pinned here:
the columns run as a user would run them (the sample's tests pin it)."""

from __future__ import annotations

import argparse
import csv
import pathlib
import sys
import time
from typing import Dict, List, Optional, Sequence, Tuple

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))
sys.path.insert(0, str(ROOT / "samples" / "torch_gpt"))

from train import SKIP, missing_requirement  # noqa: E402

# column -> (precision, mode, refresh)
COLUMNS: Dict[str, Tuple[str, str, Optional[str]]] = {
    "bf16-eager": ("bf16", "eager", None),
    "bf16-graph": ("bf16", "torch-graph", None),
    "bf16-compile": ("bf16", "compile", None),
    "fp8-eager": ("fp8", "eager", "torch"),
    "fp8-graph": ("fp8", "torch-graph", "torch"),
    "fp8-plugin-graph": ("fp8", "torch-graph", "stepgraph"),
    "fp8-stepgraph": ("fp8", "stepgraph", "stepgraph"),
}


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--configs", default="small,large")
    parser.add_argument("--steps", default="300,60", help="steps per run, one per config")
    parser.add_argument("--columns", default=",".join(COLUMNS))
    parser.add_argument("--csv")
    parser.add_argument("--profile", action="store_true",
                        help="also print each configuration's eager step by kernel category (BF16, FP8, FP8 + plugin)")
    args = parser.parse_args(argv)
    reason = missing_requirement()
    if reason:
        print(f"bench_torch_gpt: skipped: {reason}")
        return SKIP
    from compiled import register_compile_mode
    from config import PRESETS
    from corpus import read_corpus
    from runs import run

    register_compile_mode()
    configs, steps = args.configs.split(","), [int(s) for s in args.steps.split(",")]
    columns = args.columns.split(",")
    bad = [c for c in columns if c not in COLUMNS] + [c for c in configs if c not in PRESETS]
    if bad or len(steps) != len(configs):
        print(f"bench_torch_gpt: unknown {bad} or --steps not one per config", file=sys.stderr)
        return 2
    text = read_corpus()
    rows: List[Dict[str, object]] = []
    for name, n in zip(configs, steps):
        cfg = PRESETS[name]
        print(f"== {name}: {cfg}, {n} steps", flush=True)
        for column in columns:
            precision, mode, refresh = COLUMNS[column]
            start = time.perf_counter()
            r = run(cfg, text, mode, n, precision=precision, refresh=refresh)
            rows.append({"config": name, "column": column, "ms_per_step": r.step_ms,
                         "tokens_per_s": r.tokens_per_s(cfg), "peak_mib": r.peak_mib,
                         "capture_ms": r.capture_ms, "final_loss": float(r.losses[-1]),
                         "wall_s": time.perf_counter() - start})
            print(f"   {column}: {r.step_ms:.4f} ms/step, loss {float(r.losses[-1]):.4f}", flush=True)
    print_table(rows, configs, columns)
    if args.profile:
        from profile_step import print_profiles, profile_eager_step

        for name in configs:
            print_profiles(name, {
                "bf16": profile_eager_step(PRESETS[name], text, "bf16", None),
                "fp8 (torch refresh)": profile_eager_step(PRESETS[name], text, "fp8", "torch"),
                "fp8 (stepgraph refresh)": profile_eager_step(PRESETS[name], text, "fp8", "stepgraph"),
            })
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    return 0


def print_table(rows: List[Dict[str, object]], configs: List[str], columns: List[str]) -> None:
    for metric, fmt in (("ms_per_step", ".4f"), ("tokens_per_s", ",.0f"), ("peak_mib", ".1f"), ("capture_ms", ".1f")):
        print(f"\n{metric}")
        print("| config | " + " | ".join(columns) + " |")
        print("| --- |" + " ---: |" * len(columns))
        for name in configs:
            cells = []
            for column in columns:
                value = next(r[metric] for r in rows if r["config"] == name and r["column"] == column)
                cells.append("-" if value is None else format(value, fmt))
            print(f"| {name} | " + " | ".join(cells) + " |")
    for name in configs:
        mine = [r for r in rows if r["config"] == name]
        best = min(mine, key=lambda r: float(r["ms_per_step"]))  # type: ignore[arg-type]
        print(f"{name}: fastest column {best['column']} ({best['ms_per_step']:.4f} ms/step)")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/env python3
"""The PyTorch FP8 GPT sample: trains the model of model.py on the
repository's own text in each requested mode (modes.py) from the same
initial state, prints the loss, then a table of the modes and whether each
one's losses and final masters are bit-identical to the eager run's.

  samples/torch_gpt/train.py [--config small|large] [--steps 200]
      [--modes eager,torch-graph,stepgraph,stale] [--check-transposes]

Needs a CUDA GPU with FP8 tensor cores (sm_89 or later), PyTorch, and the
plugin (STEPGRAPH_LIBRARY, or build/plugin/ of this checkout). Exits 77 with
a one-line reason when the GPU or PyTorch is missing."""

from __future__ import annotations

import argparse
import pathlib
import sys
from typing import List, Sequence

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "python"))  # the binding of this checkout, unless installed first
SKIP = 77


def parse(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", default="small", help="small (launch-bound) or large (compute-bound)")
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--modes", default="eager,torch-graph,stepgraph,stale")
    parser.add_argument("--check-transposes", action="store_true",
                        help="run the stale-transpose detector at the start of every step")
    return parser.parse_args(argv)


def main(argv: Sequence[str]) -> int:
    args = parse(argv)
    reason = missing_requirement()
    if reason:
        print(f"torch_gpt: skipped: {reason}")
        return SKIP
    from determinism import pin_determinism

    pin_determinism()
    from config import PRESETS
    from corpus import read_corpus
    from modes import MODES
    from report import print_losses, print_table
    from runs import run

    if args.config not in PRESETS:
        print(f"torch_gpt: --config {args.config!r} is not one of {', '.join(PRESETS)}", file=sys.stderr)
        return 2
    modes: List[str] = args.modes.split(",")
    unknown = [m for m in modes if m not in MODES]
    if unknown or args.steps <= 4:
        print(f"torch_gpt: bad --modes {unknown} or --steps {args.steps} (> 4 needed)", file=sys.stderr)
        return 2
    cfg, text = PRESETS[args.config], read_corpus()
    print(f"torch_gpt: config {args.config} {cfg}, corpus {len(text)} bytes, {args.steps} steps")
    results = [run(cfg, text, mode, args.steps, check_transposes=args.check_transposes, count_ops=True)
               for mode in modes]
    print_losses(results)
    return print_table(cfg, text, results)


def missing_requirement() -> str:
    try:
        import torch
    except ImportError:
        return "PyTorch is not installed"
    if not torch.cuda.is_available():
        return "no CUDA GPU"
    if torch.cuda.get_device_capability() < (8, 9):
        return f"{torch.cuda.get_device_name()} has no FP8 tensor cores (sm_89 or later)"
    return ""


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

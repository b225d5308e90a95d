"""python/README.md's PyTorch example, run as it is written."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from torch_support import require_torch

require_torch()

import stepgraph  # noqa: E402

PYTHON_DIR = Path(__file__).resolve().parents[2]


def readme_example() -> str:
    text = (PYTHON_DIR / "README.md").read_text()
    section = text.split("## What a PyTorch user writes", 1)[1]
    return section.split("```python\n", 1)[1].split("```", 1)[0]


def test_readme_example_runs_as_written(api: stepgraph.Api) -> None:
    env = {**os.environ, "STEPGRAPH_LIBRARY": api.path, "PYTHONPATH": str(PYTHON_DIR)}
    result = subprocess.run(
        [sys.executable, "-c", readme_example()], env=env, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr
    match = re.fullmatch(r"loss (\d+\.\d+); 17 replays, (\d+) nodes\n", result.stdout)
    assert match, result.stdout
    assert int(match.group(2)) > 5

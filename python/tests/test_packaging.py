"""`pip install ./python` works and installs pure Python only."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import stepgraph

PACKAGE = Path(__file__).resolve().parents[1]


def _build_wheel(out: Path) -> Path:
    if importlib.util.find_spec("setuptools") is None or importlib.util.find_spec("wheel") is None:
        pytest.skip("building the wheel offline needs setuptools and wheel (pip install wheel)")
    # A copy: setuptools writes build/ and *.egg-info next to the sources.
    source = out / "source"
    shutil.copytree(PACKAGE, source, ignore=shutil.ignore_patterns("tests", "__pycache__", "build", "*.egg-info"))
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(out), str(source)],
        check=True,
        cwd=out,
    )
    (wheel,) = out.glob("stepgraph-*.whl")
    return wheel


def test_wheel_is_pure_python(tmp_path: Path) -> None:
    wheel = _build_wheel(tmp_path)
    assert wheel.name.endswith("-py3-none-any.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "stepgraph/__init__.py" in names and "stepgraph/torch/__init__.py" in names
    assert "stepgraph/py.typed" in names
    compiled = [n for n in names if n.endswith((".so", ".pyd", ".c", ".dylib"))]
    assert compiled == []


def test_installed_copy_works(tmp_path: Path, api: stepgraph.Api) -> None:
    wheel = _build_wheel(tmp_path)
    site = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(site), str(wheel)],
        check=True,
    )
    script = (
        "import stepgraph, stepgraph._loader as L\n"
        "assert stepgraph.__file__.startswith(%r), stepgraph.__file__\n"
        "assert L._checkout_library() is None\n"
        "with stepgraph.Session(validation_only=True) as s:\n"
        "    print(s.rng_reserve(8), s.rng_reserve(8))\n"
    ) % str(site)
    env = {**os.environ, "PYTHONPATH": str(site), "STEPGRAPH_LIBRARY": api.path}
    out = subprocess.run([sys.executable, "-c", script], check=True, env=env, cwd=tmp_path, capture_output=True, text=True)
    assert out.stdout.split() == ["0", "8"]

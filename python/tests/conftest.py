"""Shared fixtures. The tests import the package from this checkout
(python/) and load the plugin the way the binding does: STEPGRAPH_LIBRARY
(CTest sets it), else the checkout's build tree."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Iterator

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import stepgraph  # noqa: E402


@pytest.fixture(autouse=True)
def _plain_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """The plugin reads these when a session is created."""
    monkeypatch.delenv("STEPGRAPH_LOG_LEVEL", raising=False)
    monkeypatch.delenv("STEPGRAPH_DISABLE", raising=False)
    monkeypatch.delenv("STEPGRAPH_CHECK_TRANSPOSES", raising=False)


@pytest.fixture(scope="session")
def api() -> stepgraph.Api:
    try:
        return stepgraph.load()
    except stepgraph.LibraryNotFound as exc:
        pytest.fail(
            f"{exc}. Build the plugin (cmake --build build --target stepgraph) "
            "or set STEPGRAPH_LIBRARY to libstepgraph.so.1",
            pytrace=False,
        )


@pytest.fixture
def session(api: stepgraph.Api) -> Iterator[stepgraph.Session]:
    with stepgraph.Session(validation_only=True, library=api) as s:
        yield s

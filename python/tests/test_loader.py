"""Finding the library, negotiating the ABI, and using only what the
plugin's reported minor (and its table's struct_size) has."""

from __future__ import annotations

import ctypes
import ctypes.util
from pathlib import Path

import pytest

import stepgraph
from helpers import STREAM
from stepgraph import _abi, _loader
from stepgraph._abi import AbiStruct, Field, layout


def test_explicit_path_is_used_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STEPGRAPH_LIBRARY", "/elsewhere/libstepgraph.so.1")
    assert _loader.candidates("/my/libstepgraph.so.1") == [("the explicit path", "/my/libstepgraph.so.1")]


def test_environment_variable_is_used_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STEPGRAPH_LIBRARY", "/elsewhere/libstepgraph.so.1")
    assert _loader.candidates() == [("STEPGRAPH_LIBRARY", "/elsewhere/libstepgraph.so.1")]


def test_checkout_build_tree_then_system_loader(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, api: stepgraph.Api
) -> None:
    monkeypatch.delenv("STEPGRAPH_LIBRARY", raising=False)
    (tmp_path / "plugin").mkdir()
    (tmp_path / "plugin" / "libstepgraph.so.1").symlink_to(api.path)
    monkeypatch.setenv("STEPGRAPH_BUILD_DIR", str(tmp_path))
    assert _loader.candidates() == [
        ("the checkout's build tree", str(tmp_path / "plugin" / "libstepgraph.so.1")),
        ("the system loader", "libstepgraph.so.1"),
    ]
    monkeypatch.setenv("STEPGRAPH_BUILD_DIR", str(tmp_path / "nothing"))
    assert _loader.candidates() == [("the system loader", "libstepgraph.so.1")]


def test_unloadable_path_names_it(tmp_path: Path) -> None:
    missing = tmp_path / "libstepgraph.so.1"
    with pytest.raises(stepgraph.LibraryNotFound, match=f"the explicit path \\({missing}\\)"):
        stepgraph.load(missing)


def test_a_library_without_the_entry_point_is_refused() -> None:
    libm = ctypes.util.find_library("m")
    assert libm is not None
    with pytest.raises(stepgraph.LibraryNotFound, match="has no sg_get_api_v1: not a stepgraph plugin"):
        stepgraph.load(libm)


def test_load_negotiates_once(api: stepgraph.Api) -> None:
    assert stepgraph.load(api.path) is stepgraph.load(api.path)
    assert _abi.version_major(api.abi_version) == 1
    assert api.minor >= 0 and api.library_version


def test_another_major_is_refused_with_the_plugin_reason(
    monkeypatch: pytest.MonkeyPatch, api: stepgraph.Api
) -> None:
    monkeypatch.setattr(_abi, "ABI_VERSION", (2 << 16) | 3)
    with pytest.raises(stepgraph.VersionError, match="built against stepgraph ABI 2.3") as info:
        _loader._negotiate(ctypes.CDLL(api.path), api.path)
    assert "majors must match" in info.value.detail
    assert info.value.status == stepgraph.Status.ERR_VERSION


def test_an_entry_newer_than_the_plugin_minor_is_not_called(
    monkeypatch: pytest.MonkeyPatch, session: stepgraph.Session
) -> None:
    """As if sync had been appended in ABI 1.1 and the plugin were 1.0."""
    later = tuple(f._replace(since=session.api.minor + 1) if f.name == "sync" else f for f in _abi.Api._layout_)
    monkeypatch.setattr(_abi.Api, "_layout_", later)
    assert not session.api.has("sync")
    with pytest.raises(stepgraph.NotSupported, match=r"sync: the plugin .* has no such entry; it needs ABI 1\."):
        session.sync(STREAM)
    assert session.api.has("get_stats")


def test_an_entry_past_the_table_size_is_not_called(api: stepgraph.Api) -> None:
    table = _abi.Api.from_buffer_copy(api.table)
    table.struct_size = _abi.Api.field_end("dump_graph")
    short = stepgraph.Api(table, api.abi_version, api.library_version, "short table", keepalive=api)
    assert short.has("dump_graph") and not short.has("sync")
    with stepgraph.Session(validation_only=True, library=short) as session:
        with pytest.raises(stepgraph.NotSupported, match="sync: the plugin"):
            session.sync(STREAM)


@layout(
    Field("struct_size", ctypes.c_size_t),
    Field("old", ctypes.c_uint32),
    Field("new", ctypes.c_uint32, since=1),
)
class Probe(AbiStruct):
    """A struct with a field appended in ABI 1.1."""


def test_fields_of_a_newer_minor(api: stepgraph.Api) -> None:
    minor0 = stepgraph.Api(api.table, 1 << 16, "0.1.0", "a 1.0 plugin")
    minor1 = stepgraph.Api(api.table, (1 << 16) | 1, "0.2.0", "a 1.1 plugin")
    assert minor0.fields(Probe) == ["struct_size", "old"]
    assert minor1.fields(Probe) == ["struct_size", "old", "new"]
    with pytest.raises(stepgraph.NotSupported, match=r"args.new needs ABI 1.1; the plugin \(a 1.0 plugin\) implements ABI 1.0"):
        minor0.new(Probe, "args", new=1)
    probe = minor1.new(Probe, old=2, new=3)
    assert probe.struct_size == ctypes.sizeof(Probe) and (probe.old, probe.new) == (2, 3)
    assert minor0.read(probe) == {"struct_size": ctypes.sizeof(Probe), "old": 2}


def test_a_1_0_plugin_gets_no_1_1_calls(api: stepgraph.Api) -> None:
    """The binding speaks 1.1 but keeps to what a 1.0 plugin has."""
    old = stepgraph.Api(api.table, 1 << 16, "1.0.0", "a 1.0 plugin", keepalive=api)
    assert old.minor == 0 and not old.has("step_plan") and old.has("sync")
    with stepgraph.Session(validation_only=True, library=old) as session:
        with pytest.raises(stepgraph.NotSupported, match="step_plan: the plugin .* it needs ABI 1.1"):
            session.step_plan(1)
        with pytest.raises(stepgraph.NotSupported, match="args.static_sources needs ABI 1.1"):
            session.step(lambda ctx: None, key=1, stream=STREAM, static_sources=[0x100000])
        with pytest.raises(stepgraph.NotSupported, match="host_sources needs ABI 1.1"):
            session.replay(1, STREAM, static_sources=[0x100000], host_sources=True)
        with pytest.raises(stepgraph.NoDevice):
            session.step(lambda ctx: None, key=1, stream=STREAM)  # the 1.0 step: no source fields set

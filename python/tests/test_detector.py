"""The stale-transpose detector's entries (ABI 1.1) and the 1.1 fields of
stats and graph_info: through the real plugin on validation-only sessions
(the detector off and on, by the config flag and by the environment), and
through doubles that report findings, to check every field's way into the
dataclasses."""

from __future__ import annotations

import ctypes
from typing import Any, List

import pytest

import stepgraph
from helpers import STREAM, TableDouble, fp8_param
from stepgraph import _abi


def test_detector_off_checks_nothing_and_reports_nothing(session: stepgraph.Session) -> None:
    session.register_fp8_params([fp8_param(0x100000), fp8_param(0x200000)])
    session.check_transposes(STREAM)
    none = stepgraph.TransposeReport(enabled=False, stale_params=0, checks=0)
    assert session.transpose_report(STREAM) == none
    report = session.transpose_report(STREAM, with_mismatches=True)
    assert report.mismatches == (0, 0) and not report.stale


@pytest.mark.parametrize("how", ["config", "environment"])
def test_detector_on_needs_the_device(api: stepgraph.Api, monkeypatch: pytest.MonkeyPatch, how: str) -> None:
    if how == "environment":
        monkeypatch.setenv("STEPGRAPH_CHECK_TRANSPOSES", "1")
    with stepgraph.Session(validation_only=True, check_transposes=how == "config", library=api) as session:
        with pytest.raises(stepgraph.Error) as info:
            session.check_transposes(STREAM)
        assert type(info.value) is stepgraph.NoDevice
        assert info.value.detail.startswith("check_transposes: needs a GPU")
        with pytest.raises(stepgraph.Error) as info:
            session.transpose_report(STREAM)
        assert type(info.value) is stepgraph.NoDevice
        assert info.value.detail.startswith("transpose_report: needs a GPU")


def test_transpose_report_checks_its_stream(session: stepgraph.Session) -> None:
    with pytest.raises(stepgraph.Error) as info:
        session.transpose_report(0)
    assert type(info.value) is stepgraph.InvalidArgument
    assert info.value.detail.startswith("transpose_report: stream is the legacy default stream")


def test_new_stats_fields_start_empty(api: stepgraph.Api) -> None:
    with stepgraph.Session(validation_only=True, check_transposes=True, library=api) as session:
        stats = session.stats()
    assert (stats.guards, stats.guards_skipped, stats.loops, stats.conditional_nodes) == (0, 0, 0, 0)
    assert (stats.transpose_checks, stats.stale_params) == (0, 0)
    assert (stats.first_stale_check, stats.first_stale_param, stats.first_stale_group) == (None, None, None)


def test_a_1_0_plugin_has_no_detector(api: stepgraph.Api) -> None:
    old = stepgraph.Api(api.table, 1 << 16, "1.0.0", "a 1.0 plugin", keepalive=api)
    with pytest.raises(stepgraph.NotSupported, match=r"check_transposes needs ABI 1.1; the plugin \(a 1.0 plugin\)"):
        stepgraph.Session(validation_only=True, check_transposes=True, library=old)
    with stepgraph.Session(validation_only=True, library=old) as session:
        stats = session.stats()
        assert stats.captures == 0 and stats.guards is None and stats.first_stale_check is None
        for call, entry in [
            (lambda: session.check_transposes(STREAM), "check_transposes"),
            (lambda: session.transpose_report(STREAM), "transpose_report"),
        ]:
            with pytest.raises(stepgraph.NotSupported, match=f"{entry}: the plugin .* it needs ABI 1.1"):
                call()


class Findings:
    """A double of transpose_report that reports findings: it writes each
    counter the binding could mix up a different value, and mismatches[i] =
    100 + i over the capacity it was given."""

    def __init__(self, first_check: int, first_param: int, first_group: int) -> None:
        self.first = (first_check, first_param, first_group)
        self.capacities: List[int] = []

    def __call__(self, session: int, stream: int, out_pointer: Any) -> int:
        out = out_pointer.contents
        assert out.struct_size == ctypes.sizeof(_abi.TransposeReport) and out.reserved0 == 0
        self.capacities.append(out.mismatch_capacity if out.mismatches else -1)
        out.enabled, out.stale_params, out.checks = 1, 2, 9
        out.first_stale_check, out.first_stale_param, out.first_stale_group = self.first
        for i in range(out.mismatch_capacity if out.mismatches else 0):
            out.mismatches[i] = 100 + i
        return 0


def test_findings_reach_the_report(api: stepgraph.Api) -> None:
    findings = Findings(4, 1, 7)
    double = TableDouble(api, transpose_report=findings)
    with stepgraph.Session(validation_only=True, library=double.api) as session:
        session.register_fp8_params([fp8_param(0x100000 * (i + 1)) for i in range(3)])
        report = session.transpose_report(STREAM, with_mismatches=True)
        assert report == stepgraph.TransposeReport(
            enabled=True,
            stale_params=2,
            checks=9,
            first_stale_check=4,
            first_stale_param=1,
            first_stale_group=7,
            mismatches=(100, 101, 102),
        )
        assert report.stale
        assert session.transpose_report(STREAM).mismatches is None
    assert findings.capacities == [3, -1]  # one counter per registered parameter, else NULL


def test_the_header_none_values_become_none(api: stepgraph.Api) -> None:
    double = TableDouble(api, transpose_report=Findings(_abi.NONE_U64, _abi.NONE_U32, _abi.NONE_U32))
    with stepgraph.Session(validation_only=True, library=double.api) as session:
        report = session.transpose_report(STREAM)
    assert (report.first_stale_check, report.first_stale_param, report.first_stale_group) == (None, None, None)
    assert not report.stale


def test_stats_and_graph_info_carry_the_1_1_fields(api: stepgraph.Api) -> None:
    names = [f.name for f in _abi.Stats._layout_ if f.since == 1]

    def get_stats(session: int, out_pointer: Any) -> int:
        out = out_pointer.contents
        for i, name in enumerate(names):
            setattr(out, name, 10 + i)
        return 0

    def graph_info(session: int, key: int, out_pointer: Any) -> int:
        out = out_pointer.contents
        out.nodes, out.replays, out.eager_only, out.conditional_nodes = 12, 3, 0, 2
        return 0

    double = TableDouble(api, get_stats=get_stats, graph_info=graph_info)
    with stepgraph.Session(validation_only=True, library=double.api) as session:
        stats = session.stats()
        assert [getattr(stats, name) for name in names] == [10 + i for i in range(len(names))]
        info = session.graph_info(5)
        assert (info.nodes, info.replays, info.eager_only, info.conditional_nodes) == (12, 3, False, 2)
    old = stepgraph.Api(double.api.table, 1 << 16, "1.0.0", "a 1.0 plugin", keepalive=double)
    with stepgraph.Session(validation_only=True, library=old) as session:
        assert session.graph_info(5).conditional_nodes is None

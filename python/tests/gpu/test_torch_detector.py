"""The stale-transpose detector (ABI 1.1) on a GPU: a parameter whose Wt was
not refreshed is found at the first check, named by index and group, its
mismatching bytes counted exactly; a refresh makes later checks clean (the
counts are sums over checks); the step driver checks at the start of every
step it runs eagerly or captures, and a replay checks again."""

from __future__ import annotations

from torch_support import bits, require_torch

torch = require_torch()

import stepgraph  # noqa: E402
import stepgraph.torch as sgt  # noqa: E402
from stepgraph import RefreshMode, StepOutcome  # noqa: E402

E4M3 = torch.float8_e4m3fn


def _random_fp8(rows: int, cols: int):
    return torch.randint(0, 256, (rows, cols), dtype=torch.uint8, device="cuda").view(E4M3)


def test_a_stale_transpose_is_found_and_named() -> None:
    fresh_w = _random_fp8(40, 24)
    fresh_wt = fresh_w.t().contiguous()
    stale_w = _random_fp8(33, 17)
    stale_wt = torch.zeros(17, 33, dtype=E4M3, device="cuda")  # never refreshed
    differing = int((bits(stale_w.t().contiguous()) != bits(stale_wt)).sum())
    assert differing > 0
    with sgt.Session(check_transposes=True, warmup_steps=1) as session:
        session.register_fp8_params([sgt.fp8_param(fresh_w, fresh_wt, group=2), sgt.fp8_param(stale_w, stale_wt, group=5)])
        session.check_transposes()
        report = session.transpose_report(with_mismatches=True)
        assert report == stepgraph.TransposeReport(
            enabled=True,
            stale_params=1,
            checks=1,
            first_stale_check=0,
            first_stale_param=1,
            first_stale_group=5,
            mismatches=(0, differing),
        )
        stats = session.stats()  # what the report read
        assert (stats.transpose_checks, stats.stale_params) == (1, 1)
        assert (stats.first_stale_check, stats.first_stale_param, stats.first_stale_group) == (0, 1, 5)

        session.refresh(RefreshMode.TRANSPOSE)
        session.check_transposes()
        report = session.transpose_report(with_mismatches=True)
        assert (report.checks, report.stale_params, report.first_stale_check) == (2, 1, 0)
        assert report.mismatches == (0, differing)  # the clean check added nothing

        outcomes = []
        for expected_checks in (3, 4, 5):
            outcomes.append(session.step(lambda ctx: None, key=1).outcome)
            assert session.transpose_report().checks == expected_checks
        assert outcomes == [StepOutcome.WARMUP, StepOutcome.CAPTURED, StepOutcome.REPLAYED]
        assert session.transpose_report(with_mismatches=True).mismatches == (0, differing)


def test_the_detector_off_reports_disabled() -> None:
    w = _random_fp8(8, 8)
    with sgt.Session() as session:
        session.register_fp8(w, torch.zeros(8, 8, dtype=E4M3, device="cuda"))
        session.check_transposes()
        report = session.transpose_report(with_mismatches=True)
    assert report == stepgraph.TransposeReport(enabled=False, stale_params=0, checks=0, mismatches=(0,))

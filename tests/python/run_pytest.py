#!/usr/bin/env python3
"""Runs pytest for CTest and maps its result onto CTest's.

Usage: run_pytest.py <pytest arguments...>

- pytest missing: exit 77 (CTest: skipped) with the reason, except in CI
  (CI=true) and under STEPGRAPH_REQUIRE_GPU=1, where the tests must run and
  a missing pytest fails.
- every test skipped (no GPU, no PyTorch): exit 77 with the skip reasons.
- no test collected: exit 1; a run that tested nothing is not a pass.
- otherwise pytest's own exit status.
"""

import os
import sys

SKIP = 77


class Outcomes:
    """A pytest plugin that counts what ran."""

    def __init__(self):
        self.passed = 0
        self.skipped = []

    def pytest_runtest_logreport(self, report):
        if report.passed and report.when == "call":
            self.passed += 1
        elif report.skipped:
            self._skip(report)

    def pytest_collectreport(self, report):
        if report.skipped:  # a whole module skipped (no PyTorch, no GPU)
            self._skip(report)

    def _skip(self, report):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        self.skipped.append(f"{report.nodeid}: {reason}")


def main(args):
    try:
        import pytest
    except ImportError:
        if os.environ.get("CI") == "true" or os.environ.get("STEPGRAPH_REQUIRE_GPU") == "1":
            print("run_pytest.py: FAIL: pytest is not installed (scripts/test installs it)")
            return 1
        print("run_pytest.py: SKIP: pytest is not installed (pip install pytest)")
        return SKIP
    outcomes = Outcomes()
    status = pytest.main(["-p", "no:cacheprovider", *args], plugins=[outcomes])
    ran_nothing = status in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED) and outcomes.passed == 0
    if ran_nothing and outcomes.skipped:
        print("run_pytest.py: SKIP: every test skipped:")
        for line in sorted(set(outcomes.skipped)):
            print("  " + line)
        return SKIP
    if status == pytest.ExitCode.NO_TESTS_COLLECTED:
        print("run_pytest.py: FAIL: no test was collected")
        return 1
    return int(status)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/env python3
"""One table from Nsight Compute's raw pages of refresh launches.

    ncu_summary.py NAME=RAW.csv [NAME=RAW.csv ...]

Each RAW.csv is `ncu --import REPORT.ncu-rep --csv --page raw` of one
profile (scripts/gpu-profile-refresh writes them); NAME labels its rows.
Prints, per profiled launch, which refresh kernel instance it was
(sg_k_refresh_kernel's template arguments), its time, DRAM and SM
throughput, warps resident and eligible per scheduler, the cycles a warp
takes per issued instruction and the three stall reasons that make up most
of them, registers and executed instructions. A metric the report lacks
prints as "-". Exits 1 when no file held a launch: a summary of nothing is
not one."""
from __future__ import annotations

import csv
import re
import sys
from dataclasses import dataclass
from pathlib import Path

# sg_k_refresh_kernel<KERNEL, LAYOUT, WHOLE[, APART]> (kernels/refresh_kernel.cu);
# KERNEL counts as SG_K_KERNEL_* does, LAYOUT as SG_K_LAYOUT_* (kernels/refresh.h).
KERNELS = ("transpose", "cast", "cast-transpose", "amax", "block-cast", "block-ct", "grid")
INSTANCE = re.compile(r"sg_k_refresh_kernel<(\d+)u?, (\d+)u?, (true|false)(?:, (true|false))?>")
STALL = re.compile(r"smsp__average_warps_issue_stalled_(\w+?)_per_issue_active\.ratio")
SCALE = {"": 1.0, "K": 1e3, "M": 1e6, "G": 1e9, "n": 1e-9, "u": 1e-6, "m": 1e-3}

TIME = "gpu__time_duration.sum"
# Sections name some metrics differently across ncu versions: the first
# one a report holds is taken.
DRAM_PCT = ("gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed",
            "dram__throughput.avg.pct_of_peak_sustained_elapsed")
SM_PCT = "sm__throughput.avg.pct_of_peak_sustained_elapsed"
ACTIVE = "smsp__warps_active.avg.per_cycle_active"
ELIGIBLE = "smsp__warps_eligible.avg.per_cycle_active"
ISSUE = "smsp__issue_active.avg.per_cycle_active"
CPI = "smsp__average_warps_active_per_issue_active.ratio"
REGS = "launch__registers_per_thread"
INSTS = "smsp__inst_executed.sum"
READ = "dram__bytes_read.sum"
WRITE = "dram__bytes_write.sum"


@dataclass
class Launch:
    """One profiled launch: its kernel's name and metrics (SI base units)."""

    name: str
    kernel: str
    metrics: dict[str, float]


def instance(kernel: str) -> str:
    """`sg_k_refresh_kernel<2u, 1u, false, true>` as `cast-transpose/wide/general/apart`."""
    m = INSTANCE.search(kernel)
    if m is None:
        return kernel[:40]
    number, layout = int(m.group(1)), int(m.group(2))
    parts = [KERNELS[number] if number < len(KERNELS) else f"kernel{number}",
             "wide" if layout == 1 else "narrow"]
    parts.append("whole" if m.group(3) == "true" else "general")
    if m.group(4) == "true":
        parts.append("apart")
    return "/".join(parts)


def number(text: str, unit: str) -> float | None:
    """A raw value in the unit's base (seconds, bytes); None if not a number."""
    try:
        value = float(text.replace(",", ""))
    except ValueError:
        return None
    m = re.fullmatch(r"([KMGnum]?)(second|byte)", unit.strip())
    return value * SCALE[m.group(1)] if m else value


def read_raw(name: str, path: Path) -> list[Launch]:
    """The launches of one raw page: a header row naming the metrics, a row
    of their units, then one row per launch (ncu's own messages, lines
    starting with ==, are skipped)."""
    lines = [ln for ln in path.read_text(encoding="utf-8").splitlines()
             if ln.strip() and not ln.startswith("==")]
    rows = list(csv.reader(lines))
    if len(rows) < 2 or "Kernel Name" not in rows[0]:
        return []
    header = rows[0]
    name_at = header.index("Kernel Name")
    has_units = rows[1][name_at] == ""  # a launch's row names its kernel
    units = rows[1] if has_units else [""] * len(header)
    launches = []
    for row in rows[2 if has_units else 1:]:
        metrics = {}
        for key, unit, text in zip(header, units, row):
            value = number(text, unit)
            if value is not None:
                metrics[key] = value
        launches.append(Launch(name, row[name_at], metrics))
    return launches


def stalls(metrics: dict[str, float], count: int = 3) -> str:
    """The reasons with the most stall cycles per issued instruction."""
    found = [(value, m.group(1)) for key, value in metrics.items()
             if (m := STALL.fullmatch(key)) and m.group(1) != "selected"]
    found.sort(reverse=True)
    return " ".join(f"{reason} {value:.1f}" for value, reason in found[:count]) or "-"


def cell(metrics: dict[str, float], key: str | tuple[str, ...], scale: float,
         digits: int) -> str:
    keys = (key,) if isinstance(key, str) else key
    value = next((metrics[k] for k in keys if k in metrics), None)
    return "-" if value is None else f"{value * scale:.{digits}f}"


COLUMNS = ("profile", "instance", "us", "DRAM%", "SM%", "warps", "eligible", "issue/cyc",
           "cyc/inst", "regs", "inst_M", "read_MB", "write_MB", "top stalls (cycles/inst)")


def table_row(launch: Launch) -> list[str]:
    m = launch.metrics
    return [launch.name, instance(launch.kernel), cell(m, TIME, 1e6, 1), cell(m, DRAM_PCT, 1, 1),
            cell(m, SM_PCT, 1, 1), cell(m, ACTIVE, 1, 2), cell(m, ELIGIBLE, 1, 2),
            cell(m, ISSUE, 1, 2), cell(m, CPI, 1, 1), cell(m, REGS, 1, 0),
            cell(m, INSTS, 1e-6, 2), cell(m, READ, 1e-6, 1), cell(m, WRITE, 1e-6, 1), stalls(m)]


def main(argv: list[str]) -> int:
    if not argv or any("=" not in a for a in argv):
        print(__doc__, file=sys.stderr)
        return 2
    launches: list[Launch] = []
    for arg in argv:
        name, path = arg.split("=", 1)
        launches += read_raw(name, Path(path))
    if not launches:
        print("ncu_summary: no launch in " + " ".join(argv), file=sys.stderr)
        return 1
    print("| " + " | ".join(COLUMNS) + " |")
    print("|" + " --- |" * len(COLUMNS))
    for launch in launches:
        print("| " + " | ".join(table_row(launch)) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

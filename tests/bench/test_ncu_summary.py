"""scripts/ncu_summary.py: Nsight Compute's raw page of refresh launches as
one table (the parsing only; the profiles come from a GPU)."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "ncu_summary.py"
spec = importlib.util.spec_from_file_location("ncu_summary", SCRIPT)
assert spec is not None and spec.loader is not None
ncu_summary = importlib.util.module_from_spec(spec)
sys.modules["ncu_summary"] = ncu_summary
spec.loader.exec_module(ncu_summary)

STALL = "smsp__average_warps_issue_stalled_{}_per_issue_active.ratio"
HEADER = ["ID", "Kernel Name", "gpu__time_duration.sum", "dram__bytes_read.sum",
          "dram__throughput.avg.pct_of_peak_sustained_elapsed",
          "launch__registers_per_thread", STALL.format("long_scoreboard"),
          STALL.format("barrier"), STALL.format("selected"), STALL.format("mio_throttle"),
          STALL.format("wait")]
UNITS = ["", "", "usecond", "Mbyte", "%", "register/thread", "", "", "", "", ""]
CT = "void sg_k_refresh_kernel<2u, 1u, false, true>(const char *, unsigned int, unsigned int, const int *)"
T = "void sg_k_refresh_kernel<0u, 0u, true>(const char *, unsigned int, unsigned int, const int *)"


def quoted(cells: list[str]) -> str:
    return ",".join(f'"{c}"' for c in cells)


def write(path: Path, rows: list[list[str]]) -> Path:
    lines = ["==PROF== Connected to process 1", quoted(HEADER), quoted(UNITS)]
    path.write_text("\n".join(lines + [quoted(r) for r in rows]) + "\n", encoding="utf-8")
    return path


def test_rows_name_instances_convert_units_and_rank_stalls(tmp_path: Path) -> None:
    raw = write(tmp_path / "raw.csv", [
        ["0", CT, "1,234.5", "512.25", "49.04", "168", "4.1", "2.4", "9.0", "1.5", "2.1"],
        ["1", T, "80", "", "", "64", "0.5", "", "", "", ""],
    ])
    launches = ncu_summary.read_raw("mixed-ct", raw)
    assert [ncu_summary.instance(x.kernel) for x in launches] == [
        "cast-transpose/wide/general/apart", "transpose/narrow/whole"]
    first, second = (ncu_summary.table_row(x) for x in launches)
    assert first[:3] == ["mixed-ct", "cast-transpose/wide/general/apart", "1234.5"]
    assert first[3] == "49.0" and first[9] == "168" and first[11] == "512.2"
    # "selected" is the issuing warp, not a stall
    assert first[-1] == "long_scoreboard 4.1 barrier 2.4 wait 2.1"
    assert second[2] == "80.0" and second[3] == "-" and second[11] == "-"
    assert second[-1] == "long_scoreboard 0.5"


def test_main_prints_one_table_row_per_launch(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    a = write(tmp_path / "a.csv", [["0", CT, "10"] + ["1"] * 8])
    b = write(tmp_path / "b.csv", [["0", T, "20"] + ["1"] * 8,
                                   ["1", T, "30"] + ["1"] * 8])
    assert ncu_summary.main([f"one={a}", f"two={b}"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2 + 3
    assert [ln.split(" | ")[0] for ln in lines[2:]] == ["| one", "| two", "| two"]


def test_nothing_profiled_is_an_error(tmp_path: Path) -> None:
    empty = tmp_path / "empty.csv"
    empty.write_text("==PROF== Disconnected from process 1\n", encoding="utf-8")
    assert ncu_summary.main([f"x={empty}"]) == 1
    assert ncu_summary.main(["no-equals-sign"]) == 2

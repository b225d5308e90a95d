"""One run of the sample: a fresh Trainer (the same seed, so the same
initial weights and batches in every run) driven by one mode for a number of
steps, and what it measured."""

from __future__ import annotations

import dataclasses
import gc
import statistics
from typing import List, Optional

import torch

import stepgraph.torch as sgt

from config import Config
from modes import MODES, WARMUP_STEPS, Mode
from trainer import PLUGIN_REFRESHES, Trainer


@dataclasses.dataclass
class RunResult:
    mode: str
    precision: str
    losses: torch.Tensor          # one per step, on the CPU
    masters: List[torch.Tensor]   # every parameter after the last step, on the CPU
    step_ms: float                # median of the timed steps (CUDA events)
    peak_mib: float               # the run's peak of torch.cuda.memory_allocated above its start
    capture_ms: Optional[float]
    graph_nodes: Optional[int]
    gpu_ops_per_eager_step: Optional[int]
    stale_report: Optional[str] = None

    def tokens_per_s(self, cfg: Config) -> float:
        return cfg.tokens / (self.step_ms * 1e-3)


def run(cfg: Config, text: bytes, mode: str, steps: int, precision: str = "fp8",
        refresh: Optional[str] = None, check_transposes: bool = False,
        count_ops: bool = False) -> RunResult:
    """`refresh` overrides the mode's FP8 refresh ("torch" for the baseline
    without the plugin); precision "bf16" has none."""
    if mode not in MODES:
        raise ValueError(f"mode {mode!r} is not one of {', '.join(MODES)}")
    kind = MODES[mode]
    refresh = refresh_of(precision, refresh, kind.refresh)
    needs_session = refresh in PLUGIN_REFRESHES or kind.plugin_driven
    _release()
    # Relative to the start: PyTorch keeps a cuBLAS(Lt) workspace for every
    # stream it has seen until the process ends, so earlier runs' streams
    # would otherwise count here.
    start = torch.cuda.memory_allocated()
    torch.cuda.reset_peak_memory_stats()
    session = sgt.Session(warmup_steps=WARMUP_STEPS, check_transposes=check_transposes) if needs_session else None
    try:
        # The plugin's driver and captures check by themselves; a host that
        # runs or captures its steps calls check_transposes at their start.
        host_checks = check_transposes and not kind.plugin_driven
        trainer = Trainer(cfg, text, steps, refresh, session, host_checks)
        driver = kind(trainer)
        try:
            ops = _count_ops(driver) if count_ops and mode == "eager" else None
            times = _timed_steps(driver, steps - (1 if ops is not None else 0))
            torch.cuda.synchronize()
            report = _stale_report(session) if check_transposes and session is not None else None
            return RunResult(mode, precision, trainer.losses.cpu(), [m.cpu() for m in trainer.masters()],
                             statistics.median(times[WARMUP_STEPS + 1:] or times),
                             (torch.cuda.max_memory_allocated() - start) / 2**20, driver.capture_ms,
                             driver.graph_nodes, ops, report)
        finally:
            driver.close()
    finally:
        if session is not None:
            torch.cuda.synchronize()
            session.close()


def refresh_of(precision: str, refresh: Optional[str], default: str) -> str:
    """The Trainer refresh of a run: none for BF16, else `refresh` or the
    mode's `default`."""
    return "none" if precision == "bf16" else (refresh or default)


def _timed_steps(driver: Mode, steps: int) -> List[float]:
    events = [torch.cuda.Event(enable_timing=True) for _ in range(steps + 1)]
    events[0].record()
    for i in range(steps):
        driver.step()
        events[i + 1].record()
    torch.cuda.synchronize()
    return [a.elapsed_time(b) for a, b in zip(events, events[1:])]


def _count_ops(driver: Mode) -> Optional[int]:
    """GPU operations (kernels, copies, fills) of one eager step, from the
    PyTorch profiler; the step is a real training step."""
    try:
        from torch.profiler import ProfilerActivity, profile
    except ImportError:
        return None
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        driver.step()
        torch.cuda.synchronize()
    return sum(1 for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA)


def _stale_report(session: sgt.Session) -> str:
    report = session.transpose_report()
    if report.first_stale_param is None:
        return f"no stale W^T in {report.checks} checks"
    return (f"first stale W^T: parameter {report.first_stale_param} (group {report.first_stale_group}) "
            f"at check {report.first_stale_check}; {report.stale_params} stale of the registered")


def _release() -> None:
    gc.collect()
    torch.cuda.synchronize()
    torch.cuda.empty_cache()


def same_bits(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Bit-identical, NaNs and signed zeros included."""
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    return torch.equal(a.contiguous().view(torch.uint8), b.contiguous().view(torch.uint8))


def all_same_bits(a: List[torch.Tensor], b: List[torch.Tensor]) -> bool:
    return len(a) == len(b) and all(same_bits(x, y) for x, y in zip(a, b))

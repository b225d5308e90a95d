"""What the binding's entries take and return, as plain dataclasses."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional, Tuple

from ._abi import DType, Fp8Format, Fp8Recipe, StepAction, StepOutcome, StepPhase


@dataclass
class Fp8Param:
    """One FP8 parameter for ``Session.register_fp8_params``
    (sg_fp8_param_desc). Pointers are device addresses (ints); the plugin
    keeps them until the session is destroyed, so the memory must stay alive
    and at the same address: a graph bakes addresses in. ``owner`` is any
    object that keeps that memory alive (tensors, for example); the session
    holds a reference to it until it closes. Sizes and leading dimensions are
    in elements; a leading dimension of None means "packed" (cols for W and
    the master, rows for Wt).

    The recipe fields need ABI 1.1 (setting one on a 1.0 plugin raises
    NotSupported; left at 0 they are the 1.0 behaviour, delayed scaling).
    `recipe` says where the cast modes' scale comes from: DELAYED reads
    `scale`; CURRENT computes it from max|M| of each refresh (master,
    scale_inv and amax required, scale 0); BLOCK computes one per
    FP8_BLOCK x FP8_BLOCK block of W into the FP32 grids `block_scale_inv`
    [ceil(rows/128), ceil(cols/128)] and `block_scale_inv_t` (its transpose),
    whose leading dimensions 0 mean dense (scale, scale_inv, amax 0; master
    optional: without one, transpose mode only). CURRENT and BLOCK refuse an
    owned range. `recipe_flags` takes Fp8RecipeFlag bits (POW2_SCALES)."""

    rows: int
    cols: int
    data: int
    transpose: int
    format: Fp8Format = Fp8Format.E4M3
    ld_data: Optional[int] = None
    ld_transpose: Optional[int] = None
    master: int = 0
    master_dtype: DType = DType.NONE
    ld_master: Optional[int] = None
    scale: int = 0
    scale_inv: int = 0
    amax: int = 0
    range_begin: int = 0
    range_end: int = 0  # 0: the whole parameter
    group: int = 0
    recipe: Fp8Recipe = Fp8Recipe.DELAYED
    recipe_flags: int = 0
    block_scale_inv: int = 0
    ld_block_scale_inv: int = 0  # 0: dense, ceil(cols/128)
    block_scale_inv_t: int = 0
    ld_block_scale_inv_t: int = 0  # 0: dense, ceil(rows/128)
    owner: Any = None


@dataclass
class StaticBuffer:
    """Device memory a graph reads at a fixed address
    (sg_static_buffer_desc); kept until the session closes, like Fp8Param."""

    data: int
    bytes: int
    owner: Any = None


@dataclass(frozen=True)
class RunEagerly:
    """Not an error (SG_RUN_EAGERLY): graphs are off for this key, because
    STEPGRAPH_DISABLE=1 was set when the session was created or the key is
    eager-only after a failed capture. The host runs the step itself,
    eagerly. `reason` is the plugin's explanation."""

    key: int
    reason: str


@dataclass(frozen=True)
class StepContext:
    """What the step driver tells the callback (sg_step_context)."""

    key: int
    step_index: int  # successful driver calls so far for this key
    phase: StepPhase
    stream: int  # the stream to launch on (cudaStream_t as an int)


@dataclass(frozen=True)
class StepResult:
    """What ``Session.step`` did. `capture_error` is set when the callback
    raised while being captured and the plugin, finding the capture
    invalidated, ran it again eagerly in the same call (outcome EAGER): the
    exception that explains the fallback (its frames' locals cleared)."""

    outcome: StepOutcome
    capture_error: Optional[BaseException] = None


@dataclass(frozen=True)
class Stats:
    """Session statistics (sg_stats): counters since the session was created.
    A field the plugin's ABI minor lacks is None.

    ABI 1.1: the conditional regions (guards opened eager or captured, eager
    guards whose flag said skip, loops opened, IF and WHILE nodes over the
    live graphs) and the stale-transpose detector's findings as of the last
    sync or transpose_report that read them (see TransposeReport; the
    first_stale_* fields are None when nothing was found)."""

    captures: int
    capture_failures: int
    exec_updates: int
    instantiations: int
    replays: int
    eager_runs: int
    invalidations: int
    evictions: int
    refreshes: int
    graphs: int
    graph_nodes: int
    graph_alloc_bytes: int
    fp8_params: int
    static_buffers: int
    capture_ms: float
    instantiate_ms: float
    guards: Optional[int] = None
    guards_skipped: Optional[int] = None
    loops: Optional[int] = None
    conditional_nodes: Optional[int] = None
    transpose_checks: Optional[int] = None
    stale_params: Optional[int] = None
    first_stale_check: Optional[int] = None
    first_stale_param: Optional[int] = None
    first_stale_group: Optional[int] = None


@dataclass(frozen=True)
class GraphInfo:
    """One key's graph (sg_graph_info). `conditional_nodes` (ABI 1.1; None
    from a 1.0 plugin) counts its IF and WHILE nodes (guards and loops);
    `nodes` counts their bodies' nodes once each."""

    nodes: int
    alloc_bytes: int  # bytes of its allocation nodes
    replays: int
    eager_only: bool  # after a failed capture, or with graphs disabled
    conditional_nodes: Optional[int] = None


@dataclass(frozen=True)
class TransposeReport:
    """The stale-transpose detector's findings so far (sg_transpose_report,
    ABI 1.1). With the detector off: enabled False, counts 0, no first
    finding. `first_stale_check` is the check (0-based; with one check a
    step, the step) that first found a parameter whose Wt differed from
    transpose(W), `first_stale_param` that parameter's index in registration
    order (the lowest stale at that check) and `first_stale_group` its group;
    all None when none was found. `mismatches` (when asked for) holds, per
    registered parameter, the bytes of its Wt that differed, summed over all
    checks."""

    enabled: bool
    stale_params: int
    checks: int
    first_stale_check: Optional[int] = None
    first_stale_param: Optional[int] = None
    first_stale_group: Optional[int] = None
    mismatches: Optional[Tuple[int, ...]] = None

    @property
    def stale(self) -> bool:
        """Whether some check found a stale transpose."""
        return self.first_stale_check is not None


@dataclass(frozen=True)
class RngState:
    """A checkpoint of the session's RNG (sg_rng_state)."""

    seed: int
    offset: int  # base offset, advanced by each end-of-step


@dataclass(frozen=True)
class RngDeviceState:
    """Device addresses of the RNG's seed and base offset (uint64 each),
    valid until the session closes (sg_rng_device_state)."""

    seed: int
    base_offset: int



@dataclass(frozen=True)
class Capture:
    """What ``Session.capture`` yields: the key and stream being captured, and
    `eager`, set when graphs are off for the key (the body then runs eagerly,
    which is what the host must do: nothing is captured)."""

    key: int
    stream: int
    eager: Optional[RunEagerly] = None


@dataclass(frozen=True)
class StepPlan:
    """step_plan's answer (sg_step_plan, ABI 1.1): what the step driver would
    do for the key in this call, for a host that captures and replays
    itself. `pre_capture`: call pre_capture before capture_begin."""

    action: StepAction
    pre_capture: bool
    step_index: int  # the key's steps counted before this call

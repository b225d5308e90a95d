"""``Session``: the Pythonic layer over the plugin's table.

A session is one device, its registered state and its graphs. Every entry
raises ``stepgraph.Error`` (a subclass per status) carrying the plugin's
detail message; SG_RUN_EAGERLY comes back as a ``RunEagerly`` value.

Lifetime: the plugin keeps the device pointers of registered parameters and
static buffers (and a captured refresh bakes in its no-op flag) until the
session is destroyed. The session therefore holds a reference to each
registered owner (``Fp8Param.owner``, ``StaticBuffer.owner``, the ``noop``
object) until ``close()``; the memory behind them must also stay at the
same address. ``close()`` is idempotent; the session is a context manager.

Streams are ``cudaStream_t`` handles given as an int, or any object with a
``cuda_stream`` (torch) or ``ptr`` (CuPy) attribute. The legacy default
stream (0) is refused where a stream is captured, checked or waited for.

ABI 1.1's conditional regions (``guard``, ``loop``) are in _regions.py and
the stale-transpose detector's entries in _detector.py, mixed in here.
"""

from __future__ import annotations

import contextlib
import ctypes
import dataclasses
import os
from typing import Any, Dict, Iterator, Optional, Sequence, Type, TypeVar, Union

from . import _abi
from ._abi import ALL_GROUPS, CaptureMode, LogLevel, RefreshMode, SessionFlag, Status
from ._api import Api, check_int
from ._callbacks import STEP_CALLBACK_RAISED, LogFunction, LogTrampoline, StepFunction, StepTrampoline
from ._detector import DetectorEntries, none_if_unset
from ._loader import PathLike, load
from ._regions import RegionEntries, StreamLike
from .errors import Error, InvalidArgument, InvalidState, NotFound, NotSupported, error_for
from .results import (
    Capture,
    Fp8Param,
    GraphInfo,
    RngDeviceState,
    RngState,
    RunEagerly,
    StaticBuffer,
    StepContext,
    StepPlan,
    StepResult,
    Stats,
)

D = TypeVar("D")
S = TypeVar("S", bound="Session")


def address_of(obj: Any) -> int:
    """A device address from an int, None (0), an object with data_ptr()
    (a torch tensor) or __cuda_array_interface__ (CuPy, Numba)."""
    if obj is None:
        return 0
    if isinstance(obj, int):
        return obj
    if callable(getattr(obj, "data_ptr", None)):
        return int(obj.data_ptr())
    interface = getattr(obj, "__cuda_array_interface__", None)
    if interface is not None:
        return int(interface["data"][0])
    raise InvalidArgument(
        Status.ERR_INVALID_ARGUMENT,
        f"{type(obj).__name__} is not a device address: pass an int, a tensor "
        "or an object with __cuda_array_interface__",
    )


def stream_handle(stream: StreamLike) -> int:
    """The cudaStream_t of `stream` as an int (None: the legacy stream, 0)."""
    if stream is None:
        return 0
    if isinstance(stream, int):
        return stream
    for attribute in ("cuda_stream", "ptr"):
        value = getattr(stream, attribute, None)
        if isinstance(value, int):
            return value
    raise InvalidArgument(
        Status.ERR_INVALID_ARGUMENT,
        f"{type(stream).__name__} is not a CUDA stream: pass a cudaStream_t as "
        "an int, or an object with a cuda_stream or ptr attribute",
    )


def _dataclass_from(cls: Type[D], values: Dict[str, Any]) -> D:
    names = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    return cls(**{k: v for k, v in values.items() if k in names})


def _pointer_value(pointer: Any) -> int:
    return ctypes.cast(pointer, ctypes.c_void_p).value or 0


# sg_fp8_param_desc's ABI 1.1 fields, which Fp8Param has under the same names.
_RECIPE_FIELDS = [f.name for f in _abi.Fp8ParamDesc._layout_ if f.since >= 1]
# sg_stats' fields whose all-ones value means "none" (None in Stats).
_STATS_UNSET = {
    "first_stale_check": _abi.NONE_U64,
    "first_stale_param": _abi.NONE_U32,
    "first_stale_group": _abi.NONE_U32,
}


class Session(RegionEntries, DetectorEntries):
    """One stepgraph session (sg_session). See the module docstring for the
    lifetime and stream rules.

    Keyword arguments are sg_session_config's fields (0 means the default):
    `validation_only` touches no device (registration, argument checks and
    state transitions work; what needs a GPU raises NoDevice);
    `check_transposes` (ABI 1.1) switches the stale-transpose detector on
    (see check_transposes and transpose_report); `log` is
    called with (level, message) for messages at or below `log_level`
    (None: the plugin writes them to stderr); `library` is a path to
    libstepgraph.so.1 or an already negotiated ``Api``.
    """

    def __init__(
        self,
        device: int = 0,
        *,
        validation_only: bool = False,
        check_transposes: bool = False,
        capture_mode: CaptureMode = CaptureMode.THREAD_LOCAL,
        warmup_steps: int = 0,
        param_capacity: int = 0,
        static_capacity: int = 0,
        log_level: LogLevel = LogLevel.OFF,
        log: Optional[LogFunction] = None,
        rng_seed: int = 0,
        graph_mem_budget: int = 0,
        library: Union[PathLike, Api, None] = None,
    ) -> None:
        self._handle: Optional[int] = None
        self.api = library if isinstance(library, Api) else load(library)
        self.device = device
        self.validation_only = validation_only
        self.capture_mode = capture_mode
        self._kept: Dict[int, Any] = {}
        self._log = LogTrampoline(log) if log is not None else None
        config = self.api.new(
            _abi.SessionConfig,
            "config",
            device=device,
            flags=self._session_flags(validation_only, check_transposes),
            capture_mode=capture_mode,
            warmup_steps=warmup_steps,
            param_capacity=param_capacity,
            static_capacity=static_capacity,
            log_level=log_level,
            rng_seed=rng_seed,
            graph_mem_budget=graph_mem_budget,
        )
        if self._log is not None:
            config.log_fn = self._log.c_function
        handle = _abi.SessionPtr()
        status = self.api.entry("session_create")(ctypes.byref(config), ctypes.byref(handle))
        if status != Status.OK:
            self._finish(status, self.api.last_error(None))
        self._handle = handle.value
        self._finish(Status.OK, "")

    # --- Lifecycle ---------------------------------------------------------

    def __enter__(self: S) -> S:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # interpreter shutdown: nothing useful to report
            pass

    @property
    def closed(self) -> bool:
        return self._handle is None

    @property
    def handle(self) -> Optional[int]:
        """The sg_session pointer as an int (None once closed)."""
        return self._handle

    @property
    def kept(self) -> tuple:
        """The objects this session keeps alive until it closes."""
        return tuple(self._kept.values())

    def close(self) -> None:
        """Destroys the session (graph execs, graphs, device tables, RNG
        state), then drops the references it kept. Idempotent. Work already
        enqueued that uses the session's tables must have completed or be
        ordered before (destroy synchronises only as cudaFree does)."""
        if getattr(self, "_handle", None) is None:
            return
        handle, self._handle = self._handle, None
        self.api.entry("session_destroy")(handle)
        self._session_closed()
        self._kept.clear()

    # --- Registration (not capture-safe; before the first capture) --------

    def register_fp8_params(self, params: Sequence[Fp8Param]) -> int:
        """Appends FP8 parameters; returns the index of params[0]. The plugin
        validates all of them first and on any error registers none (the
        detail names the element and field). Each owner is kept until close.
        Registration closes once the session's first capture has begun."""
        descs = (_abi.Fp8ParamDesc * len(params))(
            *[self._fp8_desc(p, f"params[{i}]") for i, p in enumerate(params)]
        )
        first = ctypes.c_uint32()
        self._call("register_fp8_params", descs, len(params), ctypes.byref(first))
        self._keep(p.owner for p in params)
        return first.value

    def register_static_buffers(self, buffers: Sequence[StaticBuffer]) -> int:
        """Appends static buffers (they must not overlap); returns the index
        of buffers[0], the index ``replay(static_sources=...)`` uses."""
        descs = (_abi.StaticBufferDesc * len(buffers))(
            *[
                self.api.new(_abi.StaticBufferDesc, f"buffers[{i}]", data=b.data, bytes=b.bytes)
                for i, b in enumerate(buffers)
            ]
        )
        first = ctypes.c_uint32()
        self._call("register_static_buffers", descs, len(buffers), ctypes.byref(first))
        self._keep(b.owner for b in buffers)
        return first.value

    # --- Pre-capture, capture ------------------------------------------------

    def pre_capture(self, stream: StreamLike = None) -> None:
        """Checks the registered pointers and `stream`, uploads the device
        table on it and waits for that stream only. Not capture-safe."""
        with self._around(stream) as s:
            self._call("pre_capture", s)

    def capture_begin(
        self, key: int, stream: StreamLike = None, mode: Optional[CaptureMode] = None
    ) -> Optional[RunEagerly]:
        """Begins capturing `key` on `stream` (mode: the session's by
        default). Requires pre_capture. Returns RunEagerly when graphs are off
        for the key: then run the step yourself, eagerly. Prefer capture()."""
        args = self._capture_args(key, stream_handle(stream), mode)
        status = self._call("capture_begin", ctypes.byref(args))
        return self._eager(key) if status == Status.RUN_EAGERLY else None

    def capture_end(self, key: int, stream: StreamLike = None) -> None:
        """Ends the capture and instantiates (or updates in place) the key's
        graph. CaptureFailed when the capture was invalidated: the key then
        runs eagerly until invalidate()."""
        args = self._capture_args(key, stream_handle(stream), None)
        self._call("capture_end", ctypes.byref(args))

    @contextlib.contextmanager
    def capture(
        self, key: int, stream: StreamLike = None, mode: Optional[CaptureMode] = None
    ) -> Iterator[Capture]:
        """Captures the body into `key`'s graph: capture_begin, the body,
        capture_end. Nothing of the body runs until the key is replayed
        (capture records). When graphs are off for the key the body runs
        eagerly and the yielded Capture's `eager` says why. When the body
        raises, the capture is ended and its partial graph dropped
        (invalidate) before the exception propagates."""
        with self._around(stream) as s:
            eager = self.capture_begin(key, s, mode)
            if eager is not None:
                yield Capture(key, s, eager)
                return
            try:
                with self._body_scope(key, s):
                    yield Capture(key, s)
            except BaseException:
                self._abandon_capture(key, s)
                self._settle_graph(key)
                raise
            try:
                self.capture_end(key, s)
            finally:
                self._settle_graph(key)

    def invalidate(self, key: int) -> None:
        """Drops the key's graph (and an eager-only mark): the next capture
        starts fresh. NotFound if the key has no graph. Not capture-safe."""
        try:
            self._call("invalidate", key)
        finally:
            if not self.closed:
                self._graph_dropped(key)

    # --- Refresh, replay, step ---------------------------------------------------

    def refresh(
        self,
        mode: RefreshMode = RefreshMode.TRANSPOSE,
        *,
        group: int = ALL_GROUPS,
        noop: Any = None,
        stream: StreamLike = None,
    ) -> None:
        """post_optimizer_step: refreshes every registered parameter (or one
        group) in one kernel launch on `stream`. Capture-safe: it may run
        inside a capture owned by the plugin or by the host (torch.cuda.graph);
        no allocation, no synchronisation. `noop` is a device int32 (address
        or tensor): nonzero makes the launch do nothing. A captured launch
        bakes its address in, so the session keeps `noop` until close."""
        noop_address = address_of(noop)
        args = self.api.new(
            _abi.RefreshArgs,
            "args",
            mode=mode,
            group=group,
            noop_flag=ctypes.cast(noop_address, ctypes.POINTER(ctypes.c_int32)),
        )
        self._call("post_optimizer_step", self._refresh_stream(stream), ctypes.byref(args))
        self._keep([noop])

    def replay(
        self,
        key: int,
        stream: StreamLike = None,
        static_sources: Optional[Sequence[Any]] = None,
        host_sources: bool = False,
    ) -> Optional[RunEagerly]:
        """Launches the key's graph: one launch, no synchronisation. Each of
        `static_sources` (an address, a tensor, or None for none) is first
        copied into static buffer i on the same stream, by one batched copy
        kernel, when it runs: keep each source unchanged until the replay's
        work has run. Sources are device memory of the session's device, or
        with `host_sources` (ABI 1.1) also page-locked host memory, each
        checked. Returns RunEagerly for an eager-only key (the sources are
        copied all the same, ABI 1.1). Not capture-safe."""
        with self._around(stream) as s:
            sources = self._sources(static_sources, _abi.ReplayFlag.HOST_SOURCES, host_sources)
            args = self.api.new(_abi.ReplayArgs, "args", key=key, stream=s, **sources)
            status = self._call("replay", ctypes.byref(args))
        return self._eager(key) if status == Status.RUN_EAGERLY else None

    def step(
        self,
        fn: StepFunction,
        key: int = 0,
        stream: StreamLike = None,
        static_sources: Optional[Sequence[Any]] = None,
        host_sources: bool = False,
    ) -> StepResult:
        """Runs one step of `fn(ctx: StepContext)` through the plugin's step
        driver: the first warmup_steps calls for a key eagerly, then one
        capture (launched once), then replays; after a capture failure `fn`
        runs eagerly. `fn` launches its work on ctx.stream. An exception in
        `fn` becomes a failing status for the plugin and is re-raised here
        with its traceback; if the plugin instead fell back to an eager run
        (the exception had invalidated the capture), the step succeeds with
        outcome EAGER and the exception in StepResult.capture_error.
        `static_sources` (ABI 1.1) are copied into the static buffers before
        the step in every phase, as replay's are."""
        trampoline = StepTrampoline(fn, self._callback_scope)
        with self._around(stream) as s:
            sources = {}
            if static_sources is not None or host_sources:
                sources = self._sources(static_sources, _abi.StepFlag.HOST_SOURCES, host_sources)
            args = self.api.new(_abi.StepArgs, "args", key=key, stream=s, **sources)
            args.fn = trampoline.c_function
            status = self._raw_call("step", ctypes.byref(args))
        if _abi.StepPhase.CAPTURE in trampoline.phases:
            self._settle_graph(key)
        if status == Status.OK:
            self._finish(status, "")
            outcome = _abi.StepOutcome(args.outcome_out)
            error = trampoline.fallback_error() if outcome == _abi.StepOutcome.EAGER else None
            return StepResult(outcome, error)
        if status == STEP_CALLBACK_RAISED and trampoline.errors:
            raise trampoline.errors[-1]
        cause = trampoline.errors[-1] if trampoline.errors else None
        raise self._error(status) from cause

    def step_plan(self, key: int = 0) -> StepPlan:
        """What the step driver would do for `key` in this call (ABI 1.1),
        for a host that captures and replays itself; counts one step of the
        key, as a driver step does. Host-only bookkeeping; not capture-safe."""
        self.api.entry("step_plan")  # NotSupported from a 1.0 plugin, naming the entry
        plan = self.api.new(_abi.StepPlan, "plan", key=key)
        self._call("step_plan", ctypes.byref(plan))
        return StepPlan(_abi.StepAction(plan.action_out), bool(plan.pre_capture_out), plan.step_index_out)

    # --- RNG --------------------------------------------------------------------------

    def rng_reserve(self, count: int) -> int:
        """Reserves `count` Philox counters for one kernel of the current
        step; returns its offset within the step (the same every step, so it
        may be baked into a graph). Host bookkeeping only; capture-safe."""
        offset = ctypes.c_uint64()
        self._call("rng_reserve", self._uint64("count", count), ctypes.byref(offset))
        return offset.value

    def rng_end_step(self, stream: StreamLike = None) -> None:
        """End of step: one tiny kernel on `stream` adds the step's reserved
        total to the device base offset. Capture-safe."""
        self._call("rng_end_step", self._refresh_stream(stream))

    def rng_device_state(self) -> RngDeviceState:
        """Device addresses of the seed and base offset."""
        out = self.api.new(_abi.RngDeviceState)
        self._call("rng_device_state", ctypes.byref(out))
        return RngDeviceState(_pointer_value(out.seed), _pointer_value(out.base_offset))

    def rng_get_state(self, stream: StreamLike = None) -> RngState:
        """Reads seed and base offset after `stream`'s work (synchronous).
        Not capture-safe."""
        out = self.api.new(_abi.RngState)
        with self._around(stream) as s:
            self._call("rng_get_state", s, ctypes.byref(out))
        return _dataclass_from(RngState, self.api.read(out))

    def rng_set_state(self, state: RngState, stream: StreamLike = None) -> None:
        """Writes seed and base offset after `stream`'s work (synchronous).
        Not capture-safe."""
        raw = self.api.new(_abi.RngState, "state", seed=state.seed, offset=state.offset)
        with self._around(stream) as s:
            self._call("rng_set_state", s, ctypes.byref(raw))

    # --- Statistics, diagnostics ------------------------------------------------------

    def stats(self) -> Stats:
        """The session's counters. Capture-safe."""
        out = self.api.new(_abi.Stats)
        self._call("get_stats", ctypes.byref(out))
        values = self.api.read(out)
        for name, unset in _STATS_UNSET.items():
            if name in values:
                values[name] = none_if_unset(values[name], unset)
        return _dataclass_from(Stats, values)

    def graph_info(self, key: int) -> GraphInfo:
        """One key's graph; NotFound if it has none. Capture-safe."""
        out = self.api.new(_abi.GraphInfo)
        self._call("graph_info", self._uint64("key", key), ctypes.byref(out))
        values = self.api.read(out)
        values["eager_only"] = bool(values["eager_only"])
        return _dataclass_from(GraphInfo, values)

    def dump_graph(self, key: int, path: PathLike) -> None:
        """Writes the key's graph as Graphviz DOT to `path` (FileError when it
        cannot be written, NotFound without a graph)."""
        self._call("dump_graph", self._uint64("key", key), os.fsencode(path))

    def sync(self, stream: StreamLike = None, timeout_ms: int = 0) -> None:
        """Waits (polling) until `stream`'s work completes or `timeout_ms`
        passes (Timeout; 0 polls once). Not capture-safe."""
        with self._around(stream) as s:
            self._call("sync", s, timeout_ms)

    def last_error(self) -> str:
        """The detail message of this session's last failed entry."""
        return self.api.last_error(self._handle)

    def status_string(self, status: int) -> str:
        """The plugin's English string for a status."""
        return self.api.status_string(status)

    # --- What a framework layer (stepgraph.torch) overrides ----------------------------

    @contextlib.contextmanager
    def _around(self, stream: StreamLike) -> Iterator[int]:
        """Around an entry that takes a stream the plugin captures, checks or
        waits for: yields its handle (the torch layer joins a side stream)."""
        yield stream_handle(stream)

    def _refresh_stream(self, stream: StreamLike) -> int:
        """The stream of a capture-safe launch (refresh, rng_end_step,
        check_transposes) or of a region entry (guard, loop)."""
        return stream_handle(stream)

    def _int32_address(self, value: Any, name: str) -> int:
        """The address of a region's device int32 (`name`: flag or
        trip_count; the torch layer checks its tensor)."""
        return address_of(value)

    def _body_scope(self, key: int, stream: int) -> "contextlib.AbstractContextManager[Any]":
        """Around a capture body (the torch layer routes allocations)."""
        return contextlib.nullcontext()

    def _callback_scope(self, ctx: StepContext) -> "contextlib.AbstractContextManager[Any]":
        """Around one run of a step callback."""
        if ctx.phase == _abi.StepPhase.CAPTURE:
            return self._body_scope(ctx.key, ctx.stream)
        return contextlib.nullcontext()

    def _graph_installed(self, key: int) -> None:
        """The key has a (new) graph."""

    def _graph_dropped(self, key: int) -> None:
        """The key has no graph any more."""

    def _session_closed(self) -> None:
        """The session was destroyed."""

    # --- Internals --------------------------------------------------------------------

    def _keep(self, owners: Any) -> None:
        for owner in owners:
            if owner is not None and not isinstance(owner, int):
                self._kept[id(owner)] = owner

    def _open_handle(self, entry: str) -> int:
        if self._handle is None:
            raise InvalidState(Status.ERR_INVALID_STATE, f"{entry}: the session is closed")
        return self._handle

    def _raw_call(self, entry: str, *args: Any) -> int:
        return int(self.api.entry(entry)(self._open_handle(entry), *args))

    def _call(self, entry: str, *args: Any) -> int:
        """Calls an entry; returns OK or RUN_EAGERLY, raises for the rest."""
        status = self._raw_call(entry, *args)
        ok = status in (Status.OK, Status.RUN_EAGERLY)
        self._finish(status, "" if ok else self.last_error())
        return status

    def _finish(self, status: int, detail: str) -> None:
        """Raises the entry's error, or an exception the log callback raised
        meanwhile (after a successful entry; as context of a failed one)."""
        logged = self._log.take() if self._log is not None else None
        if status not in (Status.OK, Status.RUN_EAGERLY):
            error = error_for(status, detail)
            error.__context__ = logged
            raise error
        if logged is not None:
            raise logged

    def _error(self, status: int) -> Error:
        if self._log is not None:
            self._log.take()  # the entry's own failure is the one to report
        return error_for(status, self.last_error())

    def _eager(self, key: int) -> RunEagerly:
        return RunEagerly(key, self.last_error())

    def _session_flags(self, validation_only: bool, check_transposes: bool) -> int:
        if check_transposes and self.api.minor < 1:
            raise NotSupported(
                Status.ERR_NOT_SUPPORTED,
                f"check_transposes needs ABI 1.1; the plugin ({self.api.path}) implements ABI 1.{self.api.minor}",
            )
        flags = SessionFlag.VALIDATION_ONLY if validation_only else SessionFlag(0)
        return int(flags | (SessionFlag.CHECK_TRANSPOSES if check_transposes else 0))

    @staticmethod
    def _uint64(name: str, value: int) -> int:
        check_int(name, ctypes.c_uint64, value)
        return value

    def _fp8_desc(self, p: Fp8Param, label: str) -> _abi.Fp8ParamDesc:
        return self.api.new(
            _abi.Fp8ParamDesc,
            label,
            format=p.format,
            master_dtype=p.master_dtype,
            rows=p.rows,
            cols=p.cols,
            data=p.data,
            ld_data=p.cols if p.ld_data is None else p.ld_data,
            transpose=p.transpose,
            ld_transpose=p.rows if p.ld_transpose is None else p.ld_transpose,
            master=p.master,
            ld_master=p.cols if p.ld_master is None else p.ld_master,
            scale=p.scale,
            scale_inv=p.scale_inv,
            amax=p.amax,
            range_begin=p.range_begin,
            range_end=p.range_end,
            group=p.group,
            # Set only when not 0: a 1.0 plugin has no such fields.
            **{name: getattr(p, name) for name in _RECIPE_FIELDS if getattr(p, name)},
        )

    def _sources(self, sources: Optional[Sequence[Any]], flag: int, host: bool) -> Dict[str, Any]:
        """static_sources, static_source_count and flags of replay's or
        step's args. The address array lives as long as the args struct
        (ctypes keeps it); host sources need ABI 1.1."""
        if host and self.api.minor < 1:
            raise NotSupported(
                Status.ERR_NOT_SUPPORTED,
                f"host_sources needs ABI 1.1; the plugin ({self.api.path}) implements ABI 1.{self.api.minor}",
            )
        addresses = [address_of(x) or None for x in sources or ()]
        array = (ctypes.c_void_p * len(addresses))(*addresses)
        return {
            "static_sources": ctypes.cast(array, ctypes.POINTER(ctypes.c_void_p)),
            "static_source_count": len(addresses),
            "flags": flag if host else 0,
        }

    def _capture_args(self, key: int, stream: int, mode: Optional[CaptureMode]) -> _abi.CaptureArgs:
        chosen = self.capture_mode if mode is None else mode
        return self.api.new(_abi.CaptureArgs, "args", key=key, stream=stream, capture_mode=chosen)

    def _abandon_capture(self, key: int, stream: int) -> None:
        """After the body raised: end the capture; drop a partial graph."""
        try:
            self.capture_end(key, stream)
            self.invalidate(key)
        except Error:
            pass  # the body's exception is the one to report

    def _settle_graph(self, key: int) -> None:
        """Tells the layer whether `key` has a graph after a capture."""
        if self.closed:
            return
        try:
            info = self.graph_info(key)
        except NotFound:
            self._graph_dropped(key)
            return
        (self._graph_dropped if info.eager_only else self._graph_installed)(key)

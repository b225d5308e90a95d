"""``stepgraph.torch.Session``: a session that speaks torch.

- Registration from tensors (``register_fp8``, ``register_static``), checked
  (see _tensors.py); the tensors are kept until close.
- Streams: any torch.cuda.Stream (or a raw handle). Capture-safe launches
  (``refresh``, ``rng_end_step``) default to the current stream, so they
  can sit inside ``torch.cuda.graph`` (a host-owned capture, its global mode
  included). Entries the plugin captures, checks or waits for (``step``,
  ``capture``, ``replay``, ``pre_capture``, ``sync``, the RNG checkpoint)
  default to the session's side stream ``session.stream``, joined to the
  current stream before and after: the legacy default stream cannot be
  captured, and warm-up runs on the stream the capture uses, as PyTorch
  recommends (lazily created handles and workspaces belong to a stream).
  A stream given explicitly is made current for the entry, with no joins:
  ordering it against other streams is then the caller's, as with
  torch.cuda.graph(stream=...).
- Conditional regions (ABI 1.1): ``guard`` and ``loop`` (and their
  begin/end entries) and ``check_transposes`` default to the current stream,
  which inside ``capture()`` and a step callback is the capture stream, as
  the plugin requires; a guard's flag and a loop's trip count are
  one-element int32 CUDA tensors, and ``loop`` yields the index as an int32
  tensor view (_tensors.index_view). ``transpose_report`` defaults to the
  side stream, joined as ``sync`` is.
- Plugin-owned captures of PyTorch work: during ``capture()`` and the step
  driver's capture phase the capture stream is current and PyTorch's
  caching allocator is routed to a private pool per key (_pools.py), so the
  step may allocate temporaries; the pool is released when the key loses
  its graph (invalidate, a failed capture) or the session closes.
- Randomness: PyTorch's CUDA generator is graph-safe only inside captures
  PyTorch begins (CUDAGraph.capture_begin puts registered generators in
  capture mode and its replay() advances them; neither step is reachable
  for a capture the plugin owns). A random op in a plugin-owned capture
  therefore raises UnsupportedRandomness: run it outside the captured step,
  capture with torch.cuda.graph instead, or use the session's RNG.
"""

from __future__ import annotations

import contextlib
from typing import Any, Dict, Generator, Iterator, Optional, Tuple, Union

import torch

from .. import ALL_GROUPS, InvalidArgument, NotSupported, RefreshMode, Status, StepPhase
from .. import Session as _BaseSession
from ..results import StepContext
from ..session import StreamLike, stream_handle
from ._pools import GraphPools
from ._tensors import device_int32, fp8_param, index_view, static_buffer

# PyTorch's message when a random op meets a capture it did not begin
# (CUDAGeneratorState::increase, PyTorch 2.11).
_GENERATOR_NOT_CAPTURING = "not in capture mode"


class UnsupportedRandomness(NotSupported):
    """A random operation on PyTorch's CUDA generator ran inside a capture
    owned by stepgraph; see the module docstring."""


class Session(_BaseSession):
    """A stepgraph session for PyTorch. `device` is an index, a
    torch.device or None (the current CUDA device). Other keyword arguments
    are stepgraph.Session's."""

    def __init__(self, device: Union[int, torch.device, None] = None, **kwargs: Any) -> None:
        index = _device_index(device, kwargs.get("validation_only", False))
        self._side: Optional[torch.cuda.Stream] = None
        self._pools = GraphPools(index)
        self._external: Dict[int, torch.cuda.Stream] = {}
        super().__init__(index, **kwargs)

    @property
    def stream(self) -> torch.cuda.Stream:
        """The session's side stream: the default for captures and replays."""
        if self._side is None:
            self._side = torch.cuda.Stream(device=self.device)
        return self._side

    def graph_pool(self, key: int) -> Optional[Tuple[int, int]]:
        """The private allocator pool that holds the memory PyTorch allocated
        while `key` was captured by stepgraph (None when the key has none);
        torch.cuda.memory_snapshot() reports it as segment_pool_id."""
        return self._pools.pool(key) if key in self._pools else None

    # --- Registration from tensors ------------------------------------------

    def register_fp8(self, weight: torch.Tensor, transpose: torch.Tensor, **options: Any) -> int:
        """Registers one FP8 parameter from tensors; `options` are
        fp8_param's (master, scale, scale_inv, amax, group, cast_range).
        Returns its index. For many, build them with stepgraph.torch.fp8_param
        and pass the list to register_fp8_params: one validation, one upload."""
        return self.register_fp8_params([fp8_param(weight, transpose, device=self.device, **options)])

    def register_static(self, *tensors: torch.Tensor) -> int:
        """Registers contiguous tensors as static buffers; returns the index
        of the first (replay's static_sources index)."""
        return self.register_static_buffers(
            [static_buffer(t, f"tensors[{i}]", self.device) for i, t in enumerate(tensors)]
        )

    def refresh(
        self,
        mode: RefreshMode = RefreshMode.TRANSPOSE,
        *,
        group: int = ALL_GROUPS,
        noop: Optional[torch.Tensor] = None,
        stream: StreamLike = None,
    ) -> None:
        """The FP8 refresh on `stream` (default: the current stream, which
        inside torch.cuda.graph is its capture stream). `noop` is a one-element
        int32 CUDA tensor: nonzero makes the launch do nothing."""
        if noop is not None:
            device_int32(noop, "noop", self.device)
        super().refresh(mode, group=group, noop=noop, stream=stream)

    # --- Conditional regions (the rest is stepgraph.Session's) -----------------

    def loop(  # type: ignore[override]  # yields tensors, where the base yields addresses
        self, trip_count: torch.Tensor, stream: StreamLike = None
    ) -> Generator[torch.Tensor, None, None]:
        """As stepgraph.Session.loop (the stream defaults to the current
        one: inside capture() and a step callback, the capture stream),
        with `trip_count` a one-element int32 CUDA tensor; yields each
        iteration's index as a one-element int32 tensor viewing the
        plugin's uint32, for the body's PyTorch work to read on the device
        (x[index], acc.add_(index)). It holds 0, 1, ... while the body runs
        (also at every replay) and the trip count after the loop."""
        with contextlib.closing(super().loop(trip_count, stream)) as iterations:
            for address in iterations:
                yield index_view(address, self.device)

    # --- Streams, capture bodies, pools (the base class's hooks) ---------------

    @contextlib.contextmanager
    def _around(self, stream: StreamLike) -> Iterator[int]:
        if stream is not None:  # the caller's stream: current, no joins
            handle = self._remember(stream)
            with torch.cuda.stream(self._torch_stream(handle)):
                yield handle
            return
        side = self.stream
        current = torch.cuda.current_stream(self.device)
        side.wait_stream(current)
        try:
            with torch.cuda.stream(side):
                yield side.cuda_stream
        finally:
            current.wait_stream(side)

    def _refresh_stream(self, stream: StreamLike) -> int:
        if stream is None:
            return torch.cuda.current_stream(self.device).cuda_stream
        return stream_handle(stream)

    def _int32_address(self, value: Any, name: str) -> int:
        if value is None:
            return 0  # the plugin refuses it, naming the argument
        return device_int32(value, name, self.device)

    @contextlib.contextmanager
    def _body_scope(self, key: int, stream: int) -> Iterator[None]:
        _require_native_allocator()
        with torch.cuda.stream(self._torch_stream(stream)), self._pools.routing(key):
            try:
                yield
            except RuntimeError as exc:
                if _GENERATOR_NOT_CAPTURING not in str(exc):
                    raise
                raise UnsupportedRandomness(Status.ERR_NOT_SUPPORTED, _randomness_message(key)) from exc

    def _callback_scope(self, ctx: StepContext) -> "contextlib.AbstractContextManager[Any]":
        if ctx.phase == StepPhase.CAPTURE:
            return self._body_scope(ctx.key, ctx.stream)
        return torch.cuda.stream(self._torch_stream(ctx.stream))

    def _graph_installed(self, key: int) -> None:
        self._pools.installed(key)

    def _graph_dropped(self, key: int) -> None:
        self._pools.dropped(key)

    def _session_closed(self) -> None:
        self._pools.close()

    def _remember(self, stream: StreamLike) -> int:
        handle = stream_handle(stream)
        if isinstance(stream, torch.cuda.Stream):
            self._external[handle] = stream
        return handle

    def _torch_stream(self, handle: int) -> torch.cuda.Stream:
        if self._side is not None and handle == self._side.cuda_stream:
            return self._side
        if handle not in self._external:
            self._external[handle] = torch.cuda.ExternalStream(handle, device=self.device)
        return self._external[handle]


def _device_index(device: Union[int, torch.device, None], validation_only: bool) -> int:
    """The CUDA ordinal: `device`'s, or the current device's when it names
    none (0 for a validation-only session, which touches no device)."""
    if isinstance(device, torch.device):
        if device.type != "cuda":
            raise InvalidArgument(Status.ERR_INVALID_ARGUMENT, f"device is {device}; a session needs a CUDA device")
        device = device.index
    if device is None:
        return 0 if validation_only else torch.cuda.current_device()
    return device


def _require_native_allocator() -> None:
    backend = torch.cuda.get_allocator_backend()
    if backend != "native":
        raise NotSupported(
            Status.ERR_NOT_SUPPORTED,
            f"a capture owned by stepgraph routes PyTorch's allocations to a private "
            f"pool of the native caching allocator; this process uses the {backend} "
            "backend (PYTORCH_ALLOC_CONF / PYTORCH_CUDA_ALLOC_CONF)",
        )


def _randomness_message(key: int) -> str:
    return (
        f"capture of key {key}: a random operation on PyTorch's CUDA generator "
        "(dropout, rand, randn, ...) ran inside a capture owned by stepgraph. "
        "PyTorch makes its generator graph-safe only in captures it begins "
        "(torch.cuda.graph puts registered generators in capture mode and "
        "advances them at every replay), which a stepgraph capture cannot do, "
        "so its replays could not match eager steps. Run random operations "
        "outside the captured step, capture the step with torch.cuda.graph "
        "(refresh and rng_end_step work inside it), or draw from the "
        "session's RNG (rng_reserve, rng_device_state) in your own kernels"
    )

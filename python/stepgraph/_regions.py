"""Conditional regions (ABI 1.1): guards and loops, a part of ``Session``.

A guard or a loop brackets a region of the host's step. Captured (inside
``Session.capture`` or the step driver's capture), the region becomes the
body of an IF or WHILE node decided on the device at every replay from a
device int32 the host's own kernels compute. Eagerly, the plugin waits for
the stream, reads that int32 and says what to do. So one code path serves
both::

    with session.guard(all_finite) as run:
        if run:
            optimizer_step()

    for index in session.loop(n_microbatches):
        microbatch(index)  # its kernels read the uint32 at `index`

The rules are the header's: while the session captures, the stream is the
capture stream; otherwise it must not be capturing at all (a capture the host
began itself, torch.cuda.graph, is refused: InvalidState). Regions nest up
to 8 deep and close in order, on the stream that opened them. Validation-only
sessions check the arguments and raise NoDevice from the opening entries.
"""

from __future__ import annotations

import contextlib
import ctypes
from typing import TYPE_CHECKING, Any, Callable, Generator, Iterator, Tuple

from .errors import Error

StreamLike = Any  # int (cudaStream_t), None, or an object with cuda_stream / ptr


class RegionEntries:
    """guard_begin / guard_end / loop_begin / loop_next and their Pythonic
    forms ``guard`` and ``loop``; mixed into Session."""

    if TYPE_CHECKING:

        def _call(self, entry: str, *args: Any) -> int: ...
        def _keep(self, owners: Any) -> None: ...
        def _refresh_stream(self, stream: StreamLike) -> int: ...
        def _int32_address(self, value: Any, name: str) -> int: ...

    def guard_begin(self, flag: Any, stream: StreamLike = None) -> bool:
        """Opens a guard on `stream`; returns whether to enqueue the body now.
        `flag` is a device int32 (an address or a tensor): the body runs when
        it is nonzero at that point of the stream's work. Eagerly this waits
        for the stream and reads it; while capturing it always answers True
        (the body is recorded and decided at every replay). Call guard_end
        either way. The graph keeps `flag`'s address, so the session keeps
        `flag` until it closes. Prefer ``guard``."""
        address = self._int32_address(flag, "flag")
        run = ctypes.c_uint32()
        pointer = ctypes.cast(address, ctypes.POINTER(ctypes.c_int32))
        self._call("guard_begin", self._refresh_stream(stream), pointer, ctypes.byref(run))
        self._keep([flag])
        return bool(run.value)

    def guard_end(self, stream: StreamLike = None) -> None:
        """Closes the innermost region, which must be a guard opened on
        `stream` (InvalidState otherwise)."""
        self._call("guard_end", self._refresh_stream(stream))

    @contextlib.contextmanager
    def guard(self, flag: Any, stream: StreamLike = None) -> Iterator[bool]:
        """A guard around the block: yields whether to run the body (always
        True while capturing), and calls guard_end when the block ends, also
        when it raises (then a failing guard_end is not reported over the
        block's exception). A with-block cannot skip itself: test the value.
        """
        handle = self._refresh_stream(stream)
        run = self.guard_begin(flag, handle)
        try:
            yield run
        except BaseException:
            _quietly(lambda: self.guard_end(handle))
            raise
        self.guard_end(handle)

    def loop_begin(self, trip_count: Any, stream: StreamLike = None) -> Tuple[int, bool]:
        """Opens a loop on `stream`; returns (index, again). `trip_count` is a
        device int32 (kept by the session as guard_begin's flag): the body
        runs max(0, *trip_count) times. `index` is the device address of a
        uint32 the plugin owns (valid until the session closes; a captured
        loop gets its own) holding the iteration number while the body runs
        and the trip count after the loop. again True: enqueue the body, then
        call loop_next; False (eagerly, a trip count <= 0): the loop is over,
        do not call loop_next. Eagerly this waits for the stream and reads
        the trip count; while capturing it always answers True (one
        iteration is recorded). Prefer ``loop``."""
        address = self._int32_address(trip_count, "trip_count")
        index = ctypes.POINTER(ctypes.c_uint32)()
        again = ctypes.c_uint32()
        pointer = ctypes.cast(address, ctypes.POINTER(ctypes.c_int32))
        stream_handle = self._refresh_stream(stream)
        self._call("loop_begin", stream_handle, pointer, ctypes.byref(index), ctypes.byref(again))
        self._keep([trip_count])
        return ctypes.cast(index, ctypes.c_void_p).value or 0, bool(again.value)

    def loop_next(self, stream: StreamLike = None) -> bool:
        """Ends one iteration of the innermost region, which must be a loop
        opened on `stream`; returns whether to enqueue the body again (then
        call loop_next again) or the loop is closed (False). Eagerly True
        until the trip count is reached; while capturing always False."""
        again = ctypes.c_uint32()
        self._call("loop_next", self._refresh_stream(stream), ctypes.byref(again))
        return bool(again.value)

    def loop(self, trip_count: Any, stream: StreamLike = None) -> Generator[int, None, None]:
        """Iterates a loop region: yields the index address (see loop_begin)
        once per iteration eagerly, once while capturing (the iteration
        recorded for the WHILE node), never for an eager trip count <= 0.
        Leaving early (break, an exception in the body) closes the region
        when the iterator is closed, which a for statement does at once in
        CPython (elsewhere use contextlib.closing): loop_next until it
        answers False, its errors not reported over the body's exception."""
        handle = self._refresh_stream(stream)
        index, again = self.loop_begin(trip_count, handle)
        while again:
            try:
                yield index
            except BaseException:  # GeneratorExit included: the loop was left
                _quietly(lambda: self._close_loop(handle))
                raise
            again = self.loop_next(handle)

    def _close_loop(self, stream: int) -> None:
        while self.loop_next(stream):
            pass


def _quietly(close: Callable[[], None]) -> None:
    """Closes a region on the way out of an exception, which stays the one
    reported."""
    try:
        close()
    except Error:
        pass

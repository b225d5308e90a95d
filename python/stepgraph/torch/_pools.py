"""One private PyTorch allocator pool per graph key, for plugin-owned
captures of PyTorch work.

A graph replays at the addresses it captured. A tensor that a captured step
allocates from PyTorch's caching allocator and frees again would, without
this, go back to the general pool, where eager code could take the block
while replays still write it. torch.cuda.graph avoids that by routing the
capture stream's allocations to a private pool for the graph's life; this
module does the same for captures the plugin owns.

PyTorch internals used (checked against PyTorch 2.11, tested by
tests/gpu/test_torch_internals.py):
  torch.cuda.graph_pool_handle()                    a new pool id
  torch._C._cuda_beginAllocateCurrentStreamToPool(device, pool)
      route allocations on the current stream to `pool` (creates it with
      one use, or adds a use to an existing one)
  torch._C._cuda_endAllocateToPool(device, pool)    stop routing
  torch._C._cuda_releasePool(device, pool)          drop one use; at zero
      the pool's cached blocks are freed by torch.cuda.empty_cache() once
      no tensor allocated in it is alive
These are what CUDAGraph.capture_begin / capture_end / reset call. A key
holds exactly one use of its pool while it has a graph (a re-capture reuses
the pool, as torch.cuda.graph(pool=...) shares one); the use is released
when the key loses its graph (failed capture, invalidate) or the session
closes.
"""

from __future__ import annotations

import contextlib
from typing import Dict, Iterator, Tuple

import torch

PoolId = Tuple[int, int]


class GraphPools:
    """The private pools of one session's keys on one device."""

    def __init__(self, device: int) -> None:
        self.device = device
        self._pools: Dict[int, PoolId] = {}
        self._uses: Dict[int, int] = {}

    def pool(self, key: int) -> PoolId:
        """The key's pool id (KeyError when the key has none)."""
        return self._pools[key]

    def __contains__(self, key: int) -> bool:
        return key in self._pools

    @contextlib.contextmanager
    def routing(self, key: int) -> Iterator[PoolId]:
        """Routes the current stream's allocations to the key's pool for the
        duration (call with the capture stream current, capture begun)."""
        if key not in self._pools:
            first, second = torch.cuda.graph_pool_handle()
            self._pools[key] = (int(first), int(second))
        pool = self._pools[key]
        torch._C._cuda_beginAllocateCurrentStreamToPool(self.device, pool)
        self._uses[key] = self._uses.get(key, 0) + 1
        try:
            yield pool
        finally:
            torch._C._cuda_endAllocateToPool(self.device, pool)

    def installed(self, key: int) -> None:
        """The key has a graph now: keep one use of its pool."""
        while self._uses.get(key, 0) > 1:
            self._release(key)

    def dropped(self, key: int) -> None:
        """The key has no graph: release its pool."""
        while self._uses.get(key, 0) > 0:
            self._release(key)
        self._pools.pop(key, None)
        self._uses.pop(key, None)

    def close(self) -> None:
        for key in list(self._pools):
            self.dropped(key)

    def _release(self, key: int) -> None:
        torch._C._cuda_releasePool(self.device, self._pools[key])
        self._uses[key] -= 1

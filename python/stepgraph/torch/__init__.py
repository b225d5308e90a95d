"""stepgraph for PyTorch.

``Session`` registers FP8 weights, masters and scales from tensors, takes
torch.cuda.Stream objects, works inside ``torch.cuda.graph`` (host-owned
capture: ``refresh`` and ``rng_end_step`` on the current stream), and can
itself capture an arbitrary PyTorch step (``capture``, ``step``) by routing
PyTorch's caching allocator to a private pool per key, as torch.cuda.graph
does. The PyTorch internals this relies on are listed in _pools.py; random
operations inside a capture stepgraph owns are refused
(UnsupportedRandomness), see _session.py.
"""

from __future__ import annotations

from ._pools import GraphPools
from ._session import Session, UnsupportedRandomness
from ._tensors import FP8_FORMATS, MASTER_DTYPES, fp8_param, static_buffer

__all__ = [
    "FP8_FORMATS",
    "MASTER_DTYPES",
    "GraphPools",
    "Session",
    "UnsupportedRandomness",
    "fp8_param",
    "static_buffer",
]

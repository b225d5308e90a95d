"""The PyTorch internals stepgraph.torch relies on (stepgraph/torch/_pools.py
and _session.py), checked against the installed PyTorch: they exist, and
they behave as the binding assumes."""

from __future__ import annotations

import pytest

from torch_support import require_torch

torch = require_torch()

import stepgraph  # noqa: E402
import stepgraph.torch as sgt  # noqa: E402

INTERNALS = [
    "_cuda_beginAllocateCurrentStreamToPool",
    "_cuda_endAllocateToPool",
    "_cuda_releasePool",
    "_construct_storage_from_data_pointer",
]


@pytest.mark.parametrize("name", INTERNALS)
def test_allocator_entry_points_exist(name: str) -> None:
    assert callable(getattr(torch._C, name, None)), f"torch._C.{name} is gone from PyTorch {torch.__version__}"


def test_pool_handles_are_fresh_pairs() -> None:
    first, second = torch.cuda.graph_pool_handle(), torch.cuda.graph_pool_handle()
    assert len(first) == 2 and tuple(first) != tuple(second)


def test_the_native_allocator_is_in_use() -> None:
    assert torch.cuda.get_allocator_backend() == "native"


def _segment_pool(address: int) -> tuple:
    for segment in torch.cuda.memory_snapshot():
        if segment["address"] <= address < segment["address"] + segment["total_size"]:
            return tuple(segment["segment_pool_id"])
    raise AssertionError(f"no segment holds {address:#x}")


def test_capture_allocations_go_to_the_key_pool_and_eager_ones_do_not() -> None:
    with sgt.Session() as session:
        session.pre_capture()
        with session.capture(5):
            output = torch.empty(1 << 20, device="cuda")  # lives on after the capture
            output.fill_(2.0)
        with session.capture(6):
            other = torch.empty(1 << 20, device="cuda")
            other.fill_(3.0)
        eager = torch.empty(1 << 20, device="cuda")
        pools = session.graph_pool(5), session.graph_pool(6)
        assert None not in pools and pools[0] != pools[1]
        assert _segment_pool(output.data_ptr()) == pools[0]
        assert _segment_pool(other.data_ptr()) == pools[1]
        assert _segment_pool(eager.data_ptr()) not in pools
        assert session.replay(5) is None and session.replay(6) is None
        torch.cuda.synchronize()
        assert bool((output == 2.0).all()) and bool((other == 3.0).all())


def test_a_recapture_keeps_one_use_of_the_pool() -> None:
    """Re-capturing a key reuses its pool; invalidate then frees it."""
    x = torch.randn(4 * (1 << 20), device="cuda")
    out = torch.empty_like(x)
    with sgt.Session() as session:
        session.pre_capture()
        pools = set()
        for _ in range(3):
            with session.capture(1):
                out.copy_(x * 2)
            pools.add(session.graph_pool(1))
        assert len(pools) == 1 and None not in pools
        (pool,) = pools
        assert session.stats().captures == 3
        session.invalidate(1)
        torch.cuda.synchronize()
        torch.cuda.empty_cache()
        assert all(tuple(s["segment_pool_id"]) != pool for s in torch.cuda.memory_snapshot())


def test_the_generator_refuses_a_capture_it_did_not_begin() -> None:
    """What UnsupportedRandomness depends on: PyTorch raises, before any
    launch, with the message the binding recognises."""
    with sgt.Session() as session:
        session.pre_capture()
        with pytest.raises(sgt.UnsupportedRandomness) as info:
            with session.capture(9):
                torch.rand(16, device="cuda")
        assert "Attempt to increase offset for a CUDA generator not in capture mode" in str(info.value.__cause__)
        with pytest.raises(stepgraph.NotFound):
            session.graph_info(9)


def test_an_index_view_is_the_memory_itself() -> None:
    """stepgraph.torch's loop index view (torch._C._construct_storage_from_data_pointer):
    it reads and writes the word in place, with no copy."""
    from stepgraph.torch._tensors import index_view

    words = torch.arange(4, dtype=torch.int32, device="cuda")
    view = index_view(words.data_ptr() + 4, words.device.index)
    assert view.shape == (1,) and view.dtype == torch.int32 and view.data_ptr() == words.data_ptr() + 4
    assert int(view.item()) == 1
    words[1] = 9
    view.add_(1)
    assert words.tolist() == [0, 10, 2, 3]


def test_an_index_view_can_be_made_while_capturing() -> None:
    """Made inside torch.cuda.graph (its global capture mode refuses unsafe
    CUDA calls): no allocation, no CUDA call."""
    from stepgraph.torch._tensors import index_view

    word = torch.full((1,), 5, dtype=torch.int32, device="cuda")
    out = torch.zeros(1, dtype=torch.int32, device="cuda")
    out.copy_(word)  # warm-up of the captured kernel
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out.copy_(index_view(word.data_ptr(), word.device.index))
    word.fill_(7)
    graph.replay()
    torch.cuda.synchronize()
    assert int(out.item()) == 7

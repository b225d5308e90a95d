"""How a run hands its steps to the GPU. Each mode owns one Trainer's steps:

  eager        every step's kernels launched by PyTorch, on the current stream
  torch-graph  the whole step captured once by torch.cuda.graph, the
               stepgraph refresh inside it (a capture the host owns), then
               replayed; warm-up on a side stream first, as PyTorch asks
  stepgraph    the plugin owns capture through the binding's step driver:
               warm-up steps, one capture into a private PyTorch pool, then
               replays (the driver falls back to eager steps if a capture
               fails)
  stale        as stepgraph, with a refresh that casts W but never writes
               W^T: the seed's failure, which the losses must show

`step()` runs one training step; `capture_ms` is the wall time of the
capture and instantiation (None until there is one), `graph_nodes` the
captured graph's node count where the mode can tell."""

from __future__ import annotations

import time
from typing import Dict, Optional, Type

import torch

from stepgraph import StepContext, StepPhase
from trainer import Trainer

WARMUP_STEPS = 3  # eager steps before a capture: AdamW's state, cuBLAS handles, autograd's buffers


class Mode:
    name = ""
    refresh = "stepgraph"  # the Trainer refresh the mode uses with FP8 weights
    plugin_driven = False  # the plugin's step driver runs (and captures) the steps

    def __init__(self, trainer: Trainer) -> None:
        self.trainer = trainer
        self.capture_ms: Optional[float] = None
        self.graph_nodes: Optional[int] = None

    def step(self) -> None:
        raise NotImplementedError

    def close(self) -> None:
        """Releases what the mode captured."""


class Eager(Mode):
    name = "eager"

    def step(self) -> None:
        self.trainer.step()


class TorchGraph(Mode):
    name = "torch-graph"

    def __init__(self, trainer: Trainer) -> None:
        super().__init__(trainer)
        self.graph: Optional[torch.cuda.CUDAGraph] = None
        self.side = torch.cuda.Stream()
        self.steps = 0

    def step(self) -> None:
        if self.steps < WARMUP_STEPS:
            self.side.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(self.side):
                self.trainer.step()
            torch.cuda.current_stream().wait_stream(self.side)
        else:
            if self.graph is None:
                self._capture()
            assert self.graph is not None
            self.graph.replay()
        self.steps += 1

    def _capture(self) -> None:
        torch.cuda.synchronize()
        start = time.perf_counter()
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            self.trainer.step()
        torch.cuda.synchronize()
        self.capture_ms = (time.perf_counter() - start) * 1e3
        self.graph = graph

    def close(self) -> None:
        if self.graph is not None:
            self.graph.reset()
            self.graph = None


class Stepgraph(Mode):
    name = "stepgraph"
    plugin_driven = True
    KEY = 0

    def step(self) -> None:
        session = self.trainer.session
        assert session is not None
        phases = []

        def train_step(ctx: StepContext) -> None:
            phases.append(ctx.phase)
            self.trainer.step()

        timing = self.capture_ms is None  # until the capture: time each call, synchronised
        if timing:
            torch.cuda.synchronize()
        start = time.perf_counter()
        session.step(train_step, key=self.KEY)
        if timing and StepPhase.CAPTURE in phases:
            torch.cuda.synchronize()
            self.capture_ms = (time.perf_counter() - start) * 1e3
            self.graph_nodes = session.graph_info(self.KEY).nodes


class Stale(Stepgraph):
    name = "stale"
    refresh = "stale"


MODES: Dict[str, Type[Mode]] = {m.name: m for m in (Eager, TorchGraph, Stepgraph, Stale)}

#!/usr/bin/env python3
"""PyTorch's version of fp8_trainer's step, timed eagerly and as a
torch.cuda.graph on the same GPU, for bench/trainer's comparison table.

The same model and step as samples/fp8_trainer: L bias-free linear layers
(hidden x hidden), exact GELU and dropout between them, MSE against a fixed
random rank-4 teacher t = tanh(x A1^T) A2^T on inputs drawn on the device
each step, AdamW (lr 1e-3, weight decay 0.01) on FP32 parameters. Precision:
BF16 GEMMs through autocast over FP32 masters (not torch._scaled_mm FP8),
which the table says.

  torch_mlp.py --layers 16 --hidden 256 --batch 128 --steps 500 \
      [--csv out.csv] [--stepgraph-csv bench_trainer.csv]
"""
import argparse
import csv
import os
import statistics

import torch
import torch.nn.functional as F

PRECISION = "BF16 autocast, FP32 masters"
TEACHER_RANK = 4
DROPOUT = 0.02


def build(args, device):
    torch.manual_seed(args.seed)
    layers = []
    for i in range(args.layers):
        layers.append(torch.nn.Linear(args.hidden, args.hidden, bias=False))
        if i + 1 < args.layers:
            layers += [torch.nn.GELU(), torch.nn.Dropout(DROPOUT)]
    model = torch.nn.Sequential(*layers).to(device)
    a1 = torch.randn(TEACHER_RANK, args.hidden, device=device) / args.hidden**0.5
    a2 = torch.randn(args.hidden, TEACHER_RANK, device=device) / TEACHER_RANK**0.5
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01,
                            capturable=True, foreach=True)
    return model, a1, a2, opt


def make_step(args, model, a1, a2, opt, device):
    def step():
        x = torch.randn(args.batch, args.hidden, device=device)
        with torch.no_grad():
            target = torch.tanh(x @ a1.T) @ a2.T
        with torch.autocast("cuda", dtype=torch.bfloat16, cache_enabled=False):
            y = model(x)
        loss = F.mse_loss(y.float(), target)
        opt.zero_grad(set_to_none=False)  # a graph keeps the .grad buffers
        loss.backward()
        opt.step()
        return loss
    return step


def time_steps(run, steps):
    """Median ms of `steps` calls of run(), CUDA events between them."""
    events = [torch.cuda.Event(enable_timing=True) for _ in range(steps + 1)]
    for i in range(steps):
        events[i].record()
        run()
    events[steps].record()
    torch.cuda.synchronize()
    return statistics.median(events[i].elapsed_time(events[i + 1])
                             for i in range(steps))


def bytes_in_use():
    free, total = torch.cuda.mem_get_info()
    return total - free


def eager_run(args, device):
    model, a1, a2, opt = build(args, device)
    step = make_step(args, model, a1, a2, opt, device)
    for _ in range(args.warmup):
        step()
    ms = time_steps(step, args.steps - args.warmup)
    return ms, bytes_in_use()


def graph_run(args, device):
    model, a1, a2, opt = build(args, device)
    step = make_step(args, model, a1, a2, opt, device)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # warm-up off the default stream (docs)
        for _ in range(args.warmup):
            step()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        step()
    ms = time_steps(graph.replay, args.steps - args.warmup)
    return ms, bytes_in_use(), graph


def stepgraph_row(path, args):
    """fp8_trainer --bench's CSV row for this configuration, if any."""
    if not path or not os.path.exists(path):
        return None
    with open(path) as f:
        for row in csv.DictReader(f):
            if (int(row["layers"]), int(row["hidden"]), int(row["batch"])) == (
                    args.layers, args.hidden, args.batch):
                return row
    return None


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--layers", type=int, default=16)
    p.add_argument("--hidden", type=int, default=256)
    p.add_argument("--batch", type=int, default=128)
    p.add_argument("--steps", type=int, default=500)
    p.add_argument("--warmup", type=int, default=10)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--csv", help="append a result row to this CSV file")
    p.add_argument("--stepgraph-csv", help="fp8_trainer --bench rows to show")
    args = p.parse_args()
    device = torch.device("cuda")
    print(f"torch {torch.__version__} on {torch.cuda.get_device_name()}: "
          f"{args.layers}x{args.hidden}, batch {args.batch}, {PRECISION}")
    eager_ms, eager_mem = eager_run(args, device)
    torch.cuda.empty_cache()
    graph_ms, graph_mem, _graph = graph_run(args, device)
    config = f"{args.layers}x{args.hidden}, batch {args.batch}"
    print("\n| config | PyTorch eager ms/step | PyTorch graph ms/step | "
          "PyTorch speedup | stepgraph eager | stepgraph graph | "
          "PyTorch graph ms / stepgraph graph ms | PyTorch precision |")
    print("|---|---|---|---|---|---|---|---|")
    sg = stepgraph_row(args.stepgraph_csv, args)
    sg_cols = "- | - | -"
    if sg:
        sg_e, sg_g = float(sg["eager_ms"]), float(sg["graph_ms"])
        sg_cols = f"{sg_e:.4f} | {sg_g:.4f} | {graph_ms / sg_g:.2f}x"
    print(f"| {config} | {eager_ms:.4f} | {graph_ms:.4f} | "
          f"{eager_ms / graph_ms:.2f}x | {sg_cols} | {PRECISION} |")
    if args.csv:
        new = not os.path.exists(args.csv)
        with open(args.csv, "a", newline="") as f:
            w = csv.writer(f)
            if new:
                w.writerow(["layers", "hidden", "batch", "steps", "eager_ms",
                            "graph_ms", "eager_bytes", "graph_bytes",
                            "precision"])
            w.writerow([args.layers, args.hidden, args.batch, args.steps,
                        eager_ms, graph_ms, eager_mem, graph_mem, PRECISION])


if __name__ == "__main__":
    main()

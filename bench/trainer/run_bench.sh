#!/bin/sh
# The FP8 trainer benchmark, in one run on one GPU: fp8_trainer --bench on
# the default configuration (launch-bound) and on a large compute-bound one
# (eager vs graph, the empty-kernel ceiling, memory), then PyTorch's version
# of the same step (torch_mlp.py) on both, next to stepgraph's numbers.
# Writes bench_trainer.csv and torch_mlp.csv to OUT_DIR.
#
#   bench/trainer/run_bench.sh [build-dir] [out-dir]   (from the repo root)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-build}
out=${2:-.}
trainer=$build/samples/fp8_trainer/fp8_trainer
plugin=$build/plugin/libstepgraph.so.1
mkdir -p "$out"
csv=$out/bench_trainer.csv
rm -f "$csv" "$out/torch_mlp.csv"
echo "layers,hidden,batch,steps,eager_ms,graph_ms,launches,graph_nodes,ceiling_eager_ms,ceiling_graph_ms,eager_bytes,graph_bytes,losses_identical" >"$csv"

# default: 500 steps; large: 16 layers of 4096x4096, batch 4096 (~6.5 TFLOP
# a step, so the GPU, not the launches, sets the pace).
default_config="--steps 500"
large_config="--layers 16 --hidden 4096 --batch 4096 --steps 60"
status=0
for config in "$default_config" "$large_config"; do
  log=$out/bench_trainer.log.tmp
  # shellcheck disable=SC2086 # config is a list of arguments
  "$trainer" --bench --plugin "$plugin" $config >"$log" 2>&1 || status=$?
  cat "$log"
  grep '^csv,' "$log" | cut -d, -f2- >>"$csv"
  rm -f "$log"
done

if python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null; then
  for config in "$default_config" "$large_config"; do
    # shellcheck disable=SC2086
    python3 "$here/torch_mlp.py" $config --csv "$out/torch_mlp.csv" \
      --stepgraph-csv "$csv" || status=$?
  done
else
  echo "run_bench: PyTorch with CUDA not found: no PyTorch comparison"
fi
exit "$status"

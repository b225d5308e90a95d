#!/bin/sh
# Multi-GPU sessions on one GPU (--ranks 1: a communicator of one rank):
# fp8_trainer --bench single-process, data-parallel and with the sharded
# optimizer (step time eager vs graph with every collective inside the
# graph), then bench_multi (the agreement's cost at capture_end, the
# refresh with and without the amax reduction). Writes
# bench_multi_trainer.csv and bench_multi.csv to OUT_DIR and prints a table.
#
#   bench/multi/run_bench.sh [build-dir] [out-dir]   (from the repo root)
set -eu
build=${1:-build}
out=${2:-.}
trainer=$build/samples/fp8_trainer/fp8_trainer
plugin=$build/plugin/libstepgraph.so.1
mkdir -p "$out"
csv=$out/bench_multi_trainer.csv
echo "run,layers,hidden,batch,steps,eager_ms,graph_ms,launches,graph_nodes,ceiling_eager_ms,ceiling_graph_ms,eager_bytes,graph_bytes,losses_identical" >"$csv"
status=0
for run in single ranks1 ranks1-sharded; do
  case $run in
    single) extra="" ;;
    ranks1) extra="--ranks 1" ;;
    ranks1-sharded) extra="--ranks 1 --shard-optimizer" ;;
  esac
  log=$out/bench_multi_$run.log
  # shellcheck disable=SC2086 # extra is a list of arguments
  "$trainer" --bench --plugin "$plugin" $extra >"$log" 2>&1 || status=$?
  grep '^csv,' "$log" | sed "s/^csv,/$run,/" >>"$csv" || status=1
done
"$build/bench/multi/bench_multi" --plugin "$plugin" \
  --csv "$out/bench_multi.csv" >"$out/bench_multi.log" 2>&1 || status=$?

echo
echo "| run (--bench, default config) | eager ms/step | graph ms/step | speedup | graph nodes | losses identical |"
echo "|---|---|---|---|---|---|"
tail -n +2 "$csv" | awk -F, '{ printf "| %s | %.4f | %.4f | %.2fx | %s | %s |\n", $1, $6, $7, $6 / $7, $9, ($14 == 1 ? "yes" : "NO") }'
cat "$out/bench_multi.log"
exit $status

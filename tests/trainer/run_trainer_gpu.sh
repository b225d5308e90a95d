#!/bin/bash
# fp8_trainer on a GPU machine in one go: the trainer's tests with
# STEPGRAPH_REQUIRE_GPU=1, scripts/run-sample (graph mode, the default
# configuration) and the benchmark with PyTorch's comparison. Runs the test
# binaries of an existing build directly (CTest's files hold the absolute
# paths of the machine that configured them). Logs go to $OUT (or
# ./gpu-out): tests.log, sample.log, bench.log and the bench CSV files.
#
#   tests/trainer/run_trainer_gpu.sh [build-dir]    (from the repository root)
set -u
build=${1:-build}
out=${OUT:-gpu-out}
mkdir -p "$out"
export STEPGRAPH_REQUIRE_GPU=1
export STEPGRAPH_PLUGIN=$PWD/$build/plugin/libstepgraph.so.1
export STEPGRAPH_TRAINER=$PWD/$build/samples/fp8_trainer/fp8_trainer

# cuBLASLt: the toolkit's, else the one a Python wheel ships.
if ! ldd "$STEPGRAPH_TRAINER" | grep -q 'libcublasLt.so.13 =>.*/'; then
  lib=$(find /usr/local/cuda*/ /usr/lib /opt -name 'libcublasLt.so.13' \
        2>/dev/null | head -1)
  if [ -n "$lib" ]; then
    export LD_LIBRARY_PATH=$(dirname "$lib")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  fi
fi
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem \
  --format=csv | tee "$out/tests.log"

status=0
summary=""
step() { # name, limit (s), log, command...
  local name=$1 limit=$2 log=$3
  shift 3
  local start rc
  start=$(date +%s%N)
  { echo "=== $name"; timeout "$limit" "$@" 2>&1; } >>"$log"
  rc=$?
  [ $rc -eq 0 ] || status=1
  summary+=$(printf '%-22s rc=%-3s %7d ms' "$name" "$rc" \
    $(( ($(date +%s%N) - start) / 1000000 )))$'\n'
  return $rc
}

for t in test_trainer_cli test_trainer_gemm test_trainer_modes; do
  step "$t" 240 "$out/tests.log" "$build/tests/trainer/$t"
done
step bench 240 "$out/bench.log" bench/trainer/run_bench.sh "$build" "$out"
# scripts/run-sample last (it reconfigures and rebuilds what changed);
# where that cannot work on this machine, the built binary runs the same
# default.
step sample 180 "$out/sample.log" \
  env STEPGRAPH_BUILD_DIR="$PWD/$build" scripts/run-sample ||
  step sample_binary 60 "$out/sample.log" "$STEPGRAPH_TRAINER"

grep -E '^[0-9]+%: Checks|^[a-z_]+: (relative error|last)|:[0-9]+:[EF]:' \
  "$out/tests.log"
tail -12 "$out/sample.log"
grep -E '^\|' "$out/bench.log"
echo "=== summary"
printf '%s' "$summary"
exit $status

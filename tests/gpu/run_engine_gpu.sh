#!/bin/bash
# The capture and replay engine on a GPU machine, in one go: the engine's GPU
# tests with STEPGRAPH_REQUIRE_GPU=1, three of them under compute-sanitizer
# memcheck, and bench_replay. Runs the binaries of an existing build
# directly (CTest's files hold the absolute paths of the machine that
# configured them). Four files go to $OUT (or ./gpu-out): tests.log (every
# test's output), memcheck.log, bench_replay.log and bench_replay.csv.
#
#   tests/gpu/run_engine_gpu.sh [build-dir]     (from the repository root)
set -u
build=${1:-build}
out=${OUT:-gpu-out}
logs=$(mktemp -d)
mkdir -p "$out"
export STEPGRAPH_REQUIRE_GPU=1
export STEPGRAPH_PLUGIN=$PWD/$build/plugin/libstepgraph.so.1

# cuBLASLt for test_engine: the toolkit's, else the one a Python wheel has.
if ! ldd "$build/tests/gpu/test_engine" | grep -q 'libcublasLt.so.13 =>.*/'; then
  for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib \
           $(python3 -c 'import nvidia, os; print(" ".join(os.path.join(p, q, "lib") for p in nvidia.__path__ for q in os.listdir(p)))' 2>/dev/null); do
    if [ -e "$d/libcublasLt.so.13" ]; then
      export LD_LIBRARY_PATH=$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
      break
    fi
  done
fi
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv \
  | tee "$out/tests.log"

status=0
summary=""
for t in test_engine test_capture_failures test_graph_cache test_threads \
         test_refresh_graph test_session_gpu; do
  start=$(date +%s%N)
  limit=60
  [ "$t" = test_engine ] && limit=150
  timeout $limit "$build/tests/gpu/$t" >"$logs/$t.log" 2>&1
  rc=$?
  { echo "=== $t (rc $rc)"; cat "$logs/$t.log"; } >>"$out/tests.log"
  ms=$(( ($(date +%s%N) - start) / 1000000 ))
  [ $rc -eq 0 ] || status=1
  summary+=$(printf '%-24s rc=%-3s %7d ms  %s' "$t" "$rc" "$ms" \
    "$(grep -E '^[0-9]+%: Checks' "$logs/$t.log" | tail -1)")$'\n'
done

sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
: >"$out/memcheck.log"
for t in test_engine test_graph_cache test_refresh_graph; do
  start=$(date +%s%N)
  # test_graph_cache makes CUDA refuse an exec update on purpose (a changed
  # topology); the tool would count that API error: report memory errors.
  api_errors=explicit
  [ "$t" = test_graph_cache ] && api_errors=no
  timeout 200 "$sanitizer" --tool memcheck --error-exitcode 86 \
    --report-api-errors $api_errors \
    "$build/tests/gpu/$t" >"$logs/memcheck_$t.log" 2>&1
  rc=$?
  cat "$logs/memcheck_$t.log" >>"$out/memcheck.log"
  ms=$(( ($(date +%s%N) - start) / 1000000 ))
  [ $rc -eq 0 ] || status=1
  summary+=$(printf '%-24s rc=%-3s %7d ms  %s' "memcheck $t" "$rc" "$ms" \
    "$(grep -E 'ERROR SUMMARY' "$logs/memcheck_$t.log" | tail -1)")$'\n'
done

timeout 150 "$build/bench/replay/bench_replay" --plugin "$STEPGRAPH_PLUGIN" \
  --csv "$out/bench_replay.csv" >"$out/bench_replay.log" 2>&1
rc=$?
summary+=$(printf '%-24s rc=%s' "bench_replay" "$rc")$'\n'

for t in test_engine test_capture_failures test_graph_cache test_threads \
         test_refresh_graph test_session_gpu; do
  if ! grep -q '100%: Checks' "$logs/$t.log"; then
    echo "=== $t (tail)"; tail -25 "$logs/$t.log"
  fi
done
grep -E '^test_capture_failures:' "$logs/test_capture_failures.log" | cut -c1-220
grep -E '^test_engine:' "$logs/test_engine.log"
grep -E 'ERROR SUMMARY|Invalid|Program hit' "$out/memcheck.log" | head -20
echo "=== bench_replay"
cat "$out/bench_replay.log"
echo "=== summary"
printf '%s' "$summary"
rm -rf "$logs"
exit $status

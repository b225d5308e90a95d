#!/bin/sh
# STEPGRAPH_REQUIRE_GPU=1, as the README documents it: a GPU test that finds
# no GPU skips (exit 77, with its reason) without it and fails with it.
# Checked on a machine without a GPU; where there is one the test program
# runs for real, so this skips.
#   require_gpu.sh path/to/a/gpu/test
set -u
test=$1
out=$(env -u STEPGRAPH_REQUIRE_GPU "$test" 2>&1)
rc=$?
if [ $rc -ne 77 ]; then
  echo "require_gpu: SKIP: $test found a GPU (exit $rc); this checks the machine without one"
  exit 77
fi
case $out in *"SKIP: no usable GPU"*) ;; *) echo "require_gpu: FAIL: skipped without its reason: $out"; exit 1 ;; esac
out=$(STEPGRAPH_REQUIRE_GPU=1 "$test" 2>&1)
rc=$?
[ $rc -ne 0 ] && [ $rc -ne 77 ] || { echo "require_gpu: FAIL: exit $rc under STEPGRAPH_REQUIRE_GPU=1: $out"; exit 1; }
case $out in *"FAIL: STEPGRAPH_REQUIRE_GPU=1 but no usable GPU"*) ;; *) echo "require_gpu: FAIL: no reason given: $out"; exit 1 ;; esac
echo "require_gpu: without it: skipped (77); with STEPGRAPH_REQUIRE_GPU=1: failed (exit $rc) saying why"

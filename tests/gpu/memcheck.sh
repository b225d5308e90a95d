#!/bin/sh
# Runs a GPU test program under compute-sanitizer's memcheck. Exits 77
# (skipped) when compute-sanitizer is not installed, or when the program
# itself skips (no GPU); fails on any memcheck error.
#   memcheck.sh <test-program> [args...]
tool=$(command -v compute-sanitizer || true)
if [ -z "$tool" ] && [ -x /usr/local/cuda/bin/compute-sanitizer ]; then
  tool=/usr/local/cuda/bin/compute-sanitizer
fi
if [ -z "$tool" ]; then
  if [ "${STEPGRAPH_REQUIRE_GPU:-}" = 1 ]; then
    echo "memcheck.sh: FAIL: STEPGRAPH_REQUIRE_GPU=1 but no compute-sanitizer"
    exit 1
  fi
  echo "memcheck.sh: SKIP: compute-sanitizer not found"
  exit 77
fi
"$tool" --tool memcheck --error-exitcode 86 "$@"
rc=$?
if [ "$rc" -eq 86 ]; then
  echo "memcheck.sh: FAIL: compute-sanitizer reported errors"
  exit 1
fi
exit "$rc"

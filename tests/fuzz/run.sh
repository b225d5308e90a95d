#!/bin/sh
# Builds the ABI fuzz target (tests/fuzz/sanitized, with clang) against a
# configured main build and runs it for SECONDS (default 60) from the
# committed corpus (tests/fuzz/corpus, read only; new inputs go to the
# build's own corpus folder).
#
#   tests/fuzz/run.sh BUILD_DIR [SECONDS]
#
# Exit status: 0 no finding; 77 skipped (no clang or no libFuzzer); else a
# finding (its input is saved under BUILD_DIR/tests/fuzz/artifacts/; replay
# it with BUILD_DIR/tests/fuzz/sanitized/fuzz_abi <file>) or a build error.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 1 ] || { echo "usage: $0 BUILD_DIR [SECONDS]" >&2; exit 64; }
build=$(cd "$1" && pwd)
seconds=${2:-60}
work="$build/tests/fuzz"
config="$work/fuzz_config.cmake"
[ -f "$config" ] || {
  echo "fuzz: $config is missing: configure $build with -DBUILD_TESTING=ON" >&2
  exit 1
}

cc=${STEPGRAPH_FUZZ_CC:-clang}
command -v "$cc" >/dev/null 2>&1 || {
  echo "SKIP: $cc not found (Debian: apt-get install clang libclang-rt-dev)"
  exit 77
}
probe="$work/probe"
mkdir -p "$probe"
printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n)%s\n' \
  '{ (void)d; (void)n; return 0; }' >"$probe/probe.c"
"$cc" -fsanitize=fuzzer,address,undefined "$probe/probe.c" \
  -o "$probe/probe" >"$probe/log" 2>&1 || {
  echo "SKIP: $cc cannot link -fsanitize=fuzzer (libFuzzer missing; Debian:" \
    "apt-get install libclang-rt-dev):"
  tail -n 3 "$probe/log"
  exit 77
}

jobs=$(nproc 2>/dev/null || echo 2)
cmake -S "$here/sanitized" -B "$work/sanitized" -DCMAKE_C_COMPILER="$cc" \
  -DSG_FUZZ_CONFIG="$config" >"$work/configure.log" 2>&1 ||
  { cat "$work/configure.log"; exit 1; }
cmake --build "$work/sanitized" -j "$jobs"

mkdir -p "$work/corpus" "$work/artifacts"
echo "fuzz: $seconds s from $here/corpus ($(find "$here/corpus" -type f | wc -l) seeds)"
"$work/sanitized/fuzz_abi" -max_total_time="$seconds" -timeout=20 \
  -rss_limit_mb=4096 -max_len=4096 -print_final_stats=1 \
  -error_exitcode=1 -timeout_exitcode=1 \
  -artifact_prefix="$work/artifacts/" "$work/corpus" "$here/corpus"

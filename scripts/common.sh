# Sourced by scripts/test and scripts/run-sample: where things are, and the
# configure step both share.
root=$(cd "$(dirname "$0")/.." && pwd)
build=${STEPGRAPH_BUILD_DIR:-$root/build}
jobs=$(nproc 2>/dev/null || echo 2)

# nvcc is not always on PATH; CMake finds it through CUDACXX.
if ! command -v nvcc >/dev/null 2>&1 && [ -z "${CUDACXX:-}" ] &&
   [ -x /usr/local/cuda/bin/nvcc ]; then
  export CUDACXX=/usr/local/cuda/bin/nvcc
fi

configure() {
  cmake -S "$root" -B "$build" "$@"
}

#!/bin/sh
# The install test: what a user of an installed stepgraph gets, from this
# build tree as it is (nothing is rebuilt; no GPU needed).
#
#   install_test.sh prefix WORK BUILD SOURCE LIBDIR VERSION CONFIG CMAKE CPACK CC
#   install_test.sh deb    WORK ...same...
#   install_test.sh subproject WORK ...same...
#
# prefix: `cmake --install` into WORK/prefix; the layout and the SONAME link
#   chain; consumers built with find_package, with pkg-config and with a
#   plain `cc -I... -ldl`, each run in a validation-only session; the
#   package version rule; the samples component; minimal_host finding the
#   build's plugin by itself.
# deb: `cpack` (DEB) into WORK/deb; each package's file list and control
#   fields; both unpacked with dpkg-deb -x, and the consumers built and run
#   against the unpacked files.
# subproject: configures (does not build) tests/install/subproject, which
#   takes the source tree in with add_subdirectory: library only, and the
#   stepgraph:: targets.
set -eu
mode=$1 work=$2 build=$3 src=$4 libdir_rel=$5 version=$6 config=$7
cmake=$8 cpack=$9
shift 9
cc=$1
major=${version%%.*}
consumer=$src/tests/install/consumer

say() { echo "install_test: $*"; }
fail() { echo "install_test: FAIL: $*" >&2; exit 1; }
skip() { echo "install_test: SKIP: $*"; exit 77; }
logged() { # log, command...: runs it, shows the log if it fails
  log=$1
  shift
  "$@" >"$log" 2>&1 || { cat "$log" >&2; fail "$* (log above)"; }
}

# expect_ok NAME COMMAND...: the consumer's success line, with our version.
expect_ok() {
  name=$1
  shift
  printed=$("$@" 2>&1) || fail "$name exited non-zero: $printed"
  [ "$printed" = "consumer: ok, library $version" ] || fail "$name printed: $printed"
  say "$name: $printed"
}

# check_layout ROOT: header, library and its link chain, CMake package, .pc.
check_layout() {
  root=$1 lib=$1/$libdir_rel
  for h in stepgraph.h stepgraph_rng.cuh; do
    [ -f "$root/include/stepgraph/$h" ] || fail "no include/stepgraph/$h under $root"
  done
  [ -f "$lib/libstepgraph.so.$version" ] && [ ! -L "$lib/libstepgraph.so.$version" ] ||
    fail "the real file $libdir_rel/libstepgraph.so.$version is missing"
  [ "$(readlink "$lib/libstepgraph.so.$major")" = "libstepgraph.so.$version" ] ||
    fail "libstepgraph.so.$major does not link to libstepgraph.so.$version"
  [ "$(readlink "$lib/libstepgraph.so")" = "libstepgraph.so.$major" ] ||
    fail "libstepgraph.so does not link to libstepgraph.so.$major"
  soname=$(readelf -d "$lib/libstepgraph.so.$version" | sed -n 's/.*SONAME.*\[\(.*\)\]/\1/p')
  [ "$soname" = "libstepgraph.so.$major" ] || fail "SONAME is '$soname'"
  for f in stepgraphConfig.cmake stepgraphConfigVersion.cmake stepgraphTargets.cmake; do
    [ -f "$lib/cmake/stepgraph/$f" ] || fail "no $libdir_rel/cmake/stepgraph/$f"
  done
  [ -f "$lib/pkgconfig/stepgraph.pc" ] || fail "no $libdir_rel/pkgconfig/stepgraph.pc"
  say "layout under $root: header, libstepgraph.so -> .so.$major -> .so.$version (SONAME $soname), CMake package, stepgraph.pc"
}

# consumers ROOT TAG: builds and runs the consumer every way a host would.
consumers() {
  root=$1 out=$work/$2 lib=$1/$libdir_rel
  mkdir -p "$out"
  logged "$out/cmake.log" "$cmake" -S "$consumer" -B "$out/cmake" \
    -DCMAKE_PREFIX_PATH="$root" -DCMAKE_C_COMPILER="$cc" -DSG_WANT_VERSION="$major.0"
  logged "$out/build.log" "$cmake" --build "$out/cmake"
  expect_ok "find_package, stepgraph::headers, dlopen" "$out/cmake/consumer_dlopen" "$lib/libstepgraph.so.$major"
  expect_ok "find_package, stepgraph::stepgraph, linked" "$out/cmake/consumer_linked"

  export PKG_CONFIG_PATH="$lib/pkgconfig"
  [ "$(pkg-config --modversion stepgraph)" = "$version" ] || fail "pkg-config --modversion: $(pkg-config --modversion stepgraph)"
  # shellcheck disable=SC2046 # pkg-config prints a list of flags
  "$cc" $(pkg-config --cflags stepgraph) "$consumer/consumer.c" -o "$out/pc_dlopen" -ldl ||
    fail "cc \$(pkg-config --cflags stepgraph) ... -ldl"
  # shellcheck disable=SC2046
  "$cc" -DCONSUMER_LINKED $(pkg-config --cflags stepgraph) "$consumer/consumer.c" \
    -o "$out/pc_linked" $(pkg-config --libs stepgraph) || fail "cc ... \$(pkg-config --libs stepgraph)"
  expect_ok "pkg-config --cflags, dlopen" "$out/pc_dlopen" "$lib/libstepgraph.so.$major"
  expect_ok "pkg-config --libs, linked" env LD_LIBRARY_PATH="$lib" "$out/pc_linked"

  "$cc" -I"$root/include/stepgraph" "$consumer/consumer.c" -o "$out/cc_dlopen" -ldl ||
    fail "cc -I$root/include/stepgraph consumer.c -ldl"
  expect_ok "cc -I... -ldl, dlopen" "$out/cc_dlopen" "$lib/libstepgraph.so.$major"
}

# version_rule ROOT: SameMajorVersion, the ABI's rule.
version_rule() {
  file=$1/$libdir_rel/cmake/stepgraph/stepgraphConfigVersion.cmake
  for want_expect in "$major.0 TRUE" "$((major + 1)).0 FALSE" "$((major - 1)).9 FALSE"; do
    set -- $want_expect
    logged "$work/version.log" "$cmake" -DVERSION_FILE="$file" -DWANT="$1" -DEXPECT="$2" \
      -P "$src/tests/install/version_rule.cmake"
  done
  say "find_package(stepgraph $major.0) accepted; $((major + 1)).0 and $((major - 1)).9 refused"
}

prefix_mode() {
  root=$work/prefix
  logged "$work/install.log" "$cmake" --install "$build" --prefix "$root"
  check_layout "$root"
  [ ! -e "$root/bin" ] || fail "a plain install put programs in bin/ (samples are opt-in)"
  version_rule "$root"
  consumers "$root" prefix

  logged "$work/samples.log" "$cmake" --install "$build" --prefix "$root" --component samples
  out=$(env -u STEPGRAPH_PLUGIN "$root/bin/minimal_host" 2>&1) || true
  case $out in *"library $version: negotiated"*) ;; *) fail "installed minimal_host: $out" ;; esac
  "$root/bin/fp8_trainer" --help >/dev/null 2>&1 || fail "installed fp8_trainer --help failed"
  say "samples component: bin/minimal_host found lib/ by itself; bin/fp8_trainer starts"

  out=$(env -u STEPGRAPH_PLUGIN "$build/samples/minimal_host" 2>&1) || true
  case $out in *"library $version: negotiated"*) ;; *) fail "build-tree minimal_host: $out" ;; esac
  say "build-tree minimal_host found the build's plugin with no argument"
}

# files DEB: the package's files and links, one path per line, sorted.
files() {
  dpkg-deb -c "$1" | awk '$1 !~ /^d/ { sub(/^\.\//, "", $6); print $6 }' | sort
}

# field DEB NAME: one control field.
field() { dpkg-deb -f "$1" "$2"; }

expect_field() { # deb, name, expected
  got=$(field "$1" "$2")
  [ "$got" = "$3" ] || fail "$(basename "$1"): $2 is '$got', expected '$3'"
}

# The runtime package's Depends must name a package for every NEEDED
# library, glibc at least as new as the newest GLIBC_ symbol, and no CUDA.
check_depends() {
  deb=$1 real=$build/plugin/libstepgraph.so.$version
  depends=$(field "$deb" Depends)
  case $depends in *cuda* | *nccl* | *cublas*) fail "Depends names CUDA: $depends" ;; esac
  for needed in $(readelf -d "$real" | sed -n 's/.*NEEDED.*\[\(.*\)\]/\1/p'); do
    case $needed in
      libc.so.* | ld-linux* | libm.so.* | libdl.so.* | libpthread.so.* | librt.so.*) pkg=libc6 ;;
      libgcc_s.so.1) pkg=libgcc-s1 ;;
      libstdc++.so.6) pkg=libstdc++6 ;;
      *) fail "NEEDED $needed has no package in Depends ($depends)" ;;
    esac
    case ", $depends," in *", $pkg "* | *", $pkg,"*) ;; *) fail "NEEDED $needed: $pkg not in Depends ($depends)" ;; esac
  done
  newest=$(readelf -V "$real" | grep -o 'GLIBC_[0-9.]*' | sed 's/GLIBC_//' | sort -V | tail -n 1)
  stated=$(echo "$depends" | sed -n 's/.*libc6 (>= \([0-9.]*\)).*/\1/p')
  [ -n "$stated" ] || fail "Depends states no libc6 version: $depends"
  [ "$(printf '%s\n%s\n' "$newest" "$stated" | sort -V | tail -n 1)" = "$stated" ] ||
    fail "the library needs GLIBC_$newest, Depends says libc6 (>= $stated)"
  say "Depends: $depends (NEEDED covered, GLIBC_$newest <= $stated, no CUDA)"
}

deb_mode() {
  command -v dpkg-deb >/dev/null 2>&1 || skip "dpkg-deb not installed (package dpkg): cannot build or read .deb files"
  command -v file >/dev/null 2>&1 || skip "file not installed (package file): CPack's DEB generator needs it"
  logged "$work/cpack.log" "$cpack" --config "$build/CPackConfig.cmake" -B "$work/deb"
  runtime=$(ls "$work"/deb/libstepgraph"$major"_"$version"_*.deb) || fail "no libstepgraph${major} .deb"
  dev=$(ls "$work"/deb/libstepgraph-dev_"$version"_*.deb) || fail "no libstepgraph-dev .deb"

  lib=usr/$libdir_rel
  expected=$(printf '%s\n' "$lib/libstepgraph.so.$major" "$lib/libstepgraph.so.$version" | sort)
  [ "$(files "$runtime")" = "$expected" ] || fail "runtime package holds: $(files "$runtime")"
  expected=$(printf '%s\n' usr/include/stepgraph/stepgraph.h usr/include/stepgraph/stepgraph_rng.cuh "$lib/libstepgraph.so" \
    "$lib/cmake/stepgraph/stepgraphConfig.cmake" "$lib/cmake/stepgraph/stepgraphConfigVersion.cmake" \
    "$lib/cmake/stepgraph/stepgraphTargets.cmake" "$lib/cmake/stepgraph/stepgraphTargets-${config:-noconfig}.cmake" \
    "$lib/pkgconfig/stepgraph.pc" | sort)
  [ "$(files "$dev")" = "$expected" ] || fail "dev package holds: $(files "$dev")"
  say "file lists: libstepgraph$major has the library and its SONAME link; libstepgraph-dev the rest"

  expect_field "$runtime" Package "libstepgraph$major"
  expect_field "$runtime" Version "$version"
  expect_field "$runtime" Section libs
  expect_field "$dev" Package libstepgraph-dev
  expect_field "$dev" Version "$version"
  expect_field "$dev" Section libdevel
  expect_field "$dev" Depends "libstepgraph$major (= $version)"
  for deb in "$runtime" "$dev"; do
    case $(field "$deb" Description) in *"driver >= 580"*) ;; *) fail "$(basename "$deb"): Description omits the driver requirement" ;; esac
  done
  check_depends "$runtime"
  shlibs=$(dpkg-deb --ctrl-tarfile "$runtime" | tar -xO ./shlibs)
  [ "$shlibs" = "libstepgraph $major libstepgraph$major (>= $version)" ] || fail "shlibs: $shlibs"

  dpkg-deb -x "$runtime" "$work/root"
  dpkg-deb -x "$dev" "$work/root"
  check_layout "$work/root/usr"
  consumers "$work/root/usr" unpacked
}

subproject_mode() {
  logged "$work/configure.log" "$cmake" -S "$src/tests/install/subproject" -B "$work/parent" \
    -DSTEPGRAPH_SOURCE_DIR="$src" -DCMAKE_C_COMPILER="$cc" \
    -DCMAKE_CUDA_COMPILER="$(sed -n 's/^CMAKE_CUDA_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt")"
  grep -q "subproject: stepgraph::headers and stepgraph::stepgraph, library only" "$work/configure.log" ||
    fail "the subproject's checks did not run"
  say "add_subdirectory: library only, stepgraph::headers and stepgraph::stepgraph"
}

rm -rf "$work"
mkdir -p "$work"
case $mode in
  prefix) prefix_mode ;;
  deb) deb_mode ;;
  subproject) subproject_mode ;;
  *) fail "unknown mode $mode" ;;
esac
say "PASS ($mode)"

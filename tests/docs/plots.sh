#!/bin/sh
# bench/plots.gp regenerates every plot docs/PERFORMANCE.md shows from the
# committed CSV files (bench/results), into OUT: each comes out as a PNG, and
# the set of PNGs is exactly the set committed in docs/plots.
#   plots.sh SOURCE OUT
set -u
src=$1 out=$2
if ! command -v gnuplot >/dev/null 2>&1; then
  echo "plots: SKIP: gnuplot not installed (Debian package gnuplot-nox)"
  exit 77
fi
rm -rf "$out"
mkdir -p "$out"
gnuplot -e "csv='$src/bench/results'; out='$out'" "$src/bench/plots.gp" 2>"$out/gnuplot.log" ||
  { cat "$out/gnuplot.log"; echo "plots: FAIL: gnuplot failed"; exit 1; }
if [ -s "$out/gnuplot.log" ]; then
  cat "$out/gnuplot.log"
  echo "plots: FAIL: gnuplot warned (a column or file the script expects is missing?)"
  exit 1
fi
made=$(cd "$out" && ls *.png | sort)
committed=$(cd "$src/docs/plots" && ls *.png | sort)
[ "$made" = "$committed" ] || { echo "plots: FAIL: made [$made], docs/plots has [$committed]"; exit 1; }
for png in $made; do
  [ "$(head -c 8 "$out/$png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
    { echo "plots: FAIL: $png is not a PNG"; exit 1; }
  [ "$(wc -c <"$out/$png")" -gt 10000 ] || { echo "plots: FAIL: $png is nearly empty"; exit 1; }
done
echo "plots: $(echo $made | wc -w) plots from bench/results into $out:" $made

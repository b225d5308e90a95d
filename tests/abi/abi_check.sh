#!/bin/sh
# abi_check.sh accept|refuse BASELINE HEADERS_DIR LIBRARY
# Reads LIBRARY's ABI with abidw — only the types its public headers in
# HEADERS_DIR define, so the plugin's private structs behind opaque handles
# stay opaque — and compares it with the committed BASELINE using abidiff's
# leaf-change report, which append_only.awk judges: "accept" passes when the
# ABI is unchanged or only appended to (fields at the end of structs, entries
# at the end of the table); "refuse" passes when the check rejects LIBRARY.
# Exits 77 (skipped) when libabigail's tools are not installed.
set -u
expect=$1 baseline=$2 headers=$3 library=$4
here=$(dirname "$0")
for tool in abidw abidiff; do
  command -v $tool >/dev/null 2>&1 || { echo "SKIP: $tool not installed (apt-get install abigail-tools)"; exit 77; }
done
current=$(mktemp) || exit 1
trap 'rm -f "$current"' EXIT
"$here/abi_dump.sh" "$headers" "$library" > "$current" || { echo "FAIL: abidw could not read $library"; exit 1; }
report=$(abidiff --leaf-changes-only --no-show-locs "$baseline" "$current")
rc=$?
echo "$report"
echo "abidiff exit status: $rc"
# abidiff's status bits: 1 error, 2 usage error, 4 ABI change, 8 incompatible.
[ $((rc & 3)) -eq 0 ] || { echo "FAIL: abidiff could not compare"; exit 1; }
echo "$report" | awk -f "$here/append_only.awk"
verdict=$?
case $expect in
  accept) [ "$verdict" -eq 0 ] || { echo "FAIL: not an append-only change of $baseline"; exit 1; } ;;
  refuse) [ "$verdict" -ne 0 ] || { echo "FAIL: the check accepted a breaking change"; exit 1; } ;;
esac
echo "PASS ($expect)"

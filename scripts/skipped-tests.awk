# Reads CTest's JUnit report (ctest --output-junit) and prints one line per
# skipped test: its name and the reason it gave, which is the first line of
# its output that says SKIP (GPU tests print "<name>: SKIP: <why>" before
# exiting 77), else its first line of output. CTest's own summary lists
# skipped tests without their output.
function unescape(s) {
  gsub(/&lt;/, "<", s); gsub(/&gt;/, ">", s); gsub(/&quot;/, "\"", s)
  gsub(/&apos;/, "'", s); gsub(/&amp;/, "\\&", s)
  return s
}
/<testcase / {
  name = $0; sub(/.*<testcase name="/, "", name); sub(/".*/, "", name)
  skipped = 0; in_output = 0; reason = ""; first = ""
}
/<skipped/ { skipped = 1 }
/<system-out>/ { in_output = 1; sub(/.*<system-out>/, "") }
in_output {
  line = $0
  ends = sub(/<\/system-out>.*/, "", line)
  if (reason == "" && line ~ /SKIP/) reason = line
  if (first == "" && line ~ /[^ \t]/) first = line
  if (ends) in_output = 0
}
/<\/testcase>/ && skipped {
  why = unescape(reason != "" ? reason : first != "" ? first : "(no output)")
  name = unescape(name)
  if (index(why, name ": ") == 1) why = substr(why, length(name) + 3)
  print "  " name ": " why
}

# Reads `abidiff --leaf-changes-only` output and exits 0 only when every
# change is a data member appended at the end of one of our structs (the
# function table sg_api included): the one change ABI 1.x allows. Any other
# line — an offset or type change, a removal, an insertion before the old
# end, a changed function — is printed and fails the check.
#
# (libabigail's own [suppress_type] rules cannot say this: a type suppression
# matches by name and hides every change beneath that type, so suppressing
# appended entries of sg_api would also hide a reordered parameter struct.)
function fail(why) { print "not append-only: " why ": " $0; bad = 1 }
/^$/ { next }
/^Leaf changes summary:/ || /^Changed leaf types summary:/ { next }
/^Removed\/Changed\/Added (functions|variables) summary:/ {
  if ($0 !~ /: 0 Removed, 0 Changed,/) fail("a function or variable changed")
  next
}
/^'struct sg_[a-z0-9_]+' changed:$/ { old = -1; inserting = 0; next }
/^  type size changed from [0-9]+ to [0-9]+ \(in bits\)$/ { old = $5 + 0; next }
/^  [0-9]+ data member insertions?:$/ { inserting = 1; next }
/^    '.*', at offset [0-9]+ \(in bits\)$/ && inserting {
  offset = $(NF - 2) + 0
  if (old < 0 || offset < old) fail("inserted before the old end")
  next
}
{ fail("not an append") }
END { exit bad }

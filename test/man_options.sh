#!/bin/sh
# test/man_options.sh: the man page doc/nagare-solve.1 documents exactly the
# options nagare-solve has: every option in the components' tables
# (*/*_options.c, core/options.h) and every one "nagare-solve -help" lists
# (the tables plus the program's own) has a ".TP" entry, and every entry
# names an option that exists (or -version, -help-markdown).
# So the page cannot drift from the code: add an entry with a new option.
top="${NG_TOP_BUILDDIR:-.}"
src="$(cd "$(dirname "$0")/.." && pwd)"
man="$src/doc/nagare-solve.1"
[ -f "$man" ] || { echo "FAIL: no $man"; exit 1; }
tmp=${TMPDIR:-/tmp}/ng_man_options.$$
mkdir -p "$tmp" || exit 99
trap 'rm -rf "$tmp"' EXIT
# options of the code: the table's {"name", OPT_...} entries and the -help list
cat "$src"/*/*_options.c | sed -n 's/^ *{"\([a-z_0-9]*\)", *NG_OPT_.*/\1/p' > "$tmp/table"
[ -s "$tmp/table" ] || { echo "FAIL: no options found in */*_options.c (table format changed?)"; exit 1; }
"$top/nagare-solve" -help > "$tmp/help" 2>&1 || { cat "$tmp/help"; echo "FAIL: nagare-solve -help"; exit 1; }
sed -n 's/^  -\([a-z_0-9]*\) <.*/\1/p' "$tmp/help" > "$tmp/listed"
[ -s "$tmp/listed" ] || { cat "$tmp/help"; echo "FAIL: nagare-solve -help lists no options"; exit 1; }
sort -u "$tmp/table" "$tmp/listed" > "$tmp/code"
# options of the page: the line after each .TP is ".B \-name" or ".BI \-name ..."
awk '/^\.TP/ { tp = 1; next }
     tp && /^\.BI? \\-[a-z]/ { s = $2; sub(/^\\-/, "", s); gsub(/\\-/, "-", s); print s }
     { tp = 0 }' "$man" | sort -u > "$tmp/page"
fail=0
for o in $(comm -23 "$tmp/code" "$tmp/page"); do
  echo "FAIL: option -$o is not documented in doc/nagare-solve.1 (add a .TP entry)"; fail=1
done
for o in $(comm -13 "$tmp/code" "$tmp/page"); do
  [ "$o" = version ] || [ "$o" = help-markdown ] && continue
  echo "FAIL: doc/nagare-solve.1 documents -$o, which nagare-solve does not have"; fail=1
done
[ $fail -eq 0 ] || exit 1
echo "PASS: the man page documents all $(wc -l < "$tmp/code") options (the components' tables: $(wc -l < "$tmp/table"))"

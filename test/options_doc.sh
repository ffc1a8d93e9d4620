#!/bin/sh
# test/options_doc.sh: the option documentation comes from the registry
# (the components' tables, core/options.h):
#   1. doc/user-guide.md's option reference, between the marks
#      "<!-- begin: nagare-solve -help-markdown -->" and "<!-- end: ... -->",
#      is exactly what "nagare-solve -help-markdown" prints (regenerate it by
#      pasting the output there);
#   2. every other row "| `-name` | `default` |" of the guide's tables gives
#      the option's default as -help does;
#   3. every option's entry in doc/nagare-solve.1 states its default (the
#      value appears in the entry; an empty default is not checked there).
top="${NG_TOP_BUILDDIR:-.}"
src="$(cd "$(dirname "$0")/.." && pwd)"
guide="$src/doc/user-guide.md"
man="$src/doc/nagare-solve.1"
tmp=${TMPDIR:-/tmp}/ng_options_doc.$$
mkdir -p "$tmp" || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0
"$top/nagare-solve" -help-markdown > "$tmp/md" 2>&1 || { cat "$tmp/md"; echo "FAIL: nagare-solve -help-markdown"; exit 1; }
sed -n '/^<!-- begin: nagare-solve -help-markdown -->$/,/^<!-- end: nagare-solve -help-markdown -->$/p' "$guide" |
  sed '1d;$d' > "$tmp/guide"
[ -s "$tmp/guide" ] || { echo "FAIL: no generated option reference in doc/user-guide.md"; exit 1; }
if ! diff "$tmp/md" "$tmp/guide" > "$tmp/diff"; then
  cat "$tmp/diff"
  echo "FAIL: doc/user-guide.md's option reference differs from nagare-solve -help-markdown (< program, > guide)"
  fail=1
fi
# name and default of each option, from the generated table: "name default"
awk -F' [|] ' '/^[|] `-/ { n = $1; sub(/^[|] `-/, "", n); sub(/`$/, "", n)
                           d = $3; gsub(/`/, "", d); print n "\t" d }' "$tmp/md" > "$tmp/defaults"
# 2. the guide's other tables
sed '/^<!-- begin: nagare-solve -help-markdown -->$/,/^<!-- end: nagare-solve -help-markdown -->$/d' "$guide" |
  awk -F'|' '/^[|] `-[a-z_0-9]*` [|] / { n = $2; gsub(/[ `]/, "", n); sub(/^-/, "", n)
                                         d = $3; gsub(/[ `]/, "", d); print n "\t" d }' > "$tmp/rows"
while IFS='	' read -r name def; do
  want=$(awk -F'\t' -v n="$name" '$1 == n { print $2; f = 1 } END { exit !f }' "$tmp/defaults") ||
    { echo "FAIL: doc/user-guide.md has a row for -$name, which nagare-solve does not have"; fail=1; continue; }
  [ "$def" = "$want" ] || { echo "FAIL: doc/user-guide.md gives -$name the default '$def'; it is '$want'"; fail=1; }
done < "$tmp/rows"
# 3. the man page: each entry's text with roff's escapes undone
while IFS='	' read -r name def; do
  awk -v o="$name" '/^\.(TP|SH|SS)/ { if (on) exit; tp = 1; next }
       tp { s = $2; sub(/^\\-/, "", s); on = ($0 ~ /^\.BI? / && s == o) }
       on { print } { tp = 0 }' "$man" | sed 's/\\-/-/g; s/\\f[BIRP]//g; s/^\.[A-Z]* //' | tr '\n' ' ' > "$tmp/entry"
  [ -s "$tmp/entry" ] || continue # test/man_options.sh reports a missing entry
  [ -z "$def" ] && continue
  grep -qF -- "$def" "$tmp/entry" || { echo "FAIL: the man page's -$name does not give its default '$def'"; fail=1; }
done < "$tmp/defaults"
[ $fail -eq 0 ] || exit 1
echo "PASS: the user guide's option reference is nagare-solve -help-markdown ($(wc -l < "$tmp/defaults") options);" \
  "$(wc -l < "$tmp/rows") other rows and the man page give the same defaults"

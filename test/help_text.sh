#!/bin/sh
# test/help_text.sh: what "nagare-solve -help" and the man page tell a user.
#   1. no -help line is longer than 100 characters;
#   2. neither speaks of development artefacts: "issue N", "seed 0NN" (the
#      benchmark seeds), commit hashes;
#   3. -format's help names every format the man page's -format entry lists;
#   4. -amg_theta's help states the measure of -amg_strength's default;
#   5. every generator core/generate.c knows (NG_KNOWN_PROBLEMS) is named in
#      -problem's help, the man page, the user guide's "Generated problems"
#      and ng_matrix_generate's comment in include/nagare.h.
top="${NG_TOP_BUILDDIR:-.}"
src="$(cd "$(dirname "$0")/.." && pwd)"
man="$src/doc/nagare-solve.1"
tmp=${TMPDIR:-/tmp}/ng_help_text.$$
mkdir -p "$tmp" || exit 99
trap 'rm -rf "$tmp"' EXIT
"$top/nagare-solve" -help > "$tmp/help" 2>&1 || { cat "$tmp/help"; echo "FAIL: nagare-solve -help"; exit 1; }
fail=0
# 1. line length
awk 'length($0) > 100 { printf "FAIL: -help line %d has %d characters (at most 100): %s\n", NR, length($0), $0; bad = 1 }
     END { exit bad }' "$tmp/help" || fail=1
# 2. development artefacts, in -help and in the man page's text (not its
# comment lines). A commit hash: 7 to 40 hex characters with a letter and a digit.
grep -v '^\.\\"' "$man" > "$tmp/man"
for f in help man; do
  if grep -n -i -E 'issue #?[0-9]|issue |seed 0[0-9]' "$tmp/$f"; then
    echo "FAIL: $f speaks of an issue number or a benchmark seed (lines above)"; fail=1
  fi
  tr -c 'a-zA-Z0-9\n' ' ' < "$tmp/$f" | tr ' ' '\n' |
    grep -E '^[0-9a-f]{7,40}$' | grep '[a-f]' | grep '[0-9]' > "$tmp/hashes"
  if [ -s "$tmp/hashes" ]; then
    echo "FAIL: $f holds what looks like a commit hash: $(tr '\n' ' ' < "$tmp/hashes")"; fail=1
  fi
done
# The help text of one option: its head line and the indented lines after it.
option_help() {
  awk -v o="$1" '$0 ~ "^  -" o " <" { on = 1; print; next }
                 on && /^  -/ { exit }
                 on { print }' "$tmp/help" | tr '\n' ' ' | tr -s ' '
}
# 3. -format lists the man page's formats
formats=$(sed -n 's/^\.BI \\-format " \([a-z_|]*\)"$/\1/p' "$man" | tr '|' ' ')
[ -n "$formats" ] || { echo "FAIL: no '.BI \\-format \"...\"' line in the man page"; fail=1; }
fhelp=$(option_help format)
for f in $formats; do
  echo "$fhelp" | grep -q -w "$f" || { echo "FAIL: -format's help does not list $f: $fhelp"; fail=1; }
done
# 4. -amg_theta describes the default strength measure
sdef=$(option_help amg_strength | sed -n 's/.*(default "\([a-z]*\)").*/\1/p')
[ -n "$sdef" ] || { echo "FAIL: no default in -amg_strength's help"; fail=1; }
thelp=$(option_help amg_theta)
echo "$thelp" | grep -q -- "-amg_strength $sdef" ||
  { echo "FAIL: -amg_theta's help does not describe the default measure (-amg_strength $sdef): $thelp"; fail=1; }
if [ "$sdef" = signed ]; then
  echo "$thelp" | grep -q -- "-a_ij >= theta" || { echo "FAIL: -amg_theta's help lacks the signed measure"; fail=1; }
fi
# 5. every generator is documented
problems=$(sed -n 's/^#define NG_KNOWN_PROBLEMS "\(.*\)"$/\1/p' "$src/core/generate.c" | tr -d ',')
[ -n "$problems" ] || { echo "FAIL: no NG_KNOWN_PROBLEMS in core/generate.c"; fail=1; }
phelp=$(option_help problem)
sed -n '/^## Generated problems/,/^## /p' "$src/doc/user-guide.md" > "$tmp/guide"
sed -n '/^\/\* Generate a test problem/,/^ng_status ng_matrix_generate/p' "$src/include/nagare.h" > "$tmp/header"
sed -n '/^\.BI \\-problem/,/^\.TP/p' "$man" > "$tmp/manproblem"
for p in $problems; do
  echo "$phelp" | grep -q -w "$p" || { echo "FAIL: -problem's help does not name $p"; fail=1; }
  grep -q -w "$p" "$tmp/guide" || { echo "FAIL: doc/user-guide.md's Generated problems does not name $p"; fail=1; }
  grep -q -w "$p" "$tmp/header" || { echo "FAIL: ng_matrix_generate's comment in nagare.h does not name $p"; fail=1; }
  grep -q -w "$p" "$tmp/manproblem" || { echo "FAIL: the man page's -problem does not name $p"; fail=1; }
done
[ $fail -eq 0 ] || exit 1
echo "PASS: -help ($(wc -l < "$tmp/help") lines, none over 100 characters) and the man page: no issue numbers," \
  "seeds or hashes; -format lists $(echo $formats | wc -w) formats; generators documented: $problems"

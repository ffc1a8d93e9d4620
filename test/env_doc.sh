#!/bin/sh
# test/env_doc.sh: every NG_* environment variable the library reads (a
# "NG_..." string in the sources of core comm spmv dist solver precond
# smoother amg: getenv("NG_X") or a helper given the name; the status names
# NG_SUCCESS and NG_ERR_* are not variables) is listed, "- `NG_X`", in
# doc/user-guide.md's section "Environment variables: test and measurement
# switches", and that section lists no variable the library does not read.
src="$(cd "$(dirname "$0")/.." && pwd)"
guide="$src/doc/user-guide.md"
tmp=${TMPDIR:-/tmp}/ng_env_doc.$$
mkdir -p "$tmp" || exit 99
trap 'rm -rf "$tmp"' EXIT
for d in core comm spmv dist solver precond smoother amg; do
  for f in "$src/$d"/*.c "$src/$d"/*.cu "$src/$d"/*.h "$src/$d"/*.cuh; do
    [ -f "$f" ] && grep -o '"NG_[A-Z0-9_]*"' "$f"
  done
done | tr -d '"' | grep -v -E '^NG_(SUCCESS|ERR_.*)$' | sort -u > "$tmp/code"
[ -s "$tmp/code" ] || { echo "FAIL: no NG_ variables found under $src"; exit 1; }
sed -n '/^## Environment variables: test and measurement switches$/,/^## /p' "$guide" |
  grep '^- `NG_' | grep -o '`NG_[A-Z0-9_]*`' | tr -d '`' | sort -u > "$tmp/guide"
[ -s "$tmp/guide" ] || { echo "FAIL: no section \"Environment variables: test and measurement switches\" in doc/user-guide.md"; exit 1; }
fail=0
for v in $(comm -23 "$tmp/code" "$tmp/guide"); do
  echo "FAIL: the library reads $v, which doc/user-guide.md's environment section does not list"; fail=1
done
for v in $(comm -13 "$tmp/code" "$tmp/guide"); do
  echo "FAIL: doc/user-guide.md's environment section lists $v, which the library does not read"; fail=1
done
[ $fail -eq 0 ] || exit 1
echo "PASS: the $(wc -l < "$tmp/code") NG_* variables the library reads are listed in doc/user-guide.md"

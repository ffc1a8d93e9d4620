#!/bin/sh
# test/layering.sh: the library's folders form layers without cycles (issue
# 33), and their #include lines say so. Layers, lowest first:
#   core  <  comm, spmv  <  dist  <  precond  <  solver  <  smoother  <  amg
# (include/, the public header, is below them all). Every .c/.h/.cu/.cuh
# file of these folders may include headers of its own folder or of lower
# layers only; comm and spmv, side by side, include neither the other.
# A quoted include resolves as the compiler finds it: relative to the
# including file's folder ("halo.h", "../spmv/spmv.h"), else through the -I
# paths (core/, include/); names found nowhere (config.h, made by
# configure) are not the library's folders and are skipped.
# Fails, printing file:line, on every include of a higher (or a sideways)
# layer that the list of exceptions below does not name, and on every
# listed exception that no longer occurs (so that the list stays honest).
# POSIX sh and tools; sources found relative to this script (make distcheck
# runs it from a separate build tree).
src="$(cd "$(dirname "$0")/.." && pwd)" || exit 99
folders="core comm spmv dist precond solver smoother amg"

# Known exceptions, one "file included-header" a line, as written in the
# file. None left: the smoothers work on a level of their own and read
# their own options (smoother/level.h, issue 33 item 2).
exceptions=''

rank() { # folder -> layer (empty: not a library folder)
  case $1 in
    include) echo 0 ;; core) echo 1 ;; comm | spmv) echo 2 ;; dist) echo 3 ;; precond) echo 4 ;;
    solver) echo 5 ;; smoother) echo 6 ;; amg) echo 7 ;; *) echo "" ;;
  esac
}

# resolve DIR NAME -> the top folder (under $src) holding the header, or nothing
resolve() {
  for base in "$1" core include; do
    if [ -f "$src/$base/$2" ]; then
      d=$(cd "$src/$base/$(dirname "$2")" && pwd) || return
      d=${d#"$src"/}
      echo "${d%%/*}"
      return
    fi
  done
}

[ -d "$src/core" ] || { echo "FAIL: no $src/core"; exit 99; }
bad=0
seen=""
checked=0
for dir in $folders; do
  for f in "$src/$dir"/*.c "$src/$dir"/*.h "$src/$dir"/*.cu "$src/$dir"/*.cuh; do
    [ -f "$f" ] || continue
    rel="$dir/${f##*/}"
    checked=$((checked + 1))
    mine=$(rank "$dir")
    # "line:name" of each quoted include
    incs=$(awk '/^[ \t]*#[ \t]*include[ \t]*"/ { s = $0; sub(/^[^"]*"/, "", s); sub(/".*/, "", s); print FNR ":" s }' "$f")
    for li in $incs; do
      line=${li%%:*}
      name=${li#*:}
      to=$(resolve "$dir" "$name")
      [ -n "$to" ] || continue
      theirs=$(rank "$to")
      [ -n "$theirs" ] || continue
      if [ "$theirs" -gt "$mine" ] || { [ "$theirs" -eq "$mine" ] && [ "$to" != "$dir" ]; }; then
        if printf '%s\n' "$exceptions" | grep -qxF "$rel $name"; then
          seen="$seen$rel $name
"
          echo "known: $rel:$line: includes $name ($to above $dir; listed exception)"
        else
          echo "FAIL $rel:$line: includes $name: $to is not below $dir"
          bad=$((bad + 1))
        fi
      fi
    done
  done
done
[ "$checked" -gt 0 ] || { echo "FAIL: no sources found under $src"; exit 1; }

# every listed exception must still occur
while IFS= read -r ex; do
  [ -n "$ex" ] || continue
  if ! printf '%s' "$seen" | grep -qxF "$ex"; then
    echo "FAIL: the listed exception \"$ex\" no longer occurs: remove it from test/layering.sh"
    bad=$((bad + 1))
  fi
done <<EOF
$exceptions
EOF

echo "$checked files checked, $bad problems"
[ "$bad" -eq 0 ]

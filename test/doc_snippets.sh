#!/bin/sh
# test/doc_snippets.sh: the programs in README.md and doc/user-guide.md are
# real. Each fenced block right after a line "<!-- snippet: NAME.c -->" (or
# NAME.f90) is written to NAME.c, compiled against nagare, and run on 1 rank
# and (MPI builds) on 2 ranks; it must exit 0. A C snippet that includes
# nagare_petsc.h is a PETSc program. The compile commands come from the
# environment (test/installcheck.sh: pkg-config flags of the installed
# library) or else from test/snippet-env.sh (make check: this build tree):
#   SNIP_CC ... SNIP_C_LIBS          C
#   SNIP_FC ... SNIP_F_LIBS          Fortran (SNIP_FC empty: not built)
#   SNIP_PETSC_CC ... SNIP_PETSC_LIBS PETSc (SNIP_PETSC_CC empty: not built)
# Snippets of a language or plug-in the build lacks are skipped, saying so.
top="${NG_TOP_BUILDDIR:-.}"
here="$(cd "$(dirname "$0")" && pwd)"
src="$(dirname "$here")"
if [ -z "$SNIP_CC" ]; then
  [ -f "$top/test/snippet-env.sh" ] || { echo "FAIL: no SNIP_CC and no $top/test/snippet-env.sh"; exit 1; }
  . "$top/test/snippet-env.sh"
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
tmp=${TMPDIR:-/tmp}/ng_snippets.$$
mkdir -p "$tmp" || exit 99
trap 'rm -rf "$tmp"' EXIT

# Extract: prints "FILE NAME" per snippet; a marker not followed by a fence
# (blank lines allowed) or a name used twice is an error.
for doc in "$src/README.md" "$src/doc/user-guide.md"; do
  awk -v dir="$tmp" -v doc="${doc#"$src"/}" '
    function fail(msg) { print "FAIL: " doc ":" FNR ": " msg; bad = 1; exit 1 }
    /^<!-- snippet: [A-Za-z0-9_.-]+ -->$/ { if (want || fence) fail("marker inside a snippet"); name = $3; want = 1; next }
    /^<!-- snippet:/ { fail("malformed snippet marker (want <!-- snippet: NAME.c -->)") }
    want && /^```/ { want = 0; fence = 1; out = dir "/" name
                     if (system("test -e \"" out "\"") == 0) fail("snippet name " name " used twice")
                     printf "" > out; next }
    want && !/^[ \t]*$/ { fail("snippet " name ": no fenced code block after the marker") }
    fence && /^```[ \t]*$/ { fence = 0; close(out); print doc, name; next }
    fence { print > out }
    END { if (!bad && (want || fence)) fail("snippet " name " not closed") }' "$doc" >> "$tmp/list" ||
    { grep "^FAIL" "$tmp/list"; exit 1; }
done

fail=0; ran=0; skipped=0
while read -r doc name; do
  base=${name%.*}
  case "$name" in
    *.f90) cmd="$SNIP_FC"; libs="$SNIP_F_LIBS"; kind=Fortran ;;
    *.c) if grep -q "nagare_petsc.h" "$tmp/$name"; then cmd="$SNIP_PETSC_CC"; libs="$SNIP_PETSC_LIBS"; kind=PETSc
         else cmd="$SNIP_CC"; libs="$SNIP_C_LIBS"; kind=C; fi ;;
    *) echo "FAIL: $doc: snippet $name: unknown language (.c or .f90)"; fail=1; continue ;;
  esac
  if [ -z "$cmd" ]; then echo "skipped: $doc: $name ($kind not built)"; skipped=$((skipped + 1)); continue; fi
  # shellcheck disable=SC2086 # the commands are word lists
  if ! (cd "$tmp" && $cmd -o "$base" "$name" $libs) > "$tmp/$base.cc.log" 2>&1; then
    cat "$tmp/$base.cc.log"; echo "FAIL: $doc: snippet $name does not compile ($kind)"; fail=1; continue
  fi
  if ! (cd "$tmp" && "./$base") < /dev/null > "$tmp/$base.out" 2>&1; then
    cat "$tmp/$base.out"; echo "FAIL: $doc: snippet $name exits with an error"; fail=1; continue
  fi
  sed "s|^|  $name: |" "$tmp/$base.out"
  (cd "$tmp" && "$here/mpi-run.sh" 2 "./$base") < /dev/null > "$tmp/$base.out2" 2>&1
  rc=$?
  if [ $rc -ne 0 ] && [ $rc -ne 77 ]; then
    cat "$tmp/$base.out2"; echo "FAIL: $doc: snippet $name on 2 ranks (exit $rc)"; fail=1; continue
  fi
  [ $rc -eq 0 ] && sed "s|^|  $name (2 ranks): |" "$tmp/$base.out2"
  echo "ok: $doc: $name ($kind)"
  ran=$((ran + 1))
done < "$tmp/list"
# the guide must keep its time-stepping, Fortran and PETSc programs
for k in 'step' '.f90' 'petsc'; do
  grep -q "$k" "$tmp/list" || { echo "FAIL: no snippet whose name has '$k' (time-stepping C, Fortran, PETSc)"; fail=1; }
done
[ $fail -eq 0 ] || exit 1
echo "PASS: $ran snippets compiled and ran, $skipped skipped"

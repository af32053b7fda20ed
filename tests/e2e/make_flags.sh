#!/bin/bash
# make_flags.sh - objects are compiled again when the flags they were
# compiled with change: `make NO_BLAS=1` and then `make` (or OpenBLAS
# installed in between) must not link objects of both into one program.
# Builds two objects in a build folder of its own (make B=...), so that the
# checkout's build is not touched. Prints "ok - name" / "not ok - name".
# tier: quick
# asan: no
set -u
T=$(mktemp -d "${TMPDIR:-/tmp}/attnviz-flags.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
fail=0
ok() { echo "ok - $1"; }
bad() { echo "not ok - $1 ($2)"; fail=1; }
objs="$T/src/core/rng.o $T/src/core/mat.o"
# up_to_date [VAR=VALUE...]: whether make would do nothing for the objects
up_to_date() { make -s -q B="$T" "$@" $objs >/dev/null 2>&1; }

make -s B="$T" $objs >"$T/log" 2>&1 || { bad "build" "$(tail -1 "$T/log")"; exit 1; }
if up_to_date; then ok "built with the same flags: nothing to do"; else
    bad "same flags" "make would compile again"; fi
[ "$(stat -c %y "$T/flags")" = "$(up_to_date; stat -c %y "$T/flags")" ] &&
    ok "the flags file is left as it is when nothing changed" ||
    bad "flags file" "rewritten with the same flags"

make -s B="$T" NO_BLAS=1 $objs >"$T/log" 2>&1 || { bad "NO_BLAS=1 build" "$(tail -1 "$T/log")"; }
grep -q -- '-DNO_BLAS' "$T/flags" && ok "NO_BLAS=1 recorded: $(grep -o -- '-DNO_BLAS' "$T/flags")" ||
    bad "NO_BLAS=1" "flags file: $(cat "$T/flags")"
if up_to_date; then bad "back to the default flags" "make would keep the NO_BLAS objects"; else
    ok "back to the default flags: the NO_BLAS objects are compiled again"; fi
make -s B="$T" $objs >"$T/log" 2>&1 || bad "rebuild" "$(tail -1 "$T/log")"
# mat.o names OpenBLAS's functions only when it was compiled with it
if ! grep -q 'no BLAS' <(./attnviz --version 2>&1); then
    nm "$T/src/core/mat.o" | grep -q 'U openblas_get_corename' &&
        ok "mat.o compiled again with OpenBLAS" || bad "mat.o" "no call of openblas_get_corename"
fi
exit $fail

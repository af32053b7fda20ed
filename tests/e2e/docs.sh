#!/bin/bash
# docs.sh - the documentation keeps up with the program: every long option
# that --help lists is in the man page and in README.md, and the man page
# renders without warnings.
# Prints "ok - name" / "not ok - name"; exits non-zero on a failure.
set -u
BIN=${ATTNVIZ:-$PWD/attnviz}
fail=0
opts=$("$BIN" --help | grep -oE -- '--[a-z][a-z-]+' | sort -u)
[ -n "$opts" ] || { echo "not ok - --help lists options"; exit 1; }
for o in $opts; do
    if grep -q -- "Fl -${o#--}" attnviz.1 && grep -q -- "$o" README.md; then
        echo "ok - $o is in attnviz.1 and README.md"
    else
        echo "not ok - $o is missing from attnviz.1 or README.md"; fail=1
    fi
done
# The man page renders without warnings.
if command -v mandoc >/dev/null 2>&1; then
    out=$(mandoc -T lint -W warning attnviz.1 2>&1)
    [ -z "$out" ] && echo "ok - mandoc -T lint" || { echo "not ok - mandoc: $out"; fail=1; }
elif command -v man >/dev/null 2>&1; then
    MANWIDTH=80 man -l attnviz.1 2>&1 >/dev/null | grep -q . &&
        { echo "not ok - man -l attnviz.1 warns"; fail=1; } || echo "ok - man -l attnviz.1 renders"
fi
exit $fail

#!/bin/sh
# gen-sentences.sh IN OUT - turn assets/sentences.txt into a C string literal
# (one "line\n" per line) that src/sentences.c includes as the built-in list.
set -eu
tmp="$2.tmp"
{
    echo "/* generated from $1 by scripts/gen-sentences.sh: do not edit */"
    sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$/\\n"/' "$1"
} >"$tmp"
mv "$tmp" "$2"

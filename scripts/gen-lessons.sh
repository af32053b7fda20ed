#!/bin/sh
# gen-lessons.sh OUT FILE... - compile the built-in lessons (assets/lessons/
# NN-name.lesson) into a C include that src/io/lesson/lesson_builtin.c takes when it
# is on the include path: LESSON_BUILTIN_N, the names ("name" from
# "NN-name.lesson") and the texts as string literals, in the order given
# (the Makefile passes them sorted by file name).
set -eu
out=$1
shift
tmp="$out.tmp"
{
    echo "/* generated from assets/lessons by scripts/gen-lessons.sh: do not edit */"
    echo "#define LESSON_BUILTIN_N $#"
    echo "static const char *const lesson_builtin_names[] = {"
    for f in "$@"; do
        name=$(basename "$f" .lesson | sed 's/^[0-9]*-//')
        echo "    \"$name\","
    done
    echo "};"
    echo "static const char *const lesson_builtin_texts[] = {"
    for f in "$@"; do
        # '?' escaped too: no trigraph can form under -std=c11
        sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/?/\\?/g' -e 's/^/    "/' \
            -e 's/$/\\n"/' "$f"
        echo "    ,"
    done
    echo "};"
} >"$tmp"
mv "$tmp" "$out"

#!/bin/bash
# layers.sh - the house's order (README "Architecture") checked on the tree and
# shown to bite: scripts/layers.py passes on the repository, and fails on a
# copy of it with an include that goes up a layer, a circle of includes,
# <curses.h> outside src/ui/, <cblas.h> outside src/core/mat.c, a .c file
# directly in src/, a folder of more than 16 .c files, or threads or
# intrinsics in src/core/ outside fast/. Prints "ok - ..." / "not ok - ...". Run from the root.
# tier: test
# asan: no (it checks scripts/layers.py, not the program)
set -u
ok() { echo "ok - $1"; }
notok() { echo "not ok - $1"; }
PY=$(command -v python3 || echo /usr/bin/python3)
LAYERS="core io train render app ui cli"

if out=$("$PY" scripts/layers.py $LAYERS 2>&1); then
    ok "layers: the repository's includes point down ($(echo "$out" | tail -1))"
else
    notok "layers: the repository breaks the order: $(echo "$out" | head -3 | tr '\n' ' ')"
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/attnviz-layers.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# expect_fail NAME WHAT-THE-MESSAGE-SAYS EDIT...: a fresh copy, one edit, must fail
expect_fail() {
    local name=$1 want=$2
    shift 2
    rm -rf "$tmp/t" && mkdir -p "$tmp/t" && cp -r src include scripts "$tmp/t/" || return
    (cd "$tmp/t" && eval "$@")
    if out=$(cd "$tmp/t" && "$PY" scripts/layers.py $LAYERS 2>&1); then
        notok "layers: $name is not caught"
    elif echo "$out" | grep -q -- "$want"; then
        ok "layers: $name fails lint ($(echo "$out" | grep -m1 -- "$want"))"
    else
        notok "layers: $name fails, but not for the right reason: $out"
    fi
}

expect_fail "core including render" "layer render is above core" \
    "sed -i '0,/#include \"core\\/model.h\"/s//#include \"core\\/model.h\"\\n#include \"render\\/grid.h\"/' src/core/model/model.c"
expect_fail "io including ui" "layer ui is above io" \
    "sed -i '0,/#include \"io\\/npy.h\"/s//#include \"io\\/npy.h\"\\n#include \"ui\\/ui.h\"/' src/io/npy.c"
expect_fail "a circle between two core modules" "a circle of includes" \
    "sed -i 's|#include <stddef.h>|#include <stddef.h>\\n#include \"core/embed.h\"|' include/core/tokenize.h"
expect_fail "curses in the render layer" "outside src/ui/" \
    "sed -i 's|#include <math.h>|#include <math.h>\\n#include <curses.h>|' src/render/heatmap.c"
expect_fail "cblas outside mat.c" "outside src/core/mat.c" \
    "sed -i 's|#include <math.h>|#include <math.h>\\n#include <cblas.h>|' src/core/posenc.c"
expect_fail "a .c file directly in src/" "outside the layers" \
    "printf 'int x;\\n' > src/stray.c"
expect_fail "a seventeenth .c file in a folder" "more than 16" \
    "for k in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17; do printf 'int x\$k;\\n' > src/render/extra\$k.c; done"
expect_fail "threads in core outside fast/" "outside src/core/fast/" \
    "sed -i 's|#include <math.h>|#include <math.h>\\n#include <pthread.h>|' src/core/posenc.c"
expect_fail "a vector type in GPT-2's maths" "outside src/core/fast/" \
    "printf 'typedef float V8 __attribute__((vector_size(32)));\\n' >> src/core/gpt2/gpt2_ref.c"
exit 0

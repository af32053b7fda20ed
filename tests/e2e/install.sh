#!/bin/bash
# install.sh - `make install` into a fresh prefix gives a program that works
# away from the checkout: the built-in lessons that open the project's own
# weights and models (dot-product, softmax and cat-eats-fish: assets/seed*,
# induction and lens: assets/models) check clean from /, as they do in the checkout, and their
# handouts carry the model's settings; `make uninstall` takes it all away.
# Installs the checkout's plain build (make install), whatever $ATTNVIZ is.
# Prints "ok - name" / "not ok - name". Run from the repository root.
# tier: test
# asan: no
set -u
T=$(mktemp -d "${TMPDIR:-/tmp}/attnviz-install.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
fail=0
ok() { echo "ok - $1"; }
bad() { echo "not ok - $1 ($2)"; fail=1; }

make -s install PREFIX="$T/usr" >"$T/log" 2>&1 || { bad "make install" "$(tail -1 "$T/log")"; exit 1; }
A=$T/usr/bin/attnviz
[ -x "$A" ] && [ -f "$T/usr/share/man/man1/attnviz.1" ] &&
    [ -f "$T/usr/share/attnviz/assets/models/chars/model.json" ] &&
    ok "installed: the binary, the man page and share/attnviz/assets" ||
    bad "make install" "$(find "$T/usr" -maxdepth 4 | head -8 | tr '\n' ' ')"

for lesson in dot-product softmax cat-eats-fish induction lens; do
    out=$(cd / && timeout 120 "$A" --lesson "$lesson" --check --size 80x24 2>&1)
    rc=$?
    [ $rc -eq 0 ] && ok "installed, from /: --lesson $lesson --check is clean" ||
        bad "installed --lesson $lesson --check" "exit $rc: $(printf '%s' "$out" | head -2 | tr '\n' '|')"
done
md=$(cd / && "$A" --lesson lens --export md 2>&1)
# the character model's own width, read from the installed model.json
if grep -q '^\*Settings:\* ; ' <<<"$md" || ! grep -q '^\*Settings:\* "The cat.*d_model 64,' <<<"$md"; then
    bad "installed lens handout" "$(grep -m1 'Settings' <<<"$md")"
else
    ok "installed lens handout names the model: $(grep -m1 -o 'Settings:.\{0,60\}' <<<"$md")"
fi

make -s uninstall PREFIX="$T/usr" >"$T/log" 2>&1 || bad "make uninstall" "$(tail -1 "$T/log")"
left=$(find "$T/usr" -type f | head -3)
[ -z "$left" ] && ok "make uninstall leaves no file" || bad "make uninstall" "left: $left"
exit $fail

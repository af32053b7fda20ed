#!/bin/bash
# tui_lesson_export.sh - exports from the interface before a lesson's reveal:
# on cat-eats-fish's page 6 ("How much of its attention does Cat give to
# fish?", the weights shown as '?') ^O wrote attnviz-head1-....txt with Cat's
# row "38 30 32", the answer, in it (^X and G too). Now the three are
# refused with a line until the reveal, and work after it.
# tier: test
# asan: no
cd "$(dirname "$0")/../.." || exit 1
. tests/e2e/lib/tui.sh
tui_init lesson_export
export LC_ALL=C.UTF-8

tui_start TERM=xterm-256color 80 24 --lesson cat-eats-fish
for _ in 1 2 3 4 5; do keys n; done
wait_for '^Lesson 6/8: ' && settle
for k in G C-o C-x; do
    keys "$k" && settle
    check "$k before the reveal: refused with a line" \
        eval 'screen | grep -q "^no export before the reveal: it would show the hidden answer"'
done
check "... and no file written: \"$(ls "$WORK" | tr '\n' ' ')\"" \
    eval '! ls "$WORK" | grep -q "^attnviz-"'
keys -l 32 && keys Enter && wait_for 'answer: 32.2%' && settle
keys C-o && wait_for '^wrote attnviz-head1-'
f=$(ls "$WORK"/attnviz-head1-*.txt 2>/dev/null | head -1)
check "after the reveal ^O writes the head: Cat's row 38 30 32" \
    eval '[ -n "$f" ] && grep -Eq "^1 Cat +38 +30 +32" "$f"'
keys q && wait_for 'EXITED:0' || notok "q: $(screen | tail -2)"
exit $fail

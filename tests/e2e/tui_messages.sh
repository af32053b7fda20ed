#!/bin/bash
# tui_messages.sh - a line that answers one key goes with the next key, at
# 80x24, 100x30 and 120x40. Esc at the top level ("Esc backs out of views,
# panels and the editor; ...") stayed on the status line until another
# message replaced it, and so did C's lines ("cross-attention: ...",
# "self-attention: one sentence ...") through clicks and cell selection.
# tier: test
# asan: no
cd "$(dirname "$0")/../.." || exit 1
. tests/e2e/lib/tui.sh
tui_init messages
export LC_ALL=C.UTF-8

for size in "80 24" "100 30" "120 40"; do
    set -- $size
    at="$1x$2"
    tui_start TERM=xterm-256color "$1" "$2" 'The cat sat on the mat'
    keys Escape && settle
    check "$at: Esc at the top level says how to quit" eval 'screen | grep -q "Esc backs out of views"'
    keys Down && settle
    check "$at: ... and the line goes with the next key (Down)" \
        eval '! screen | grep -q "Esc backs out of views"'
    keys C && settle
    check "$at: C says cross-attention is on" eval 'screen | grep -q "cross-attention: queries"'
    keys Right && settle
    check "$at: ... and the line goes with the next key (Right)" \
        eval '! screen | grep -q "cross-attention: queries"'
    keys Escape && settle
    check "$at: Esc leaves cross-attention and says so" \
        eval 'screen | grep -q "self-attention: one sentence"'
    # a click on a cell of the heatmap: row 8, column 20 (1-based)
    keys -l $'\e[<0;20;8M\e[<0;20;8m' && settle
    check "$at: ... and the line goes with a click" \
        eval '! screen | grep -q "self-attention: one sentence"'
    keys C && settle && keys C && settle
    check "$at: C twice: self-attention again" eval 'screen | grep -q "self-attention: one sentence"'
    keys Left && settle
    check "$at: ... and the line goes with the next key (Left)" \
        eval '! screen | grep -q "self-attention: one sentence"'
    keys q && wait_for 'EXITED:0' && ok "$at: q quits with status 0" || notok "$at: q: $(screen | tail -2)"
done
exit $fail

#!/bin/bash
# tui_long.sh - a long text in the interface, read off the screen under
# tmux: a 2,100-token file loads whole (the editor has no 4096-byte cap), the
# focused head shows every token pooled with range labels and a readout of
# tokens per cell, zooms in to one token a row (token labels) and back out,
# scrolls, switches max/mean pooling, computes the weights on demand when
# they are not kept, falls back to one row a cell in glyph mode, and stays
# responsive; the cost readout follows typing.
# Prints "ok - name" / "not ok - name"; exits non-zero on a failure.
# tier: test
# asan: no
set -u
WAIT_TICKS=200 # a long text's first run takes a while
. "$(dirname "$0")/lib/tui.sh"
tui_init long
# The mechanics below are checked on random heads (the batch default); the
# interface's own default (designed heads) is tui_examples.sh's.
RANDOM_HEADS="--preset random"
start() { # ENV W H ARGS...
    local env=$1 w=$2 h=$3; shift 3
    tui_start "$env TERM=xterm-256color" "$w" "$h" $RANDOM_HEADS "$@"
}
# The time of the last key (update and drawing) from the status line, in ms.
key_ms() { screen | tail -1 | grep -oE '[0-9]+\.[0-9]+ ms$' | awk '{print int($1)}'; }

# 2,100 tokens: 1,050 lines of "wordK wordK+1", about 15 KB (> the old 4096 bytes).
awk 'BEGIN { for (k = 0; k < 1050; k++) printf "w%d w%d\n", k * 2 + 1, k * 2 + 2 }' \
    > "$WORK/long.txt"
start "" 120 40 -f "$WORK/long.txt"
check "the whole file is loaded: 2100 tokens" wait_for ' tokens 2100 '
check "the focused head is pooled: range labels" wait_for '^ *▶1-[0-9]+ +▀'
check "a readout of the tokens each cell covers" wait_for 'a row: [0-9]+-?[0-9]* tokens \(▀ 2 cells\), a column: [0-9]+'
check "every token is shown" wait_for 'rows 1-2100, cols 1-2100'
check "the small heads are pooled too, with their entropy" wait_for '[0-9]\.[0-9]{2}b \.[0-9]{2}'
check "the cost readout: n 2100, n² 4.4M" wait_for 'Cost: n 2100 \| n² 4\.4M \| weights 67\.3 MiB'
keys Down
check "Down moves a screen row: the second range is selected" wait_for '^ *▶[0-9]+-[0-9]+ '
check "... and its bars are shown" wait_for 'Token [0-9]+ w[0-9]+ attends to'
ms=$(key_ms)
check "Down on 2100 tokens redraws in under 250 ms (took $ms ms)" test "${ms:-9999}" -lt 250

keys z
check "z zooms in: half the tokens" wait_for 'zoom 1 '
check "... 1050 of them around the selection" wait_for 'rows 1-1050, cols 1-1050'
for _ in 1 2 3 4 5 6 7 8; do keys z; done
check "zoomed in to one token a row: token labels" wait_for '^ *▶?[0-9]+ w[0-9]+ '
check "the readout says one token a row" wait_for 'a row: 1 token, a column: 1'
keys End
check "End scrolls to the last token" wait_for '▶2100 w2100'
keys Z
check "Z zooms out again" wait_for 'a row: [0-9]+-?[0-9]* tokens'
keys 0
check "0 shows every token again" wait_for 'rows 1-2100, cols 1-2100'
keys a
check "a: mean pooling" wait_for 'mean pooling'
keys a
check "a: max pooling again" wait_for 'max pooling'

# A click on a pooled row label selects its first token.
s=$(screen)
y=$(echo "$s" | grep -nE '^ *.?[0-9]+-[0-9]+ +▀' | sed -n 3p | cut -d: -f1)
first=$(echo "$s" | sed -n "${y}p" | grep -oE '[0-9]+-' | head -1 | tr -d -)
keys -l $'\e[<0;4;'"$y"'M'$'\e[<0;4;'"$y"'m'
check "a click on the range ${first}- selects token $first" wait_for "Token $first w$first attends to"

# Typing at the end of the long text: the cost follows; keys stay quick.
keys e End
keys -l ' extra'
check "typing a token: n 2101" wait_for 'Cost: n 2101 '
keys Enter
keys w
check "the trace of a token of the long text" wait_for 'Calculation trace: head 1 of 4'
settle
keys Escape
# q only once Escape has been taken: an Escape and a q read within ncurses'
# escape delay are one key, Alt-q, which does not quit
check "Escape backs out of the trace to the selected row's bars" \
    wait_for 'Token 2101 extra attends to'
settle
keys q
check "q quits with status 0" wait_for 'EXITED:0'

# Weights too big to keep (a budget of 1 MiB): computed on demand, same view.
start "" 120 40 --budget 1 -f "$WORK/long.txt"
check "on demand: the pooled view" wait_for '^ *▶1-[0-9]+ +▀'
check "on demand: the selected row's bars" wait_for 'Token 1 w1 attends to'
check "on demand: entropy (sampled rows, ~)" wait_for 'entropy ~[0-9]+\.[0-9]+ bits'
keys m
check "on demand: the mask recomputes the cells" wait_for 'mask on'
keys b
check "on demand: side by side pooled" wait_for 'mask off.*│.*mask ON'
keys q
wait_for 'EXITED:0'

# Glyph mode: one row a cell, shade glyphs, range labels.
start "" 100 30 --color never -f "$WORK/long.txt"
check "glyph mode: one row a cell with shade glyphs" wait_for '^ *▶1-[0-9]+ +[·░▒▓█]{8}'
check "glyph mode: no half blocks" bash -c "! tmux -L $SOCK capture-pane -p -t s | grep -q '▀'"
keys q
check "q quits with status 0 (glyph mode)" wait_for 'EXITED:0'
exit $fail

#!/bin/bash
# tui_lens_cost.sh - the cost line after typing with the logit lens open, on a
# small random GPT-2 checkpoint (scripts/gpt2-checkpoint.py, its own small
# tokenizer) at 80x24, 100x30 and 120x40. The key path runs the forward of
# the new rows; the lens of them then runs on a thread that computes no
# forward. That thread's finish overwrote the forward's cost with its own
# empty one: "3 computed, 8 cached | thread 0.000 ms", a forward said to
# have run on a thread in no time. The line keeps the key path's forward:
# its rows, and a time not said to be a thread's.
# tier: test
# asan: no
cd "$(dirname "$0")/../.." || exit 1
PY=/usr/bin/python3
if ! "$PY" -c 'import numpy' 2>/dev/null; then
    echo "skip - tui_lens_cost: python3-numpy not installed"
    exit 0
fi
. tests/e2e/lib/tui.sh
tui_init lens_cost
export LC_ALL=C.UTF-8
M=$WORK/g2
if ! "$PY" scripts/gpt2-checkpoint.py "$M" --seed 7 >/dev/null; then
    echo "not ok - tui_lens_cost: gpt2-checkpoint.py failed"
    exit 1
fi
cost() { screen | grep '^Cost: '; }

for size in "80 24" "100 30" "120 40"; do
    set -- $size
    at="$1x$2"
    tui_start TERM=xterm-256color "$1" "$2" --model "$M" 'Hello world'
    wait_for '^Sentence: ' && settle
    keys u && wait_for 'Logit lens: each layer' && settle
    n0=$(screen | grep -o '▼[0-9]*' | head -1)
    keys e End && keys -l ' and more' && keys Enter
    wait_for 'Cost: n 11 ' && settle
    # the lens of the longer text is shown: its thread has finished
    wait_for '▼11 ' && settle
    c=$(cost)
    check "$at: after typing with the lens open ($n0 -> ▼11) the cost line counts the rows computed and cached" \
        grep -Eq '^Cost: n 11 \| .*[1-9] (rows? )?computed, [1-9] cached' <<<"$c"
    check "$at: ... and no forward on a thread: \"$c\"" \
        eval '! grep -Eq "thread|0\.000 ms" <<<"$c"'
    keys Escape && wait_for 'attnviz \| Attention' && settle
    c=$(cost)
    check "$at: back on the heatmaps the cost line is the same forward's: \"$c\"" \
        eval '! grep -Eq "thread|0\.000 ms" <<<"$c"'
    keys q && wait_for 'EXITED:0' && ok "$at: q quits with status 0" || notok "$at: q: $(screen | tail -2)"
done
exit $fail

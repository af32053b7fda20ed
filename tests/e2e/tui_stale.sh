#!/bin/bash
# tui_stale.sh - a view never holds a layer, head or row the result does not
# have (issue 27): the shortest key sequences found that aborted attnviz at
# ba5cf22, each replayed, then a key must still answer and q exit 0.
#   End M n M   a row summed (M) of a longer sentence, the next example shorter:
#               combine_rows_sum asserted on the stale row
#   ">M" at once  more layers (showing the new last one) and M in one burst,
#               taken before the run: model_head_P asserted on layer 2 of a
#               one-layer result
# Prints "ok - name" / "not ok - name"; exits non-zero on a failure.
set -u
. "$(dirname "$0")/lib/tui.sh"
tui_init stale
start() { tui_start TERM=xterm-256color 120 40 "$@"; }
alive() { # a key still answers: m toggles the mask on the status line
    keys m
    wait_for 'mask on' && { keys m; wait_for 'mask off'; }
}
quits() { keys q; wait_for 'EXITED:0'; }

start 'The trophy did not fit in the suitcase because it was too big.'
keys End; settle
keys M
check "M sums the last of 14 rows" wait_for '^1 query summed: '
keys n
check "the next example (11 tokens) replaces the result" wait_for ' tokens 11 '
keys M
check "... M after it sums 1 row: the 14th dropped out" wait_for '^1 query summed: cat '
check "... and a key still answers" alive
check "... and q exits 0" quits

start 'The trophy did not fit in the suitcase because it was too big.'
keys -l '>M' # one read: both taken before the model runs again
check "> and M in one burst: M sums layer 2 of the new result" \
    wait_for '^1 query summed: '
check "... the status line shows layer 2 of 2" wait_for 'layer 2/2'
check "... and a key still answers" alive
check "... and q exits 0" quits
exit $fail

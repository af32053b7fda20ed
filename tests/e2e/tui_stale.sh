#!/bin/bash
# tui_stale.sh - a view never holds a layer, head or row the result does not
# have (issue 27): the shortest key sequences found that aborted attnviz at
# ba5cf22, each replayed, then a key must still answer and q exit 0.
#   End M n M   a row summed (M) of a longer sentence, the next example shorter:
#               combine_rows_sum asserted on the stale row
#   ">M" at once  more layers (showing the new last one) and M in one burst,
#               taken before the run: model_head_P asserted on layer 2 of a
#               one-layer result
#   o Enter ^X  on imported attention (3 layers, 2 heads): a lesson's page set
#               4 heads, the file's result has 2; exporting every head asked
#               for head 3 (model_head_P); the status line then, and after Esc
#               leaves the lesson, shows the file's settings, not the toy model's
#   A e r       on a trained model (--model assets/models/chars): heads combined,
#               then a longer text; the plain run kept the combining view's
#               source over the 24-token run and the title's statistics read
#               row 24 of it (model_head_row)
# Prints "ok - name" / "not ok - name"; exits non-zero on a failure.
# tier: test
# asan: no
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

D=$(cd "$(dirname "$0")/../data/import" && pwd)
start --attention "$D/attn_l3h2n7.npy" --tokens "$D/tokens7.txt"
keys o; wait_for 'Queries, keys and values' && settle
keys Enter; settle
keys C-x
check "a lesson opened on imported attention, then ^X: every head exported" \
    wait_for 'wrote attnviz-heads-.*all heads'
f=$(ls "$WORK"/attnviz-heads-*.txt 2>/dev/null | head -1)
check "... the file's 2 heads, no third" \
    test "$(grep -c '^Head [0-9]* of 2:' "${f:-/dev/null}")" = 2 -a \
    "$(grep -c '^Head' "${f:-/dev/null}")" = 2
keys F1
check "... and a key still answers (the help opens)" wait_for 'F1 closes'
keys F1; settle
# the lesson's pages never set what the file fixes: the status line keeps
# the file's settings in the lesson and after it (it showed the toy model's
# d_model 32, seed 42 and PE on after Esc)
imported_status() {
    screen | tail -1 |
        grep -Eq '^ imported attention \| tokens 7 x 7 \| heads 2 \| mask none \| layer [1-3]/3 ' &&
        ! screen | tail -2 | grep -q 'd_model'
}
check "... in the lesson the status line is the file's" imported_status
keys Escape
check "... leaving it says so" wait_for 'left the lesson'
check "... and the status line is still the file's" imported_status
check "... and q exits 0" quits

M=$(cd "$(dirname "$0")/../../assets/models" && pwd)
start --model "$M/chars" 'the cat sat on the mat. '
keys A
check "heads combined on a trained model" wait_for 'heads combined: mean'
keys e; settle
keys -l r
check "... a typed letter leaves it: the plain run of 25 tokens is shown" \
    wait_for ' tokens 25 .* heads 4 '
keys Enter; settle
keys F1
check "... and a key still answers (the help opens)" wait_for 'F1 closes'
keys F1; settle
check "... and q exits 0" quits
exit $fail

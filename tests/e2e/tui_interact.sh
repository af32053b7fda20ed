#!/bin/bash
# tui_interact.sh - drive the interface under tmux as a person would: typing
# changes the chips, the mask blanks the upper triangle, the selected row's
# percentages equal --export csv, a click selects a cell, exports write new
# files equal to --export text, settings reach the status line, keys with
# nothing to do say why (g, z, ], }), q quits.
# Prints "ok - name" / "not ok - name"; exits non-zero on a failure.
# tier: quick
# asan: no
set -u
. "$(dirname "$0")/lib/tui.sh"
tui_init interact
# The mechanics below are checked on random heads (the batch default); the
# interface's own default (designed heads) is tui_examples.sh's.
RANDOM_HEADS="--preset random"
start() { # W H ARGS...
    local w=$1 h=$2; shift 2
    tui_start TERM=xterm-256color "$w" "$h" $RANDOM_HEADS "$@"
}
# The selected token's bars as "label pct%" lines, sorted.
bars() { screen | grep -oE '[^ ]+ +[0-9]+\.[0-9]%' | awk '{print $1, $2}' | sort; }
# What --export csv says for query row $1 (0-based), unmasked keys only.
csv_row() { # ROW ARGS...
    local row=$1; shift
    "$BIN" --export csv "$@" | awk -F, -v r="$row" \
        'NR > 1 && $2 == r && $7 == 0 {printf "%s %.1f%%\n", $5, $6 * 100}' | sort
}
# Count ╳ in the focused head's row $1 (label "N word"), left of the small heads.
masked_in_row() {
    local s line col
    s=$(screen)
    col=$(echo "$s" | grep -m1 'All [0-9]* heads' | awk '{print index($0, "All ")}')
    line=$(echo "$s" | grep -E -m1 "^ *$1 [^ ]")
    line=${line:0:$((col - 1))} # characters, not bytes
    echo -n "$line" | grep -o '╳' | wc -l
}

TEXT='The cat sat'
start 120 40 "$TEXT"
check "starts with the chips of the sentence" wait_for 'Tokens: +1 The +2 cat +3 sat'

# Typing changes the chips.
keys e
keys -l ' on the mat'
keys Enter
check "typing changes the chips" wait_for '4 on +5 the +6 mat'
settle
TEXT='The cat sat on the mat'

# A keystroke on the heatmaps runs the model up to the weights; the pipeline
# view, opened after typing, needs the heads' outputs and gets them: its
# "8 output" stage equals --export pipeline's.
out_rows() { # the rows of the "8 output" stage, as "label v1 .. v8"
    grep -A7 -E '(^|  )8 output' | grep -oE '[> ][A-Za-z]+( +-?[0-9]*\.[0-9]+){8}$' |
        tr -d '>' | tr -s ' ' | sed 's/^ //'
}
# Rows of the screen ($1) against the export's ($2), value by value, within
# half a unit of the last digit the screen prints (".52", "-1.3", "0.79").
same_rows() {
    /usr/bin/python3 -c '
import sys
a = [l.split() for l in sys.argv[1].splitlines()]
b = [l.split() for l in sys.argv[2].splitlines()]
ok = len(a) == len(b) and len(a) > 0
for ra, rb in zip(a, b):
    ok = ok and ra[0] == rb[0] and len(ra) == len(rb)
    for x, y in zip(ra[1:], rb[1:]):
        d = len(x.split(".")[1]) if "." in x else 0
        ok = ok and abs(float(x) - float(y)) <= 0.5 * 10 ** -d + 0.005
sys.exit(0 if ok else 1)' "$1" "$2"
}
keys S
wait_for 'Pipeline of head 1 of 4' && settle
for _ in 1 2 3; do screen | grep -qE '(^|  )8 output' && break; keys ']'; settle; done
check "the pipeline after typing shows the heads' outputs, equal to --export pipeline" \
    same_rows "$(screen | out_rows)" \
    "$("$BIN" $RANDOM_HEADS --export pipeline --head 1 --token 6 "$TEXT" | out_rows)"
check "...six rows of them" test "$(screen | out_rows | wc -l)" -eq 6
keys S
wait_for 'Tokens: +1 The' && settle

# The causal mask blanks the upper triangle of the focused head.
before=$(masked_in_row 1)
keys m
wait_for 'mask on' && settle
r1=$(masked_in_row 1); r3=$(masked_in_row 3); r6=$(masked_in_row 6)
check "mask off: no masked cells" test "$before" -eq 0
check "mask on: row 1 has 5 masked cells, row 3 has 3, row 6 none" \
    test "$r1-$r3-$r6" = "5-3-0"

# The selected row's percentages equal --export csv (head 2, token 3).
keys Tab Home Down Down
wait_for 'Token 3 .*sat.* attends to \(head 2\)' && settle
check "bars of token 3, head 2, causal equal --export csv" \
    test "$(bars)" = "$(csv_row 2 --head 2 --causal "$TEXT")"
keys m
wait_for 'mask off' && settle
check "bars of token 3, head 2, no mask equal --export csv" \
    test "$(bars)" = "$(csv_row 2 --head 2 "$TEXT")"

# A mouse click on a cell selects it and shows its exact weight.
s=$(screen)
head_y=$(echo "$s" | grep -n 'Head 2 of 4' | head -1 | cut -d: -f1)  # 1-based line
hdr=$(echo "$s" | sed -n "$((head_y + 1))p")
x_on=$(echo "$hdr" | awk '{print index($0, " on ")}')   # 1-based column of the space
y_cat=$(echo "$s" | grep -n '^ *2 cat' | head -1 | cut -d: -f1)
keys -l $'\e[<0;'"$((x_on + 1))"';'"$y_cat"'M'$'\e[<0;'"$((x_on + 1))"';'"$y_cat"'m'
want=$("$BIN" --export csv --head 2 "$TEXT" | awk -F, '$2 == 1 && $4 == 3 {printf "%.6f", $6}')
check "a click on cell (cat, on) shows its weight $want" wait_for "cat → on: weight $want"
check "the clicked cell shows its raw score" wait_for 'raw score q\.k/sqrt\(d_k\) = -?[0-9]+\.[0-9]{4}'

# Exports: the focused head, then again (a new name), then all heads.
keys x
check "export names the file in the status line" wait_for 'wrote attnviz-head2-[0-9]{8}-[0-9]{6}\.txt'
f1=$(ls "$WORK"/attnviz-head2-*.txt 2>/dev/null | head -1)
check "the export file exists" test -n "$f1"
check "the export begins with the sentence it shows" \
    grep -q '^Sentence: 1:The 2:cat' "$f1"
check "... equals --export text --numbers --head 2, sentence included (the screen's percentages)" \
    cmp -s "$f1" <("$BIN" --export text --numbers --head 2 "$TEXT")
keys x
sleep 0.3
check "a second export writes a new file" test "$(ls "$WORK"/attnviz-head2-*.txt | wc -l)" -eq 2
check "the first export is left alone" \
    cmp -s "$f1" <("$BIN" --export text --numbers --head 2 "$TEXT")
keys X
wait_for 'wrote attnviz-heads-' && settle
fa=$(ls "$WORK"/attnviz-heads-*.txt 2>/dev/null | head -1)
check "export of all heads equals --export text --numbers" \
    cmp -s "$fa" <("$BIN" --export text --numbers "$TEXT")

# Settings reach the status line; the help and the PE view open and close.
keys H
check "H: 8 heads, d_k 4 in the status line" wait_for 'heads 8 \| d_k 4'
keys d
check "d: d_model 24, heads fitted to 8" wait_for 'd_model 24 \| heads 8 \| d_k 3'
keys r
check "r: seed 41" wait_for 'seed 41'
keys '?'
check "? opens the help" wait_for 'attnviz keys'
before=$(screen | tail -1 | grep -o 'mask o[nf]*') files=$(ls "$WORK" | wc -l)
keys m x e
check "keys the help does not take are refused where it shows" wait_for 'close the help first \(Esc\)'
keys Escape
check "... and none of them acted under it: mask, file, editor" \
    eval 'sleep 0.3; [ "$(screen | tail -1 | grep -o "mask o[nf]*")" = "$before" ] && [ "$(ls "$WORK" | wc -l)" -eq "$files" ] && ! screen | grep -q "EDITING"'
keys '?'
check "? opens the help again" wait_for 'attnviz keys'
keys Escape
check "Esc closes the help" bash -c "sleep 0.3; ! tmux -L $SOCK capture-pane -p -t s | grep -q 'attnviz keys'"
keys v
check "v opens the positional encodings" wait_for 'PE matrix: row k = token k'
keys v
check "v goes back to attention" wait_for 'Head [0-9]+ of 8'
keys n
check "n loads an example sentence, with its note" wait_for '^[0-9]+/[0-9]+: "Attention (from Scratch|Mechanism|Is All)'

# Keys with nothing to do here say why, and change nothing.
keys g
check "g on attnviz's own heads: why not" wait_for '^g needs a model that predicts tokens'
keys z
check "z on a text that fits: a token a cell already" \
    wait_for '^zoomed in as far as it goes: one token a cell'
keys ']'
check "] on the heatmaps: the PE view's key" wait_for '^\[ and \]: the dimensions the PE view plots'
keys '}'
check "} outside a lesson: what it scrolls" wait_for "^\{ and \}: scroll a lesson's page"
check "... and the heatmap is still the focused head's" eval 'screen | grep -qE "Head [0-9]+ of [0-9]+"'
keys b
check "b: the mask off and on side by side" wait_for 'mask ON'
keys z
check "z there: a token a cell already, said" \
    wait_for '^zoomed in as far as it goes: one token a cell'
keys b

keys q
check "q quits with status 0" wait_for 'EXITED:0'
exit $fail

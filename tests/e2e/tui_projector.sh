#!/bin/bash
# tui_projector.sh - lessons as a class sees them on a projector, at the three
# sizes a teacher meets (80x24, 100x30, 120x40): a lesson opened any way
# selects its page's token before the first frame; the pipeline's page keys
# visit every page in order; what a question page shows before its reveal
# never states its answer; the 80-column screen keeps its hints whole;
# the PE view's similarity whole at 100x30.
# tier: test
# asan: no
. "$(dirname "$0")/lib/tui.sh"
tui_init projector
export LC_ALL=C.UTF-8
ROOT=$PWD
SIZES="80x24 100x30 120x40"

# start W H ARGS...: run $BIN in the repository's folder (the lessons'
# weights are found from there), or in $IN when set (a folder for the
# interface's exports: never the repository), and wait for the status line.
start() {
    local w=$1 h=$2; shift 2
    tui_session "$w" "$h" "cd $(printf '%q' "${IN:-$ROOT}") && env TERM=xterm-256color LC_ALL=C.UTF-8 $FRAME_ENV \
$(printf '%q ' "$BIN" "$@"); echo EXITED:\$?; sleep 60"
    wait_for ' tokens [0-9]' && settle
}
# Run the keys, then let the screen settle.
press() { keys "$@"; settle; }
has() { screen | grep -Eq -- "$1"; }
lacks() { ! screen | grep -Eq -- "$1"; }

# 1. The page's token before the first frame, whichever way the lesson opens.
for size in $SIZES; do
    w=${size%x*} h=${size#*x}
    start "$w" "$h" --lesson specialise
    check "--lesson specialise at $size selects page 1's she" has 'Token 6 she|6 she *[▶>]|she attends'
    check "... and not the first example's it" lacks 'Token 8 it|it attends'
    start "$w" "$h" --lesson causal-mask
    check "--lesson causal-mask at $size selects saw" has 'Token 2 saw|saw attends'
    start "$w" "$h" --lesson "$ROOT/assets/lessons/08-specialise.lesson"
    check "--lesson FILE at $size selects she" has 'Token 6 she|she attends'
done
start 120 40
press o
for _ in $(seq 1 7); do press Down; done
press Enter
check "the list opens specialise on she" has 'Token 6 she|she attends'

# 3. The pipeline's ] and [ visit every page in order at every size.
pages_seen() { screen | grep -o 'page [0-9]* of [0-9]*' | head -n 1; }
for size in $SIZES; do
    w=${size%x*} h=${size#*x}
    start "$w" "$h"
    press S
    total=$(pages_seen | awk '{print $4}')
    seq_fwd="" seq_back=""
    for _ in $(seq 1 "$total"); do seq_fwd="$seq_fwd $(pages_seen | awk '{print $2}')"; press ']'; done
    for _ in $(seq 1 "$total"); do seq_back="$seq_back $(pages_seen | awk '{print $2}')"; press '['; done
    want_fwd=$(seq -s ' ' 1 "$total") want_back=$(seq -s ' ' "$total" -1 1)
    check "pipeline at $size: ] visits${seq_fwd} of $total (want $want_fwd)" \
        test "${seq_fwd# }" = "$want_fwd" -a "${total:-0}" -ge 2
    check "pipeline at $size: [ visits${seq_back}" test "${seq_back# }" = "$want_back"
done

# At projector sizes the pipeline's cells carry their values, and they are
# --dump's: the first example (designed heads, head 5, d_k 32) has its raw
# scores (scores.npy x sqrt(32)), scaled and masked scores and weights
# written in every cell, each equal to the dump within its printed digits.
"$BIN" --preset designed --dump "$WORK/d1" 'The cat sat on the mat because it was tired.' >/dev/null
pipe_check() { # SCREEN STAGE NPY DUMP HEAD [FACTOR]
    /usr/bin/python3 "$(dirname "$0")/lib/pipe_values.py" "$1" "$2" "$4/$3" "$4/tokens.txt" \
        "$5" ${6:+"$6"}
}
for size in $SIZES; do
    w=${size%x*} h=${size#*x}
    start "$w" "$h"
    press S
    total=$(pages_seen | awk '{print $4}')
    for p in $(seq 1 "$total"); do screen >"$WORK/pipe$p"; press ']'; done
    for st in "4 scores.npy 5.656854" "5 scores.npy" "6 scores.npy" "7 weights.npy"; do
        set -- $st
        f=$(grep -l -E "(^|  )$1 (Q_h|÷|no mask|softmax)" "$WORK"/pipe[0-9]* | head -n 1)
        if [ -z "$f" ]; then notok "pipeline at $size: no page shows stage $1"; continue; fi
        if got=$(pipe_check "$f" "$1" "$2" "$WORK/d1" 4 "$3"); then
            ok "pipeline at $size: stage $1's $got cells carry --dump's values"
        else
            notok "pipeline at $size: stage $1: $got"
        fi
    done
done
# scaling's first page at 100x30: raw (panel 4) and scaled (panel 5) side by
# side, both with their values (d_k 256: raw = scaled x 16)
"$BIN" -d 256 -H 1 --dump "$WORK/d2" 'The cat sat on the mat because it was tired' >/dev/null
start 100 30 --lesson scaling
screen >"$WORK/scaling"
pipe_ok() { pipe_check "$@" >/dev/null; }
check "--lesson scaling at 100x30: panel 4's cells carry the raw scores" \
    pipe_ok "$WORK/scaling" 4 scores.npy "$WORK/d2" 0 16
check "... panel 5's the scaled ones" pipe_ok "$WORK/scaling" 5 scores.npy "$WORK/d2" 0

# A page opened by a lesson shows the panels its text names: scaling's page
# 1 speaks of panels 4 (raw) and 5 (scaled).
for size in $SIZES; do
    w=${size%x*} h=${size#*x}
    start "$w" "$h" --lesson scaling
    check "--lesson scaling at $size shows panel 4, the raw scores" has '^4 Q_h K_h\^T: raw'
    check "... and panel 5 beside it" has ' 5 ÷ sqrt\(d_k\)|^5 ÷ sqrt'
done

# 4. No question page states its answer before the reveal, at any size or
# in any state: the lesson checker (lessons_check.sh) draws every page
# off-screen with the interface's own code and finds each form of the answer.

# 7. Choice keys match the choices; a reveal prints numbers to sensible
# precision (scaling's saturated row: 0.00 bits, not 8.782e-12 bits).
start 80 24 --lesson cat-eats-fish
press n; wait_for 'Lesson 2/8: '
check "a question of 3 choices says a-c at 80x24" has 'a-c or Up/Down: choose'
start 80 24 --lesson scaling
press n; press n; press n; wait_for 'Lesson 4/7: '; press Enter
check "an entropy of almost 0 is revealed as 0.00 bits" has 'answer: 0\.00 bits'
check "... never in e-notation" lacks 'answer: [0-9.]+e-'

# At 80x24: the help hint on the top line, every setting of the status line
# (on a second line), every help description whole; bars number a repeated
# token.
start 80 24 'The dog saw a dog.'
check "80x24: the top line ends with the whole help hint" has '\?: help *$'
check "80x24: the status line keeps temperature and layer" has 'temp 1  layer 1/1'
check "... and the sizes" has 'tokens 6  d_model [0-9]+  heads [0-9]+  d_k [0-9]+  seed 42'
check "80x24: bars name a repeated token by its number" has '^ +2 dog +[0-9.]+%'
check "... both of them" has '^ +5 dog +[0-9.]+%'
press '?'
check "80x24: help descriptions whole" has 'back out one level \(never quits\)'
check "... no description cut" lacks '[a-z]… *│'
for size in 100x30 120x40; do
    start "${size%x*}" "${size#*x}"
    check "$size: the status line whole" has 'scaling on( \| |  )temp 1( \| |  )layer 1/1'
done

# --export text and md open with the sentence and its numbered tokens; a
# text export of numbers without colour has no colour ramp for a legend.
check "--export text opens with the sentence" \
    bash -c "'$BIN' --export text 'The cat sat' | head -n 1 | grep -qx 'Sentence: 1:The 2:cat 3:sat'"
check "--export md opens with the sentence" \
    bash -c "'$BIN' --export md 'The cat sat' | head -n 1 | grep -qx 'Sentence: 1:The 2:cat 3:sat'"
check "--export text --numbers without colour: no colour ramp legend" \
    bash -c "! '$BIN' --export text --numbers 'The cat sat' | grep -q '0 *5 *25 *50 *100%' &&
             '$BIN' --export text --numbers 'The cat sat' | grep -q 'cells: weights in per cent'"

# 2. Every lesson page at the three sizes shows its picture and its narration
# whole: the lesson checker (lessons_check.sh) off-screen; that } scrolls the
# narration to its end on the terminal, tui_lessons.sh's walk.

# 5. Example 2's note says what the screen shows: head 1 looks one back, and
# after C cat finds "Le" (the word one back in position), not "chat". The
# note goes when the sentence is edited.
start 120 40
press n
check "example 2's note" has 'cat finds "Le", not "chat"'
check "... head 1: mat looks one back, to the" has 'Token 6 mat attends to' 
check "... its top bar is the, one back" has '^ +the +[5-9][0-9]\.[0-9]%|^ +5 the +[5-9][0-9]\.[0-9]%'
press C
press Up
for _ in 1 2 3 4; do press Up; done
press Down
check "after C, cat's top key is Le, as the note says" has 'Token 2 cat attends to'
check "... Le first in its bars" has '^ +(1 )?Le +[5-9][0-9]\.[0-9]%'
press C
press e; keys -l ' again'; press Escape
check "the note goes when the sentence is edited" lacks 'looks one back'

# 6. Heads combined by sum: the entropy is of the rows normalised and says
# so, never above log2(15) = 3.91 bits; the cells and bars are sums on their
# own scale, 0 to 4 (4 heads), never percentages of a 100% scale (issue 35).
/usr/bin/python3 - "$WORK" <<'PY'
import sys, numpy as np
w = sys.argv[1]
a = np.exp(np.random.default_rng(0).normal(size=(3, 4, 15, 15)) * 3)
np.save(w + "/att.npy", (a / a.sum(-1, keepdims=True)).astype(np.float32))
open(w + "/tok.txt", "w").write("".join("t%d\n" % i for i in range(15)))
PY
# bars_match_cells: every bar of the selected token ("t6   60.5%", or a
# sum "t6   1.51") and its cell in the heatmap's row (61, or 1.5) say the
# same value, to the cell's digits.
bars_match_cells() {
    screen | /usr/bin/python3 -c '
import re, sys
lines = sys.stdin.read().splitlines()
head = next(l for l in lines if re.match(r"^ +t0 +t1 ", l))
cols = {m.group(1): m.start() for m in re.finditer(r"(t\d+)", head)}  # a cell starts at its label
sel = next(re.search(r"Token (\d+) (\S+) attends", l) for l in lines if " attends to" in l)
row = next(l for l in lines if re.match(r"^ *%s %s " % (sel.group(1), sel.group(2)), l))
bars = [m for l in lines
        for m in [re.search(r"(t\d+) +(\d+\.\d%|\d+\.\d\d ) *[█▉▊▋▌▍▎▏]", l)] if m]
ok = len(bars) >= 5
for b in bars:
    cell = row[cols[b.group(1)]:cols[b.group(1)] + 5].split()
    v = b.group(2).strip()
    if v.endswith("%"):  # a weight: the cell its percentage
        ok = ok and cell and abs(int(cell[-1]) - float(v[:-1])) <= 0.5 + 1e-9
    else:  # a sum: the cell the sum, to its digits (".61", "1.5", "0")
        d = cell[-1].split(".")[-1] if cell and "." in cell[-1] else ""
        ok = ok and cell and abs(float(cell[-1]) - float(v)) <= 0.5 * 10 ** -len(d) + 1e-9
sys.exit(0 if ok else 1)'
}
start 120 40 --attention "$WORK/att.npy" --tokens "$WORK/tok.txt"
press A
check "mean of heads: says so, and its rows sum to 1 (no normalising)" \
    has '^4 heads combined: mean, layer 1 of 3  entropy [0-9.]+ bits, mean top weight'
check "... bars and cells agree" bars_match_cells
press A
check "max of heads: says what it shows, and its entropy that the rows are normalised" \
    has '^4 heads combined: max, layer 1 of 3  entropy [0-9.]+ bits \(rows normalised\)'
ent=$(screen | grep -o 'entropy [0-9.]* bits' | head -n 1 | awk '{print $2}')
check "... at most log2(15) = 3.91 bits ($ent)" awk -v e="$ent" 'BEGIN { exit !(e > 0 && e <= 3.907) }'
check "... bars and cells agree" bars_match_cells
press A
check "sum of heads: the entropy says the rows are normalised" \
    has '^4 heads combined: sum, layer 1 of 3  entropy [0-9.]+ bits \(rows normalised\)'
ent=$(screen | grep -o 'entropy [0-9.]* bits' | head -n 1 | awk '{print $2}')
check "... and is at most log2(15) = 3.91 bits ($ent)" awk -v e="$ent" 'BEGIN { exit !(e > 0 && e <= 3.907) }'
check "... a sum on its own scale: the legend says sum, 0 to 4 (4 heads)" \
    eval "has '^sum:' && has '^ +0 +\\.20 +1\\.0 +2\\.0 +4\\.0'"
check "... the title and status line: 4 heads combined, d_k of a head not shown" \
    eval "has '^4 heads combined: sum, layer 1 of 3  entropy' && has 'imported attention.*4 heads combined'"
check "... no bar of a sum is a percentage" lacks '^ +t[0-9]+ +[0-9]+\.[0-9]% '
check "... never \"Head 1 of 1\" nor \"heads 1\"" lacks 'Head 1 of 1|heads 1( |$)'
check "... bars and cells agree" bars_match_cells

# 7. Labels that tell the truth (issue 35) on the 6 designed heads at
# 100x30: the status line says what the one head shown stands for and a
# head's d_k; the rollout's bars are the rollout's; the tiles' captions
# ("2.41b .41") have their key; the title says "mean top weight", not "max".
# Run in the work folder: x below writes its export there.
IN=$WORK start 100 30
check "the tiles' captions (2.41b .41) are explained" \
    has 'entropy \(b(: bits)?\), mean top'
check "the title's statistic is the mean top weight" \
    has '^Head 5 of 6: pronoun -> noun  entropy [0-9.]+ bits, mean top weight 0\.41'
press A
check "A: 6 heads combined, d_k of a head (32), never heads 1 d_k 192" \
    eval "has '6 heads combined +d_k 32' && lacks 'heads 1 |d_k 192'"
check "A: the bars are of the heads combined, not head 1" \
    eval "has 'attends to \\(6 heads combined' && lacks '\\(head 1\\)'"
press x
check "A, x: the export is named for the heads combined, not head 1" \
    wait_for 'wrote attnviz-head-mean-[0-9-]+\.txt \(heads combined: mean over heads\)'
check "... written in the work folder, not the repository" \
    eval 'ls "$WORK"/attnviz-head-mean-*.txt >/dev/null 2>&1 && ! ls "$ROOT"/attnviz-head-mean-*.txt >/dev/null 2>&1'
press O
check "O: the rollout's title and bars name the rollout" \
    eval "has '^Rollout of layers 1-1 \\(6 heads averaged\\)' && has 'attends to \\(rollout' &&
          lacks '\\(head 1\\)|Head 1 of 1'"

# 8. The PE view at 100x30: the example's 11 positions whole in the
# similarity, the line plots above it keeping two dimensions.
start 100 30
press v
check "PE view: the similarity shows all 11 positions" \
    has '^ *[0-9]+ +•11 \.'
check "PE view: two dimensions plotted above it" \
    eval "has 'dim 0 = sin' && has 'dim 1 = cos'"

exit $fail

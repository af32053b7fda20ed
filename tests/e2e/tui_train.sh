#!/bin/bash
# tui_train.sh - the live training view under tmux, as a teacher uses it:
# `attnviz --train induction` trains while the screen stays live until an
# induction head forms (the status line and the plot say when); space
# pauses (the step stops), . makes exactly one step, + and - change the
# speed, s saves to a new folder each time, r starts again with the next
# seed, Esc does not quit the first view but backs out of one opened with W;
# ? shows the view's keys in the help (the interface's key table); from the
# interface a stray key keeps the run, W again resumes it (also after r), a
# key of the interface's (F9, Down) goes back and acts there;
# 80x24, 100x30 and 120x40, monochrome, and a bad task before curses starts.
# tier: test
# asan: no
cd "$(dirname "$0")/../.." || exit 1
. tests/e2e/lib/tui.sh
tui_init train

# The header's step count.
step_now() { screen | sed -n 's/^step \([0-9][0-9]*\).*/\1/p' | head -1; }

start_train() {
    local env=$1 w=$2 h=$3; shift 3
    tui_session "$w" "$h" \
        "env $env LC_ALL=C.UTF-8 $(printf '%q ' "$BIN" "$@"); echo EXITED:\$?; sleep 60"
    wait_for '^Training ' && wait_for '^step [0-9]'
}

# --- a bad task: one line before curses, status 2
out=$("$BIN" --train juggling 2>&1 </dev/null); st=$?
check "unknown task: exit 2" test "$st" = 2
check "unknown task: one line naming the tasks" \
    sh -c '[ "$(printf "%s\n" "$1" | wc -l)" = 1 ] && printf "%s" "$1" | grep -q "juggling.*induction"' _ "$out"

# --- it starts, at 120x40, and trains
check "--train induction opens the live view" start_train "TERM=xterm-256color" 120 40 \
    --train induction
check "header names the model and the seed" \
    sh -c 'printf "%s" "$1" | grep -q "Training induction: 2 layers x 2 heads, d_model 32, context 32, seed 42"' _ "$(screen)"
s1=$(step_now); sleep 1; s2=$(step_now)
check "training advances by itself ($s1 -> $s2)" test "${s2:-0}" -gt "${s1:-0}"
check "every head's heatmap and the strips are drawn" \
    sh -c 'for w in L1H1 L1H2 L2H1 L2H2 "induction score" "previous-token score" "loss (cross-entropy)"; do
               printf "%s" "$1" | grep -q "$w" || exit 1; done' _ "$(screen)"

# --- the induction stripe: a guide on each tile's induction diagonal, a row
# of the stripe's weights under it and the head's induction score after it
stripe_scores() { screen >"$WORK/shot"; /usr/bin/python3 tests/e2e/lib/train_stripe.py scores "$WORK/shot"; }
max_score() { stripe_scores | sort | tail -1; }
screen >"$WORK/shot"
check "the guide marks the induction diagonal (key i-4 of each row i >= 5)" \
    /usr/bin/python3 tests/e2e/lib/train_stripe.py guide "$WORK/shot"
check "the caption names the stripe" sh -c 'grep -q "╲ induction stripe" "$1"' _ "$WORK/shot"
n=$(stripe_scores | wc -l)
check "each of the 4 heads shows its induction score ($n)" test "$n" = 4
early=$(max_score)
check "early on no head's stripe is strong (largest ${early:-none}, step $(step_now))" \
    bash -c '[ -n "$1" ] && ((10#${1#.} <= 30))' _ "$early"

# --- faster and slower (1, 2, 3, 5, 8 ... steps a frame), then back to 2
keys + +
check "+ makes more steps a frame" wait_for "training, 5 steps a frame"
keys -
check "- makes fewer" wait_for "training, 3 steps a frame"
keys -

# --- until an induction head forms (the issue: 200-250 steps; seed 42 at 221)
WAIT_TICKS=1800 check "an induction head forms and the status line says so" \
    wait_for "^step [0-9]+: layer 2 head [12] became an induction head \(0\.[5-9][0-9]\)"
formed=$(screen | sed -n 's/^step \([0-9]*\): layer 2 head [12] became an induction.*/\1/p' | head -1)
check "it formed within 400 steps (step $formed)" test "${formed:-999}" -le 400
check "the induction strip marks it (◆ and the step)" \
    sh -c 'printf "%s" "$1" | grep -Eq "induction score  ◆ L2H[12] at (step )?$2"' _ "$(screen)" "$formed"
check "the loss axis marks it (▲)" sh -c 'printf "%s" "$1" | grep -q "▲$2"' _ "$(screen)" "$formed"

# --- pause, one step, resume; keys answer while training
keys Space
check "space pauses" wait_for "  paused$"
p1=$(step_now); sleep 0.6; p2=$(step_now)
check "paused: the step stays ($p1, $p2)" test "$p1" = "$p2"
keys .
check ". makes exactly one step" wait_for "^step $((p1 + 1))[ /]"
sleep 0.3
check "and stays paused" test "$(step_now)" = "$((p1 + 1))"
keys Space
check "space resumes" wait_for "training, [0-9]+ steps a frame"

# --- the end: paused at 400 steps
WAIT_TICKS=1800 check "training stops at 400 steps, saying so" \
    wait_for "400 steps done: space trains on, s saves"
check "the header says paused at 400" sh -c 'printf "%s" "$1" | grep -q "^step 400 of 400 .*paused"' _ "$(screen)"
late=$(max_score)
check "the stripe formed: the largest induction score rose by .25 (${early:-?} -> ${late:-?})" \
    bash -c '[ -n "$1" ] && [ -n "$2" ] && ((10#${2#.} >= 50 && 10#${2#.} >= 10#${1#.} + 25))' \
    _ "$early" "$late"
check "an induction head's tile is labelled so" \
    sh -c 'printf "%s" "$1" | grep -Eq "L2H[12] induction 0\.[5-9][0-9]"' _ "$(screen)"

# --- save twice: two new folders, never the same
keys s
check "s saves and names the folder" wait_for "saved \./attnviz-model-[0-9]{8}-[0-9]{6}"
keys s
wait_for "saved \./attnviz-model-[0-9]{8}-[0-9]{6}-2|saved \./attnviz-model-[0-9]{8}-[0-9]{6} " >/dev/null
sleep 0.5
n=$(ls -d "$WORK"/attnviz-model-* 2>/dev/null | wc -l)
check "two saves, two folders ($n)" test "$n" = 2
m=$(ls -d "$WORK"/attnviz-model-* | head -1)
check "the folder holds a model: model.json, heads.txt, layer2/Wq.npy" \
    test -s "$m/model.json" -a -s "$m/heads.txt" -a -s "$m/layer2/Wq.npy"
check "heads.txt names the induction head" grep -q "layer 2 head [12]: induction 0\.[5-9]" "$m/heads.txt"
check "model.json says 400 steps, seed 42" \
    sh -c 'grep -q "\"steps\": *400" "$1" && grep -q "\"seed\": *42" "$1"' _ "$m/model.json"

# --- Esc is not quit in the first view
keys Escape
check "Esc in the first view says how to quit" wait_for "q quits"
check "and the view is still there" sh -c 'printf "%s" "$1" | grep -q "^Training induction"' _ "$(screen)"

# --- ? lists the view's keys (the interface's key table, its training rows)
keys ?
check "? opens the help over the view" wait_for "attnviz keys - Esc"
scr=$(screen)
check "the help lists the training view's keys" \
    sh -c 'for w in "Training view \(W\)" "Space p +pause / train on" "\. +one step \(pauses\)" \
                    "\+/- +more / fewer steps" "r +from step 0, next seed" "s +save the model"; do
               printf "%s" "$1" | grep -Eq "$w" || { echo "missing: $w" >&2; exit 1; }; done' _ "$scr"
keys Escape
check "Esc closes the help, the view stays" \
    sh -c 'sleep 0.3; ! printf "%s" "$(tmux -L "$1" capture-pane -p -t s)" | grep -q "attnviz keys" &&
           printf "%s" "$(tmux -L "$1" capture-pane -p -t s)" | grep -q "^Training induction"' _ "$SOCK"

# --- sizes
for size in "80 24" "100 30" "120 40"; do
    set -- $size
    tmux -L "$SOCK" resize-window -t s -x "$1" -y "$2"
    sleep 0.3; settle
    scr=$(screen)
    n=$(stripe_scores | wc -l)
    check "$1x$2: every head's induction score under its stripe ($n)" test "$n" = 4
    check "$1x$2: heads, strips, loss and keys on screen" \
        sh -c 'for w in "^Training induction" L2H2 "induction score" "loss" "q quit"; do
                   printf "%s" "$1" | grep -q "$w" || exit 1; done
               ! printf "%s" "$1" | grep -q "too small"' _ "$scr"
done
tmux -L "$SOCK" resize-window -t s -x 50 -y 15
sleep 0.3
check "50x15: the too-small notice" wait_for "terminal too small"
tmux -L "$SOCK" resize-window -t s -x 100 -y 30
sleep 0.3

# --- at 80x24 the help opens at the view's own keys, scrolled to them
tmux -L "$SOCK" resize-window -t s -x 80 -y 24
sleep 0.3
keys ?
check "80x24: ? opens the help at 'Training view (W)'" wait_for "│ Training view \(W\)"
check "80x24: ... with its keys and a whole 'more' label" \
    sh -c 'printf "%s" "$1" | grep -Eq "Space p +pause / train on" &&
           printf "%s" "$1" | grep -Eq "(Up/Down|Up|Down): more \([0-9]+-[0-9]+ of [0-9]+\) "' _ "$(screen)"
keys Escape
tmux -L "$SOCK" resize-window -t s -x 100 -y 30 # at once: Esc stays Esc, not a sequence
sleep 0.5
check "Esc then a resize at once: the help closed" \
    sh -c '! printf "%s" "$1" | grep -q "attnviz keys"' _ "$(screen)"

# --- reset with the next seed
keys r
check "r starts again with seed 43" wait_for "new start with seed 43"
check "header: seed 43, a low step" \
    sh -c 'printf "%s" "$1" | grep -q "seed 43" && [ "$2" -lt 200 ]' _ "$(screen)" "$(step_now)"

# --- q quits with status 0
keys q
check "q quits with status 0" wait_for "EXITED:0"

# --- monochrome: shade glyphs, masked cells marked
start_train "NO_COLOR=1 TERM=xterm-256color" 100 30 --train induction >/dev/null
check "NO_COLOR: glyph heatmaps with masked cells" \
    sh -c 'printf "%s" "$1" | grep -q "╳" && printf "%s" "$1" | grep -q "█"' _ "$(screen)"
keys F10
check "F10 quits" wait_for "EXITED:0"

# --- from the interface: W opens it, Esc backs out to the attention view
tui_session 120 40 \
    "env TERM=xterm-256color LC_ALL=C.UTF-8 $(printf '%q ' "$BIN") 'Cat eats fish'; echo EXITED:\$?; sleep 60"
wait_for ' tokens [0-9]' && settle
keys W
check "W opens the live view from the interface" wait_for "^Training induction"
check "its key line offers Esc back" wait_for "Esc back"
# a key nobody uses keeps the run going, and says so
keys y
check "a stray key (y) says it does nothing here" wait_for "y does nothing here"
check "and the view stays" sh -c 'printf "%s" "$1" | grep -q "^Training induction"' _ "$(screen)"
a=$(step_now); sleep 0.5; b=$(step_now)
check "and training goes on ($a -> $b)" test "${b:-0}" -gt "${a:-0}"
WAIT_TICKS=600 wait_for "^step ([6-9][0-9]|[1-9][0-9][0-9])[ /]" >/dev/null
keys Escape
check "Esc backs out to the attention view" wait_for ' tokens [0-9]'
keys W
wait_for "^Training induction" >/dev/null
back=$(step_now)
check "W again resumes the run (left past step 60, back at ${back:-?}), not step 0" \
    test "${back:-0}" -ge 60
keys r
check "r in the view starts again with seed 43" wait_for "new start with seed 43"
WAIT_TICKS=600 wait_for "^step ([4-9][0-9]|[1-9][0-9][0-9])[ /]" >/dev/null
keys Escape
wait_for ' tokens [0-9]' >/dev/null
keys W
wait_for "^Training induction" >/dev/null
check "after r, W resumes the seed-43 run (step $(step_now)), not a new seed-42 run" \
    sh -c 'printf "%s" "$1" | grep -q "seed 43" && [ "$2" -ge 40 ]' _ "$(screen)" "$(step_now)"
keys Escape
check "Esc backs out again" wait_for ' tokens [0-9]'
check "the interface is still running" sh -c '! printf "%s" "$1" | grep -q EXITED' _ "$(screen)"
mask=$(screen | grep -o "mask o[nf]*" | tail -1)
keys W
wait_for "^Training induction" >/dev/null
keys F9
check "a key of the interface (F9) goes back" wait_for ' tokens [0-9]'
sleep 0.3
check "and acts there: the mask toggled (was '$mask')" \
    sh -c 'printf "%s" "$1" | grep -q "mask o" && ! printf "%s" "$1" | grep -q "$2 "' _ "$(screen)" "$mask"
sel=$(screen | grep -o "Token [0-9]* [^ ]* attends" | head -1)
keys W
wait_for "^Training induction" >/dev/null
keys Down
check "Down (the interface's) goes back too" wait_for ' tokens [0-9]'
check "and moves the selected token there (was '$sel')" \
    sh -c 'printf "%s" "$1" | grep -q "Token [0-9]* [^ ]* attends" &&
        ! printf "%s" "$1" | grep -q "$2"' _ "$(screen)" "$sel"
keys W
wait_for "^Training induction" >/dev/null
keys C-c
check "Ctrl-C quits from the live view" wait_for "EXITED:0"

exit $fail

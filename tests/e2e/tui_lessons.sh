#!/bin/bash
# tui_lessons.sh - the lessons in the interface under tmux: every built-in
# lesson opens and every page renders at 80x24 with its title and page
# number and no error, on the terminal itself (the one walk under tmux; every
# page at every size and state is drawn off-screen by the lesson checker,
# lessons_check.sh); each question is revealed with an answer line; }
# scrolls each page's narration to its end; predictions judged right and wrong (seed 001's 32% for Cat -> fish);
# the pipeline view's stages; Esc leaves the lesson keeping the screen and
# never quits; the list of lessons opens with o and opens a lesson.
# tier: test
# asan: no
. "$(dirname "$0")/lib/tui.sh"
tui_init lessons
export LC_ALL=C.UTF-8

ROOT=$PWD
# A fresh session name for each start: killing a session and starting one
# at once can meet the dying server ("server exited unexpectedly").
SESS=s0
# lesson_start W H ARGS...: as tui_start, in the repository's folder (the
# lessons' weights are found from there when the binary is elsewhere).
lesson_start() {
    local w=$1 h=$2; shift 2
    local old=$SESS
    SESS=s$((${SESS#s} + 1))
    FRAMES=$WORK/frames-$SESS FRAME_MARK=0 # (tui.sh: frames of this session's program)
    tmux -L "$SOCK" new-session -d -s "$SESS" -x "$w" -y "$h" -c "$ROOT" \
        "env TERM=xterm-256color LC_ALL=C.UTF-8 ATTNVIZ_FRAME_FILE=$FRAMES \
$(printf '%q ' "$BIN" "$@"); echo EXITED:\$?; sleep 60"
    tmux -L "$SOCK" kill-session -t "$old" 2>/dev/null
    wait_for ' tokens [0-9]' && settle
}

# walk NAME W H: open lesson NAME at W x H and page through it; every page
# must show its number, questions must reveal an answer, nothing may say
# "error" or "not computable", and Esc then q must leave with status 0.
walk() {
    local name=$1 w=$2 h=$3 pages k bad=""
    pages=$("$BIN" --lesson "$name" --export md | grep -c '^## [0-9]*\. ')
    lesson_start "$w" "$h" --lesson "$name"
    for k in $(seq 1 "$pages"); do
        wait_for "Lesson $k/$pages: " || { bad="page $k of $pages not shown"; break; }
        if screen | grep -q 'Enter: reveal'; then
            keys Enter
            wait_for 'answer: ' || { bad="page $k: no answer after Enter"; break; }
        fi
        if screen | grep -Eiq 'error|not computable|too small'; then
            bad="page $k: $(screen | grep -Ei -m1 'error|not computable|too small')"
            break
        fi
        for _ in 1 2 3 4 5 6 7 8 9 10; do # } to the narration's end
            screen | grep -Eq 'more text|\{ \}: text' || break
            keys '}'; settle
        done
        if screen | grep -Eq 'more text|\{ \}: text'; then
            bad="page $k: } does not reach the end of the narration"; break
        fi
        [ "$k" -lt "$pages" ] && keys n
    done
    keys Escape
    wait_for 'left the lesson' || bad=${bad:-"Esc did not leave the lesson"}
    keys q
    wait_for 'EXITED:0' || bad=${bad:-"q did not quit with status 0"}
    if [ -z "$bad" ]; then ok "lesson $name at ${w}x$h: $pages pages"; else
        notok "lesson $name at ${w}x$h: $bad"; screen | sed 's/^/#   /' | head -n 30; fi
}

for name in $("$BIN" --lesson | cut -f1); do
    walk "$name" 80 24
done

# Predict, then see: before the reveal the numbers that answer the question
# are hidden (the weights, the ranked bars and their order, the head's
# largest weight), after it they are there.
lesson_start 120 40 --lesson click-a-row
keys n; wait_for 'Lesson 2/5: '
wait_for 'Enter: reveal'
check "before the reveal the weights are hidden" bash -c \
    "tmux -L '$SOCK' capture-pane -p -t $SESS | grep -Eq '^ 8 it +\\? +\\? +\\?( |$)' &&
     ! tmux -L '$SOCK' capture-pane -p -t $SESS | grep -v '^Cost' | grep -Eq '55\\.5|top weight 0\\.'"
check "before the reveal the ranked bars do not give the order away" bash -c \
    "! tmux -L '$SOCK' capture-pane -p -t $SESS | grep -Eq '^ {20,}(on|tired|The) +[0-9?]'"
keys Enter
check "after the reveal the weights are shown" wait_for '^ 8 it +1 +0 +0 +56 '
check "after the reveal the bars are ranked" wait_for ' on +55\.5% '
keys Escape; keys q; wait_for 'EXITED:0'
lesson_start 120 40 --lesson cat-eats-fish
keys n; keys n; keys n; wait_for 'Lesson 4/8: '
check "a dot-product question opens on the scores, hidden, one '?' a cell" bash -c \
    "tmux -L '$SOCK' capture-pane -p -t $SESS | grep -Eq '^4 Q_h K_h.T: raw scores' &&
     tmux -L '$SOCK' capture-pane -p -t $SESS | grep -Eq '^>Cat +\\? +\\? +\\? ' &&
     ! tmux -L '$SOCK' capture-pane -p -t $SESS | cut -c1-74 | grep -Eq '0\\.38 +0\\.30|0\\.74 +0\\.38'"
keys '['; sleep 0.3
check "... and [ shows Q and K, not hidden" bash -c \
    "tmux -L '$SOCK' capture-pane -p -t $SESS | grep -Eq '>Cat +0\\.80 +0\\.20'"
keys Escape; keys q; wait_for 'EXITED:0'

# Predictions: right and wrong, judged against the model's 32.2%.
lesson_start 120 40 --lesson cat-eats-fish
for _ in 1 2 3 4 5; do keys n; sleep 0.1; done
wait_for 'Lesson 6/8: '
keys -l '32'; keys Enter
check "a typed prediction within the tolerance is right" wait_for 'answer: 32.2% +- right'
keys p; wait_for 'Lesson 5/8: '; keys n; wait_for 'Lesson 6/8: '
keys -l '60'; keys Enter
check "a wrong prediction is said so, beside the answer" wait_for 'answer: 32.2% +- not this time'
check "the pipeline view shows the stages with seed 001's weights" \
    wait_for '7 softmax: rows sum to 1'
check "the weights row of Cat: 0.38 0.30 0.32" wait_for '>Cat +0.38 +0.30 +0.32'
keys Escape
check "Esc leaves the lesson" wait_for 'left the lesson'
check "the screen stays: still the pipeline of Cat eats fish" wait_for 'Pipeline of head 1'
keys Escape; sleep 0.3
check "Esc again does not quit" bash -c \
    "tmux -L '$SOCK' capture-pane -p -t $SESS | grep -q 'tokens 3' &&
     ! tmux -L '$SOCK' capture-pane -p -t $SESS | grep -q EXITED"

# The list: o opens it, Down Enter opens the second lesson, End the last,
# Home the first.
keys o
check "o opens the list of lessons" wait_for 'Lessons: Up/Down, Enter opens'
keys Down Enter
check "Enter opens the lesson picked" wait_for 'Lesson 1/[0-9]*: The dot product'
keys o End Enter
check "End picks the last lesson" wait_for 'Lesson 1/[0-9]*: What GPT-2'
keys o End Home Enter
check "Home picks the first lesson" wait_for 'Lesson 1/[0-9]*: Queries, keys'
keys q
check "q quits from a lesson" wait_for 'EXITED:0'

# Esc backs out one level at 80x24: a choice picked is cleared and the page
# stays; a trace opened over the page closes before the lesson is left.
lesson_start 80 24 --lesson softmax
keys n; wait_for 'Lesson 2/4: '
keys b; wait_for 'your prediction: about 38%'
keys Escape
check "Esc after a choice clears it" wait_for 'prediction \(b\) cleared: Esc again leaves the lesson'
check "... the page stays, nothing picked" bash -c \
    "tmux -L '$SOCK' capture-pane -p -t $SESS | grep -q 'Lesson 2/4: ' &&
     tmux -L '$SOCK' capture-pane -p -t $SESS | grep -q '(a) about 33%   (b) about 38%'"
keys w; wait_for 'Calculation trace'
keys Escape
check "Esc closes the trace over the page, not the lesson" wait_for "back to the page's own view"
check "... the page stays" bash -c "! tmux -L '$SOCK' capture-pane -p -t $SESS |
    grep -q 'Calculation trace' && tmux -L '$SOCK' capture-pane -p -t $SESS | grep -q 'Lesson 2/4: '"
keys n; keys n; wait_for 'Lesson 4/4: '
keys -l '1.5'; wait_for 'your prediction: 1.5_'
keys Escape
check "Esc on a number clears it alike" wait_for 'prediction 1.5 cleared: Esc again leaves'
keys Escape
check "Esc with nothing picked leaves the lesson" wait_for 'left the lesson'
keys q; wait_for 'EXITED:0'

# A malformed lesson is refused before the interface starts.
printf 'title: T\n== P\nheads: 5\n' >"$WORK/bad.lesson"
SESS=bad
tmux -L "$SOCK" new-session -d -s bad -x 80 -y 24 -c "$WORK" \
    "env LC_ALL=C.UTF-8 $(printf '%q ' "$BIN") --lesson bad.lesson; echo EXITED:\$?; sleep 30"
check "a malformed lesson: one line naming file and line, exit 2" \
    wait_for 'bad.lesson:3: d-model 32 is not divisible by heads 5'
check "... and status 2" wait_for 'EXITED:2'

# The status line names the lesson's keys, not the view's under it (the PE
# view's "p: PE on/off" while p turns a page back).
lesson_start 100 30 --lesson positions
keys n && settle
check "a lesson's question names its own keys on the status line" \
    wait_for 'a-c or Up/Down: choose; Enter: reveal \| \? help \| q quit'
check "... and not the PE view's" eval '! screen | grep -q "plotted dims"'

exit $fail

#!/bin/bash
# tui_lesson_front.sh - the model view (F) or the head scores (f) shown over
# a lesson's page are what is in front: the top line named the page's view
# ("attnviz | Pipeline ..." over the model view's thumbnails), and the
# arrows moved the page's choice ("your prediction: f") behind the table
# instead of the table's selection. Now the top line says "Model view" /
# "Head scores", and the arrows, Tab and Enter act on the table as Esc
# already did; once it is closed, they go to the page again.
# tier: test
# asan: no
cd "$(dirname "$0")/../.." || exit 1
. tests/e2e/lib/tui.sh
tui_init lesson_front
export LC_ALL=C.UTF-8
ROOT=$PWD
top() { screen | head -1 | sed 's/ *$//'; }

for size in "80 24" "100 30" "120 40"; do
    set -- $size
    at="$1x$2"
    tui_start TERM=xterm-256color "$1" "$2" --lesson qkv
    check "$at: qkv: the page's view is the pipeline: \"$(top)\"" \
        eval 'top | grep -q "^ attnviz | Pipeline "'
    keys F && wait_for '^Model view: ' && settle
    check "$at: F over it: the top line names the model view: \"$(top)\"" \
        eval 'top | grep -q "^ attnviz | Model view " && ! top | grep -q Pipeline'
    keys Escape && settle
    check "$at: Esc: the pipeline again: \"$(top)\"" \
        eval 'top | grep -q "^ attnviz | Pipeline "'
    keys q && wait_for 'EXITED:0' || notok "$at: q: $(screen | tail -2)"
done

# sel: the head scores' selected head, "L<layer> h<head>" (its labels
# drawn reversed, ESC [1m ... 48;5;220m)
sel() {
    tmux -L "$SOCK" capture-pane -p -e -t "$SESS" | grep -o $'\e\\[48;5;220m[Lh][0-9]*' |
        sed 's/.*m//' | tr '\n' ' ' | sed 's/ *$//'
}
tui_start TERM=xterm-256color 100 30 --lesson induction
for _ in 1 2 3; do keys n; done
wait_for '^Lesson 4/5: ' && settle
keys f && wait_for '^Head scores \(' && settle
check "f over the page: the top line names the head scores: \"$(top)\"" \
    eval 'top | grep -q "^ attnviz | Head scores "'
before=$(sel)
keys Up && settle
after=$(sel)
check "Up moves the table's selection (\"$before\" -> \"$after\")" \
    eval '[ "$before" = "h1 L2" ] && [ "$after" = "h1 L1" ]'
check "... not the page's choice behind it" \
    eval 'screen | grep -q "^your prediction: *\$" && ! screen | grep -q "^>(a)"'
keys Right && settle
check "Right too: \"$(sel)\"" eval '[[ "$(sel)" == h2* ]]'
keys Escape && settle
check "Esc closes the table, the lesson stays" \
    eval '! screen | grep -q "^Head scores (" && screen | grep -q "^Lesson 4/5: "'
keys Down && settle
check "then Down picks on the page again" \
    eval 'screen | grep -q "^your prediction: f" && screen | grep -q "^>(a) f"'
keys q && wait_for 'EXITED:0' || notok "induction: q: $(screen | tail -2)"
exit $fail

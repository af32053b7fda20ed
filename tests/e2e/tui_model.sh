#!/bin/bash
# tui_model.sh - a shipped model opened without a text (--model DIR), under
# tmux at 80x24, 100x30 and 120x40: it starts on text it can read and was
# trained for (a repeated segment for the induction model, whole sentences of
# the toy language for the grammar model, the articles' sentence for the
# character model), never on a sentence outside its vocabulary.
# tier: quick
# asan: no
cd "$(dirname "$0")/../.." || exit 1
. tests/e2e/lib/tui.sh
tui_init model
ROOT=$PWD
start() { # W H ARGS...
    local w=$1 h=$2; shift 2
    tui_start TERM=xterm-256color "$w" "$h" "$@"
}
sentence() { screen | sed -n 's/^Sentence: //p' | head -1 | sed 's/ *$//'; }

for size in "80 24" "100 30" "120 40"; do
    set -- $size
    start "$1" "$2" --model "$ROOT/assets/models/induction"
    s=$(sentence)
    # the text repeats itself: its first 6 letters come again later on
    check "$1x$2: induction model opens on a repeated segment ('${s:0:16}...')" \
        eval '[ ${#s} -ge 12 ] && [[ "${s:6}" == *"${s:0:6}"* ]] && [[ "$s" =~ ^[a-z]+$ ]]'
    check "$1x$2: induction model: no vocabulary error" \
        eval '! screen | grep -q "outside the model.s vocabulary"'
    check "$1x$2: induction model: its heads drawn (Head 1 of 2)" wait_for 'Head 1 of 2'

    start "$1" "$2" --model "$ROOT/assets/models/grammar"
    s=$(sentence)
    check "$1x$2: grammar model opens on whole sentences ('${s:0:24}...')" \
        eval '[[ "$s" =~ ^the\ [a-z]+ ]] || [[ "$s" =~ ^(he|she|they)\  ]]'
    check "$1x$2: grammar model: a sentence ends with ' .'" eval '[[ "$s" == *" . "* ]]'

    start "$1" "$2" --model "$ROOT/assets/models/chars"
    check "$1x$2: character model opens on the articles' sentence" \
        wait_for '^Sentence: the cat sat on the mat'
done
cd "$ROOT" || exit 1
exit $fail

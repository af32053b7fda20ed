#!/bin/bash
# tui_stdin_text.sh - the text piped in (-f -, "-" is standard input), the
# interface on the terminal, as a person over SSH would open a file of the
# server: `cat notes.txt | attnviz -f -`. Standard input then holds the text,
# not the keys; the interface was refused with "not a terminal: use --export
# FMT or --dump DIR" although standard output was one. The keys now come from
# the controlling terminal, at 80x24, 100x30 and 120x40, with the toy heads,
# a --model folder and --train text; Down moves the selection and q quits
# with status 0. Without a controlling terminal (setsid) one line says why,
# status 2; with standard output not a terminal the refusal stands.
# tier: test
# asan: no
cd "$(dirname "$0")/../.." || exit 1
. tests/e2e/lib/tui.sh
tui_init stdin_text
export LC_ALL=C.UTF-8
CHARS=$PWD/assets/models/chars
printf 'The dog barked at the cat\n' >"$WORK/text.txt"
# the pane's command: the text piped into attnviz (its frames counted too)
piped() { printf 'env TERM=xterm-256color %s LC_ALL=C.UTF-8 sh -c %q; echo EXITED:$?; sleep 60' \
    "$FRAME_ENV" "cat $WORK/text.txt | $(printf '%q ' "$BIN" "$@")"; }

for size in "80 24" "100 30" "120 40"; do
    set -- $size
    at="$1x$2"
    tui_session "$1" "$2" "$(piped -f -)"
    if wait_for '^Tokens: +1 The +2 dog +3 barked'; then
        ok "$at: cat FILE | attnviz -f -: the interface opens on the piped text"
    else
        notok "$at: -f - on a terminal: $(screen | grep -v '^$' | head -2 | tr '\n' '|')"
        continue
    fi
    settle
    keys Down && wait_for 'Token 2 dog attends to' && ok "$at: Down is read from the terminal" ||
        notok "$at: Down: $(screen | grep 'attends to')"
    keys q && wait_for 'EXITED:0' && ok "$at: q quits with status 0" || notok "$at: q: $(screen | tail -2)"
done

tui_session 100 30 "$(piped --model "$CHARS" -f -)"
wait_for 'trained .text. model' && ok "--model DIR -f -: the model's interface on the piped text" ||
    notok "--model DIR -f -: $(screen | grep -v '^$' | head -2 | tr '\n' '|')"
keys q && wait_for 'EXITED:0' && ok "--model DIR -f -: q quits with status 0" ||
    notok "--model DIR -f -: q: $(screen | tail -2)"

tui_session 100 30 "$(piped --train text -f -)"
wait_for '^Training text: ' && ok "--train text -f -: the live view trains on the piped text" ||
    notok "--train text -f -: $(screen | grep -v '^$' | head -2 | tr '\n' '|')"
keys q && wait_for 'EXITED:0' && ok "--train text -f -: q quits with status 0" ||
    notok "--train text -f -: q: $(screen | tail -2)"

# no controlling terminal: one line, status 2
tui_session 120 10 "setsid -w sh -c $(printf '%q' "cat $WORK/text.txt | $BIN -f -"); echo EXITED:\$?; sleep 60"
wait_for 'EXITED:2' && ok "-f - with no controlling terminal: status 2" ||
    notok "-f - with no controlling terminal: $(screen | grep -v '^$' | head -2 | tr '\n' '|')"
check "... and one line saying why: use -f FILE" \
    eval 'screen | grep -q "^attnviz: the text came from standard input (-f -) and no terminal is there for the keys: use -f FILE$"'

# standard output not a terminal: the batch refusal stands
err=$("$BIN" -f - <"$WORK/text.txt" 2>&1 >/dev/null)
rc=$?
check "-f - with standard output not a terminal: status 2, \"not a terminal\"" \
    test "$rc" = 2 -a "$err" = "attnviz: not a terminal: use --export FMT or --dump DIR for batch output"
exit $fail

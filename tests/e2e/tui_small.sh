#!/bin/bash
# tui_small.sh - keys while the terminal is too small: at 40x10 the notice
# says that keys wait for a larger terminal; x, X and G write no file, P h h
# change nothing (the status line at 100x30 is the same as before), Esc and
# Enter do nothing either; q still quits with status 0, from browsing and
# from the editor. The same in the live training view (W): s saves no file.
# Prints "ok - name" / "not ok - name"; exits non-zero on a failure.
# tier: test
# asan: no
set -u
. "$(dirname "$0")/lib/tui.sh"
tui_init small
status() { screen | tail -1; }
# files: what the program wrote in its folder ($WORK, tui_session's -c)
files() { find "$WORK" -type f ! -name 'frames*' -printf '%f ' | sort; }

tui_start TERM=xterm-256color 100 30 --preset random 'The cat sat on the mat'
before=$(status)
resize 40 10
check "40x10: the notice says keys wait for a larger terminal" \
    wait_for 'keys wait for a larger terminal; q quits'
keys x; keys X; keys G; keys P; keys h; keys h; keys Enter; keys Escape
settle
check "40x10: x, X, G wrote no file" test -z "$(files)"
resize 100 30
wait_for ' tokens [0-9]' && settle
check "back at 100x30: P h h changed nothing ($before)" test "$(status)" = "$before"
check "... and it is not editing" bash -c '! tmux -L "$1" capture-pane -p -t s | grep -q EDITING' _ "$SOCK"
resize 40 10
keys q
check "40x10: q quits, status 0" wait_for 'EXITED:0'

tui_start TERM=xterm-256color 100 30 --preset random 'The cat sat on the mat'
keys e
settle
resize 40 10
keys -l 'ab'
keys q
check "40x10, editing: q quits, status 0" wait_for 'EXITED:0'

tui_start TERM=xterm-256color 100 30 --preset random 'The cat sat on the mat'
keys W
check "the live training view opens" wait_for 'pause'
resize 40 10
keys s
settle
check "40x10, training: s saved no file" test -z "$(files)"
keys q
check "40x10, training: q quits, status 0" wait_for 'EXITED:0'
exit $fail

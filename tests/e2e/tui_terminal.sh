#!/bin/bash
# tui_terminal.sh - the interface and its terminal: resizing to 80x24 and to
# a tiny 10x5 (a notice, not a crash) and back; Ctrl-C, SIGTERM and q restore
# the terminal and exit; monochrome and 8-colour terminals get shade glyphs;
# a long sentence scrolls to keep the selection visible; clicks on a chip and
# on a small head select them.
# Prints "ok - name" / "not ok - name"; exits non-zero on a failure.
# tier: test
# asan: no
set -u
. "$(dirname "$0")/lib/tui.sh"
tui_init term
not_shown() { settle; ! screen | grep -Eq -- "$1"; }
# After the program: its status, then whether the tty is back in cooked mode.
AFTER='echo EXITED:$?; stty -a | tr " " "\n" | grep -E "^-?(icanon|echo)$" | tr "\n" " "; echo; sleep 60'
# The mechanics below are checked on random heads (the batch default); the
# interface's own default (designed heads) is tui_examples.sh's.
RANDOM_HEADS="--preset random"
start() { # TERM W H ARGS...
    local term=$1 w=$2 h=$3; shift 3
    tui_start "TERM=$term" "$w" "$h" $RANDOM_HEADS "$@"
}
resize() { tmux -L "$SOCK" resize-window -t s -x "$1" -y "$2"; settle; }
restored() { wait_for 'EXITED:0' && wait_for '^icanon echo' && not_shown 'attnviz \| Attention'; }
pane_child() { pgrep -P "$(tmux -L "$SOCK" display -p -t s '#{pane_pid}')" | head -1; }

TEXT='The trophy did not fit in the suitcase because it was too big.'
start xterm-256color 120 40 "$TEXT"
check "120x40: the focused head and all heads" wait_for 'All 4 heads'
resize 80 24
check "80x24: redrawn with the focused head" wait_for '^Head 1 of 4'
check "80x24: the status line shows every setting" \
    eval "wait_for 'tokens 14 +d_model 32 +heads 4 +d_k 8 +seed 42' &&
          wait_for 'mask off +PE on +scaling on +temp 1 +layer 1/1'"
resize 10 5
check "10x5: a notice naming the size needed" wait_for 'need 60x18'
check "10x5: still running" not_shown 'EXITED'
resize 120 40
check "back to 120x40: the view returns" wait_for 'All 4 heads'

# A long sentence scrolls: the last token stays visible when selected.
resize 80 24
keys End
check "End selects the last token" wait_for 'Token 14 .*\..* attends to'
check "the heatmap scrolled to show row 14" wait_for '^ *14 \.'
keys Home
check "Home scrolls back to row 1" wait_for '^ *1 The'

# Clicks on a chip and on a small head.
s=$(screen)
y=$(echo "$s" | grep -n '^Tokens:' | cut -d: -f1)
line=$(echo "$s" | sed -n "${y}p")
x=$(echo "$line" | awk '{print index($0, "3 did")}')
keys -l $'\e[<0;'"$((x + 2))"';'"$y"'M'$'\e[<0;'"$((x + 2))"';'"$y"'m'
check "a click on chip 3 selects 'did'" wait_for 'Token 3 .*did.* attends to'
s=$(screen)
y=$(echo "$s" | grep -n ' head 3 ' | head -1 | cut -d: -f1) # small head 3's title
x=$(echo "$s" | sed -n "${y}p" | awk '{print index($0, " head 3 ") + 1}')
keys -l $'\e[<0;'"$((x + 3))"';'"$((y + 1))"'M'$'\e[<0;'"$((x + 3))"';'"$((y + 1))"'m'
check "a click on small head 3 focuses it" wait_for '^Head 3 of 4'

# Ctrl-C restores the terminal.
keys C-c
check "Ctrl-C exits 0 with the terminal restored" restored

# SIGTERM restores the terminal.
start xterm-256color 100 30 "$TEXT"
pid=$(pane_child)
check "found the program's pid" test -n "$pid"
kill -TERM "$pid" 2>/dev/null
check "SIGTERM exits 0 with the terminal restored" restored

# Monochrome (--color never, NO_COLOR) and 8 colours: shade glyphs in the cells.
start xterm-256color 100 30 --color never 'The cat sat'
check "--color never: shade glyphs" wait_for '^ *1 The +[·░▒▓█]'
keys q
check "q exits 0 with the terminal restored" restored
# at 80x24, two heads side by side: each legend whole on two rows, the
# masked mark beside the causal one, and every row of the sentence's 11
start xterm-256color 80 24 --color never
keys b
check "--color never, 80x24, b: the legend's glyphs go on a second row" \
    wait_for '^ +▓ 35-65%  █ >=65% +│ +▓ 35-65%  █ >=65%  ╳ masked'
check "... and every row of both heatmaps is shown" eval 'screen | grep -q "^11 \. .*│11 \. "'
keys q
check "q exits 0 with the terminal restored" restored
tui_session 100 30 \
    "env NO_COLOR=1 TERM=xterm-256color LC_ALL=C.UTF-8 $(printf '%q ' "$BIN" 'The cat sat'); $AFTER"
check "NO_COLOR: shade glyphs" wait_for '^ *1 The +[·░▒▓█]'
start xterm 100 30 'The cat sat'
check "8 colours: shade glyphs" wait_for '^ *1 The +[·░▒▓█]'
keys m
check "8 colours: the mask mark ╳" wait_for '^ *1 The +[·░▒▓█]+ +╳'
keys Escape
check "Esc does not quit from browsing: it says what quits" wait_for 'q, F10 or Ctrl-C quits'
keys q
check "q quits" restored
exit $fail

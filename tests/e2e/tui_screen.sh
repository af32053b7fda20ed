#!/bin/bash
# tui_screen.sh - the frames screen.c writes itself, on several terminals
# (tui_paint.sh compares the frames drawn a changed cell at a time with
# those drawn whole on each): what 8-colour xterm and vt100 can show; the
# live training view, paused, the same after a resize and back. A wide
# character in the last column shows whole and leaves the next row alone; a
# screen spoiled from outside
# is drawn again whole after a resize and after Ctrl-L; TERM=dumb (no cursor
# moves), a TERM with no terminfo entry and no TERM are refused in one line. q, F10, Ctrl-C, SIGTERM and SIGHUP
# leave the terminal as it was: the main screen back, the cursor visible,
# no attribute left on for what the shell prints next.
# Prints "ok - name" / "not ok - name"; exits non-zero on a failure.
# tier: test
# asan: no
set -u
. "$(dirname "$0")/lib/tui.sh"
tui_init screen
CELLS="$(dirname "$0")/lib/cells.py"

# The pane cell by cell with its look, the times masked (as tui_paint.sh).
colours() {
    tmux -L "$SOCK" capture-pane -p -e -N -t s 2>/dev/null |
        sed -E 's/ *[0-9]+(\.[0-9]+)? ms/ N ms/g; s/(Cost: .*run N ms).*/\1/' |
        python3 "$CELLS"
}
pane() { tmux -L "$SOCK" display -p -t s "$1"; }
# The text of a colours() capture, its looks left out.
text_of() { sed -E 's/\[[^]]*\]//g; s/(.) /\1/g' "$@"; }

TEXT='the quick brown fox jumps over the lazy dog'

# Looks that only some terminals can show: 8 colours has no 256-colour
# background, vt100 no colour at all, and every one marks the selected chip.
tui_start "TERM=xterm" 90 28 --preset random "$TEXT"
check "xterm: 8 colours only" bash -c "! grep -q 'fg=[0-9][0-9]\|bg=[0-9][0-9]' <<<\"\$1\"" _ \
    "$(colours)"
colours >"$WORK/cap"
check "xterm: the selected chip black on yellow, bold" \
    grep -q 't\[bg=3,bold,fg=0\] h\[bg=3,bold,fg=0\] e\[bg=3,bold,fg=0\]' "$WORK/cap"
tui_start "TERM=vt100" 90 28 --preset random "$TEXT"
check "vt100: no colour" bash -c "! grep -q 'fg=\|bg=' <<<\"\$1\"" _ "$(colours)"
colours >"$WORK/cap"
check "vt100: the selected chip bold and reversed" \
    grep -q 't\[bold,reverse\] h\[bold,reverse\] e\[bold,reverse\]' "$WORK/cap"
check "vt100: no padding text (\$<..>) on the screen" bash -c "! grep -q '\\\$<' <<<\"\$1\"" _ \
    "$(screen)"
keys F10

# A wide character ending in the last column: drawn whole, and the row under
# it untouched (the frame must not run past the row's end).
tui_start "TERM=xterm-256color" 80 24 --preset random "$(printf 'a%.0s' $(seq 67)) 日本"
check "a wide character in the last column is shown" \
    bash -c 'grep -q "^Sentence: a* 日$" <<<"$1"' _ "$(screen)"
check "the row after it starts with its own text" bash -c 'grep -q "^Tokens: " <<<"$1"' _ \
    "$(screen)"

# A screen spoiled from outside (another program writing to the tty) is
# drawn whole again after a resize.
tui_start "TERM=xterm-256color" 80 24 --preset random "$TEXT"
colours >"$WORK/before"
printf '\033[5;5H\033[41mSPOILED SPOILED\033[0m' >"$(pane '#{pane_tty}')"
resize 81 24
settle
resize 80 24
settle
check "a resize draws a spoiled screen whole again" cmp -s "$WORK/before" <(colours)
# and so does Ctrl-L, without a resize
printf '\033[7;9H\033[42mSPOILED AGAIN\033[0m' >"$(pane '#{pane_tty}')"
settle colours
check "the spoiled screen shows the outside text" grep -q "S\[bg=2\]" <(colours)
keys C-l
settle
check "Ctrl-L draws a spoiled screen whole again" cmp -s "$WORK/before" <(colours)
keys F10

# A terminal that cannot move its cursor: one line, exit 1, nothing drawn.
out=$(TERM=dumb script -qec "$BIN --preset random hello" /dev/null </dev/null 2>&1)
code=$?
check "TERM=dumb: one line and exit 1" bash -c '[ "$1" = 1 ] &&
    [ "$(printf "%s\n" "$2" | grep -c "cannot move its cursor")" = 1 ]' _ "$code" "$out"

# A TERM with no terminfo entry, and no TERM at all: attnviz's own line
# (curses' initscr printed "Error opening terminal: ..." and exited), exit
# 1, and nothing else written to the terminal (no escape sequence).
one_line() { # CODE OUT RE: exit 1, one line matching RE, no escape byte
    [ "$1" = 1 ] && [ "$(printf "%s\n" "$2" | tr -d '\r' | wc -l)" = 1 ] &&
        printf "%s" "$2" | grep -Eq "^attnviz: $3" && ! printf "%s" "$2" | grep -q $'\e'
}
out=$(TERM=attnviz-no-such-term script -qec "$BIN --preset random hello" /dev/null </dev/null 2>&1)
code=$?
check "an unknown TERM: attnviz's one line naming it, exit 1" \
    one_line "$code" "$out" 'the terminal \(TERM=attnviz-no-such-term\) has no terminfo entry.*TERM=xterm-256color.*--export'
out=$(env -u TERM script -qec "$BIN --preset random hello" /dev/null </dev/null 2>&1)
code=$?
check "no TERM: attnviz's one line, exit 1" \
    one_line "$code" "$out" 'TERM is not set.*TERM=xterm-256color.*--export'

# The live training view: paused, then its frames drawn a changed cell at a
# time after a resize and back are the ones a fresh whole frame shows.
tui_start "TERM=screen-256color" 90 28 --train induction
keys .
settle
colours >"$WORK/train0"
resize 70 20
settle
resize 90 28
settle
check "the training view is the same after a resize and back" cmp -s "$WORK/train0" <(colours)
check "the training view is drawn" bash -c 'text_of() { sed -E "s/\[[^]]*\]//g; s/(.) /\1/g"; }
    text_of <"$1" | grep -q "^Training induction"' _ "$WORK/train0"
keys q

# Quitting: the terminal as it was. $AFTER prints in the shell's default look.
AFTER='echo EXITED:$?; sleep 60'
restored() { # NAME TERM
    local name=$1 term=$2 last
    if ! wait_for 'EXITED:0'; then
        notok "$name ($term): did not exit 0"
        return
    fi
    last=$(tmux -L "$SOCK" capture-pane -p -e -t s | grep 'EXITED:0')
    if [ "$(pane '#{alternate_on}#{cursor_flag}#{mouse_any_flag}')" != 010 ]; then
        notok "$name ($term): alternate screen, cursor or mouse left on"
    elif [ "$term" != linux ] && screen | grep -q 'attnviz | '; then
        notok "$name ($term): the interface is still on the screen"
    elif ! grep -Eq $'^(\e\\[(0|39|49|39;49|0;39;49)?m)*EXITED:0' <<<"$last"; then
        notok "$name ($term): the shell's text has a look left over: $(cat -v <<<"$last")"
    else
        ok "$name ($term): terminal restored"
    fi
}
for term in xterm-256color screen linux; do
    for quit in q F10 C-c; do
        tui_start "TERM=$term" 80 24 --preset random "$TEXT"
        keys Down m
        settle
        keys "$quit"
        restored "$quit" "$term"
    done
done
for sig in TERM HUP; do
    tui_start "TERM=tmux-256color" 80 24 --preset random "$TEXT"
    pid=$(pgrep -P "$(pane '#{pane_pid}')" | head -1)
    kill -"$sig" "$pid"
    restored "SIG$sig" tmux-256color
done
exit $fail

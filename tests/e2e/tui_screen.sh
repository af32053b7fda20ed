#!/bin/bash
# tui_screen.sh - the frames screen.c writes itself, on terminals other than
# xterm-256color (tui_paint.sh's): for 8-colour xterm, screen-256color,
# linux, vt100 (padding in its strings, no colour) and ansi (no xenl: the
# bottom-right cell is left alone) the screen drawn a changed cell at a time
# is the screen drawn whole (ATTNVIZ_FULL_REDRAW=1), cell by cell with its
# look, after every key of the views, the help and a resize; the live
# training view likewise once paused. A wide character in the last column
# shows whole and leaves the next row alone; a screen spoiled from outside
# is drawn again whole after a resize and after Ctrl-L; TERM=dumb (no cursor
# moves) is refused in one line. q, F10, Ctrl-C, SIGTERM and SIGHUP
# leave the terminal as it was: the main screen back, the cursor visible,
# no attribute left on for what the shell prints next.
# Prints "ok - name" / "not ok - name"; exits non-zero on a failure.
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

# run TAG TERM FULL W H KEYS ARGS...: one run, a capture per key into $WORK/TAG/.
run() {
    local tag=$1 term=$2 full=$3 w=$4 h=$5 ks=$6 n=0; shift 6
    mkdir -p "$WORK/$tag"
    tui_start "TERM=$term ATTNVIZ_FULL_REDRAW=$full" "$w" "$h" --preset random "$@"
    settle colours
    colours >"$WORK/$tag/000"
    for k in $ks; do
        n=$((n + 1))
        case $k in
        RESIZE) tmux -L "$SOCK" resize-window -t s -x $((w - 7)) -y $((h - 3)) ;;
        BACK) tmux -L "$SOCK" resize-window -t s -x "$w" -y "$h" ;;
        *) keys "$k" ;;
        esac
        settle colours
        colours >"$WORK/$tag/$(printf %03d $n)"
    done
    keys F10
}

compare() { # NAME TERM W H KEYS ARGS...
    local name=$1 term=$2 w=$3 h=$4 ks=$5; shift 5
    rm -rf "$WORK/inc" "$WORK/full"
    run inc "$term" 0 "$w" "$h" "$ks" "$@"
    run full "$term" 1 "$w" "$h" "$ks" "$@"
    local screens
    screens=$(for f in "$WORK"/inc/*; do text_of "$f" | grep -q 'attnviz' && echo; done | wc -l)
    if [ "$screens" -lt 2 ]; then
        notok "$name: the interface was not captured ($screens screens)"
    elif diff -r "$WORK/inc" "$WORK/full" >"$WORK/diff" 2>&1; then
        ok "$name: $(ls "$WORK/inc" | wc -l) screens the same drawn incrementally and whole"
    else
        notok "$name: incremental and whole frames differ"
        head -10 "$WORK/diff" | cut -c1-300
    fi
}

TEXT='the quick brown fox jumps over the lazy dog'
KEYS='e s BSpace Enter Down Tab m v S b w ? Escape RESIZE Down BACK'
for term in xterm screen-256color linux vt100 ansi; do
    compare "$term 90x28" "$term" 90 28 "$KEYS" "$TEXT"
done

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
tmux -L "$SOCK" resize-window -t s -x 81 -y 24
settle colours
tmux -L "$SOCK" resize-window -t s -x 80 -y 24
settle colours
check "a resize draws a spoiled screen whole again" cmp -s "$WORK/before" <(colours)
# and so does Ctrl-L, without a resize
printf '\033[7;9H\033[42mSPOILED AGAIN\033[0m' >"$(pane '#{pane_tty}')"
settle colours
check "the spoiled screen shows the outside text" grep -q "S\[bg=2\]" <(colours)
keys C-l
settle colours
check "Ctrl-L draws a spoiled screen whole again" cmp -s "$WORK/before" <(colours)
keys F10

# A terminal that cannot move its cursor: one line, exit 1, nothing drawn.
out=$(TERM=dumb script -qec "$BIN --preset random hello" /dev/null </dev/null 2>&1)
code=$?
check "TERM=dumb: one line and exit 1" bash -c '[ "$1" = 1 ] &&
    [ "$(printf "%s\n" "$2" | grep -c "cannot move its cursor")" = 1 ]' _ "$code" "$out"

# The live training view: paused, then its frames drawn a changed cell at a
# time after a resize and back are the ones a fresh whole frame shows.
tui_start "TERM=screen-256color" 90 28 --train induction
keys .
settle colours
colours >"$WORK/train0"
tmux -L "$SOCK" resize-window -t s -x 70 -y 20
settle colours
tmux -L "$SOCK" resize-window -t s -x 90 -y 28
settle colours
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

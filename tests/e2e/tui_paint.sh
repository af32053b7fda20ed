#!/bin/bash
# tui_paint.sh - the screen drawn a changed cell at a time (color_paint keeps
# the last frame and adds only what differs) is the screen drawn whole: the
# same keys are sent to the program twice, once as it runs and once with
# ATTNVIZ_FULL_REDRAW=1 (every frame cleared and drawn whole), and the
# captures after every key, cell by cell with colours and attributes, must be
# the same, timings aside.
# Typing, heads, rows and columns, the mask, the views, the help, a resize,
# a sentence with wide characters and a long text (half blocks) are covered.
# Prints "ok - name" / "not ok - name"; exits non-zero on a failure.
set -u
. "$(dirname "$0")/lib/tui.sh"
tui_init paint

# The pane with its colours, the times (which differ run to run) masked: a
# time's width moves the padding before it, and the model's run time's width
# where the cost line is cut, so both go with it. Then every cell with its
# whole look (lib/cells.py): the escape codes of two captures of the same
# screen differ where tmux keeps cleared cells apart from written spaces
# (-N keeps a row's last spaces, a reversed one the cursor, for instance).
colours() {
    tmux -L "$SOCK" capture-pane -p -e -N -t s 2>/dev/null |
        sed -E 's/ *[0-9]+(\.[0-9]+)? ms/ N ms/g; s/(Cost: .*run N ms).*/\1/' |
        python3 "$(dirname "$0")/lib/cells.py"
}

# run TAG FULL W H KEYS ARGS...: one run, a capture per key into $WORK/TAG/.
run() {
    local tag=$1 full=$2 w=$3 h=$4 ks=$5 n=0; shift 5
    mkdir -p "$WORK/$tag"
    tui_start "TERM=xterm-256color ATTNVIZ_FULL_REDRAW=$full" "$w" "$h" \
        --preset random "$@"
    settle colours
    colours >"$WORK/$tag/000"
    for k in $ks; do
        n=$((n + 1))
        if [ "$k" = RESIZE ]; then
            tmux -L "$SOCK" resize-window -t s -x $((w - 10)) -y $((h - 4))
        else
            keys "$k"
        fi
        settle colours
        colours >"$WORK/$tag/$(printf %03d $n)"
    done
    keys F10
}

compare() { # NAME W H KEYS ARGS...
    local name=$1 w=$2 h=$3 ks=$4; shift 4
    rm -rf "$WORK/inc" "$WORK/full"
    run inc 0 "$w" "$h" "$ks" "$@"
    run full 1 "$w" "$h" "$ks" "$@"
    local screens coloured
    screens=$(find "$WORK/inc" -type f | wc -l)
    coloured=$(grep -l 'fg=[0-9]' "$WORK"/inc/* 2>/dev/null | wc -l)
    if [ "$screens" -lt 2 ] || [ "$coloured" -lt 1 ]; then
        notok "$name: no coloured screens captured ($screens, $coloured coloured)"
    elif diff -r "$WORK/inc" "$WORK/full" >"$WORK/diff" 2>&1; then
        ok "$name: $screens screens the same drawn incrementally and whole"
    else
        notok "$name: incremental and whole frames differ"
        head -20 "$WORK/diff"
    fi
}

TEXT='the quick brown fox jumps over the lazy dog near the river'
KEYS='e s BSpace s Enter Down Down Tab 2 Right Right m v v S S b b B B w w ? Escape p C-k Left Up'
compare "120x40 typing and views" 120 40 "$KEYS" "$TEXT"
compare "80x24 typing and views, then a resize" 80 24 \
    "e s BSpace Enter Down Tab m RESIZE Down v" "$TEXT"
compare "100x30 wide characters" 100 30 "Down Down e BSpace BSpace Enter Tab Down" \
    '猫 sat on the 日本 mat'
# A long text: pooled heads drawn in half blocks.
seq 1 400 | sed 's/^/word/' | tr '\n' ' ' >"$WORK/long.txt"
compare "120x40 long text in half blocks" 120 40 "Down Tab Down PPage NPage m" -f "$WORK/long.txt"
exit $fail

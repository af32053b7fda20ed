#!/bin/bash
# tui_paint.sh - the screen drawn a changed cell at a time (color_paint keeps
# the last frame, screen.c writes only what differs) is the screen drawn
# whole: the same keys are sent to the program twice, once as it runs and
# once with ATTNVIZ_FULL_REDRAW=1 (every frame cleared and drawn whole), and
# the captures after every key, cell by cell with colours and attributes
# (lib/cells.py), must be the same, timings aside.
# On every terminal of TERMS (xterm-256color; 8-colour xterm, screen-256color,
# linux, vt100 with padding in its strings and no colour, ansi with no xenl so
# that the bottom-right cell is left alone) at 90x28: typing, heads, the mask,
# the views, the help, a resize and back. On xterm-256color besides, at
# 120x40, 80x24 (then a resize) and 100x30: more views, rows and columns, wide
# characters, and a long text in half blocks. PAINT_SIZES=all (make fulltest)
# runs the long key list on every terminal at 80x24, 100x30 and 120x40 too.
# The other checks of the terminal (looks, restoring it) are tui_screen.sh's.
# Prints "ok - name" / "not ok - name"; exits non-zero on a failure.
# tier: test
# asan: no
set -u
. "$(dirname "$0")/lib/tui.sh"
tui_init paint
CELLS="$(dirname "$0")/lib/cells.py"
TERMS=${TERMS:-xterm-256color xterm screen-256color linux vt100 ansi}

# run TAG TERM FULL W H KEYS ARGS...: one run, the pane with its colours
# after every key into $WORK/TAG/ (made cells by compare, all at once).
# RESIZE=WxH resizes the window, BACK resizes it back to W x H.
run() {
    local tag=$1 term=$2 full=$3 w=$4 h=$5 ks=$6 n=0 k; shift 6
    mkdir -p "$WORK/$tag"
    tui_start "TERM=$term ATTNVIZ_FULL_REDRAW=$full" "$w" "$h" --preset random "$@"
    tmux -L "$SOCK" capture-pane -p -e -N -t s >"$WORK/$tag/000"
    for k in $ks; do
        n=$((n + 1))
        case $k in
        RESIZE=*) k=${k#RESIZE=}; resize "${k%x*}" "${k#*x}" ;;
        BACK) resize "$w" "$h" ;;
        *) keys "$k" ;;
        esac
        settle
        printf '%s\n' "$SETTLED" >"$WORK/$tag/$(printf %03d $n)"
    done
    keys F10
}

# The text of a capture made cells, its looks left out.
text_of() { sed -E 's/\[[^]]*\]//g; s/(.) /\1/g' "$@"; }

compare() { # NAME TERM W H KEYS ARGS...
    local name=$1 term=$2 w=$3 h=$4 ks=$5; shift 5
    rm -rf "$WORK/inc" "$WORK/full"
    run inc "$term" 0 "$w" "$h" "$ks" "$@"
    run full "$term" 1 "$w" "$h" "$ks" "$@"
    # The times (which differ run to run) masked: a time's width moves the
    # padding before it, and the model's run time's width where the cost
    # line is cut, so both go with it. Then every cell with its whole look:
    # the escape codes of two captures of the same screen differ where tmux
    # keeps cleared cells apart from written spaces.
    sed -i -E 's/ *[0-9]+(\.[0-9]+)? ms/ N ms/g; s/(Cost: .*run N ms).*/\1/' \
        "$WORK"/inc/* "$WORK"/full/*
    python3 "$CELLS" "$WORK"/inc/* "$WORK"/full/*
    local screens shown coloured colours
    screens=$(find "$WORK/inc" -type f | wc -l)
    shown=$(for f in "$WORK"/inc/*; do text_of "$f" | grep -q 'attnviz' && echo; done | wc -l)
    coloured=$(grep -l 'fg=[0-9]' "$WORK"/inc/* 2>/dev/null | wc -l)
    colours=$(tput -T "$term" colors 2>/dev/null || echo 0)
    if [ "$shown" -lt 2 ]; then
        notok "$name: the interface was not captured ($shown screens)"
    elif [ "$colours" -ge 8 ] && [ "$coloured" -lt 1 ]; then
        notok "$name: no coloured screens captured ($screens, $coloured coloured)"
    elif diff -r "$WORK/inc" "$WORK/full" >"$WORK/diff" 2>&1; then
        ok "$name: $screens screens the same drawn incrementally and whole"
    else
        notok "$name: incremental and whole frames differ"
        head -20 "$WORK/diff" | cut -c1-300
    fi
}

TEXT='the quick brown fox jumps over the lazy dog'
KEYS='e s BSpace Enter Down Tab m v S b w ? Escape RESIZE=83x25 Down BACK'
for term in $TERMS; do
    compare "$term 90x28" "$term" 90 28 "$KEYS" "$TEXT"
done

LONGER='the quick brown fox jumps over the lazy dog near the river'
LONG_KEYS='e s BSpace s Enter Down Down Tab 2 Right Right m v v S S b b B B w w ? Escape p C-k Left Up'
compare "xterm-256color 120x40 typing and views" xterm-256color 120 40 "$LONG_KEYS" "$LONGER"
compare "xterm-256color 80x24 typing and views, then a resize" xterm-256color 80 24 \
    "e s BSpace Enter Down Tab m RESIZE=70x20 Down v" "$LONGER"
compare "xterm-256color 100x30 wide characters" xterm-256color 100 30 \
    "Down Down e BSpace BSpace Enter Tab Down" '猫 sat on the 日本 mat'
# A long text: pooled heads drawn in half blocks.
seq 1 400 | sed 's/^/word/' | tr '\n' ' ' >"$WORK/long.txt"
compare "xterm-256color 120x40 long text in half blocks" xterm-256color 120 40 \
    "Down Tab Down PPage NPage m" -f "$WORK/long.txt"

if [ "${PAINT_SIZES:-}" = all ]; then
    for term in $TERMS; do
        for size in 80x24 100x30 120x40; do
            compare "$term $size, every key" "$term" "${size%x*}" "${size#*x}" \
                "$LONG_KEYS RESIZE=75x22 Down BACK" "$LONGER"
        done
    done
fi
exit $fail

#!/bin/bash
# tui_help_resize.sh - the help keeps its place through a resize. At 80x24
# ? then End shows the help's last lines ("Up: more (a-b of c)"); a resize
# to 120x40, where more of it fits, and back to 80x24 showed its top again
# ("Down: more (1-...)"): the larger frame had clamped the scroll. Also at
# 100x30, and Up after the resize moves from the end shown.
# tier: test
# asan: no
cd "$(dirname "$0")/../.." || exit 1
. tests/e2e/lib/tui.sh
tui_init help_resize
export LC_ALL=C.UTF-8
more() { screen | grep -o '\(Up\|Down\|Up/Down\): more ([0-9]*-[0-9]* of [0-9]*)' | head -1; }

for size in "80 24" "100 30"; do
    set -- $size
    at="$1x$2"
    tui_start TERM=xterm-256color "$1" "$2" 'The cat sat on the mat'
    keys '?' && wait_for 'attnviz keys' && settle
    keys End && settle
    end=$(more)
    check "$at: End shows the help's last lines: \"$end\"" grep -q '^Up: more' <<<"$end"
    resize 120 40 && settle
    resize "$1" "$2" && settle
    back=$(more)
    check "$at: after 120x40 and back the help is where it was: \"$back\"" \
        test "$back" = "$end"
    keys Up && settle
    up=$(more)
    check "$at: ... and Up moves one line from there: \"$up\"" grep -q '^Up/Down: more' <<<"$up"
    keys q && wait_for 'EXITED:0' && ok "$at: q quits with status 0" || notok "$at: q: $(screen | tail -2)"
done
exit $fail

#!/bin/bash
# tui_cmp_labels.sh - side by side (b) at 80x24, 100x30 and 120x40: the
# two heatmaps are as wide and label their rows alike. At 80x24 the left
# side was one column narrower than the right (39 against 40 columns) and
# cut "7 because" to "7 becau…" where the right showed it whole.
# tier: test
# asan: no
cd "$(dirname "$0")/../.." || exit 1
. tests/e2e/lib/tui.sh
tui_init cmp_labels
export LC_ALL=C.UTF-8
# the row labels ("7 because") of one side: left of the divider or right of it
labels() {
    screen | awk -F'│' -v side="$1" 'NF == 2 { s = side == "L" ? $1 : $2
        if (match(s, /^ *[0-9]+ [^ ]+/)) print substr(s, RSTART, RLENGTH) }'
}

for size in "80 24" "100 30" "120 40"; do
    set -- $size
    at="$1x$2"
    tui_start TERM=xterm-256color "$1" "$2"
    keys b && wait_for 'mask ON' && settle
    l=$(labels L) r=$(labels R)
    check "$at: b shows the 11 row labels on each side ($(wc -l <<<"$l"), $(wc -l <<<"$r"))" \
        eval '[ "$(wc -l <<<"$l")" = 11 ] && [ "$(wc -l <<<"$r")" = 11 ]'
    check "$at: ... the same on both sides: $(sed -n 7p <<<"$l") | $(sed -n 7p <<<"$r")" \
        test "$l" = "$r"
    keys q && wait_for 'EXITED:0' && ok "$at: q quits with status 0" || notok "$at: q: $(screen | tail -2)"
done
exit $fail

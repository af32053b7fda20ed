#!/bin/bash
# tui_trace_align.sh - the trace panel (w) at 80x24, 100x30 and 120x40:
# each value vector v[...], broken onto a line of its own where the box is
# too narrow for it beside its key, starts in the column its k[...] starts
# in. The wrap indented every piece after the first 4 columns further in,
# so each v[...] line sat 4 columns right of the k[...] line above it.
# tier: test
# asan: no
cd "$(dirname "$0")/../.." || exit 1
. tests/e2e/lib/tui.sh
tui_init trace_align
export LC_ALL=C.UTF-8
# col RE: the column of the first match of RE on the screen, "" when none
col() { screen | awk -v re="$1" 'match($0, re) { print RSTART; exit }'; }

for size in "80 24" "100 30" "120 40"; do
    set -- $size
    at="$1x$2"
    tui_start TERM=xterm-256color "$1" "$2" 'The cat sat'
    keys w && wait_for 'Calculation trace: head' && settle
    for t in The cat sat; do
        k=$(col "k\\[$t\\] = ") v=$(col "v\\[$t\\] = ")
        check "$at: v[$t] starts in k[$t]'s column ($v, $k)" \
            eval '[ -n "$k" ] && [ "$k" = "$v" ]'
    done
    keys q && wait_for 'EXITED:0' && ok "$at: q quits with status 0" || notok "$at: q: $(screen | tail -2)"
done
exit $fail

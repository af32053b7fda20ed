#!/bin/bash
# example_notes.sh - every built-in example's note says what the screen shows
# with that example's settings (issue 25): each claim of each note checked
# against --dump of the example's settings (lib/example_notes.py: which token
# a head sends a token to, the per cents, the mask, the word order), and the
# interface, walked through the examples with n at 120x40, 100x30 and 80x24,
# opens each on the note's head and token with the same top key as the dump.
# tier: test
# asan: no
cd "$(dirname "$0")/../.." || exit 1
. tests/e2e/lib/tui.sh
tui_init notes
export LC_ALL=C.UTF-8

/usr/bin/python3 tests/e2e/lib/example_notes.py "$BIN" assets/sentences.txt || fail=1

/usr/bin/python3 tests/e2e/lib/example_notes.py "$BIN" assets/sentences.txt --tops \
    >"$WORK/tops" || notok "the examples' top keys from --dump"
# on_screen: "token head top pct" of the screen: the bars' title and first bar
on_screen() {
    screen | /usr/bin/python3 -c '
import re, sys
text = sys.stdin.read()
h = re.search(r"^Head (\d+) of", text, re.M)  # the focused head: its bars
t = re.search(r"(?:Token )?\d+ (\S+) attends to", text)  # "Token" goes where narrow
b = re.search(r"(\S+) +(\d+\.\d)% [█▉▊▋▌▍▎▏]", text[t.end():]) if t else None
print(" ".join([t.group(1), h.group(1), b.group(1), b.group(2)]) if b and h else "none")'
}
for size in "120 40" "100 30" "80 24"; do
    set -- $size
    tui_start TERM=xterm-256color "$1" "$2"
    while read -r k head tok top pct; do
        [ "$k" -gt 1 ] && { keys n; wait_for "^Sentence: " && settle; }
        read -r s_tok s_head s_top s_pct <<<"$(on_screen)"
        if [ "$s_tok $s_head $s_top" = "$tok $head $top" ] &&
            awk -v a="$s_pct" -v b="$pct" 'BEGIN { exit !(a - b <= 0.1 && b - a <= 0.1) }'; then
            ok "$1x$2 example $k: head $head, \"$tok\" -> $top $s_pct% as --dump ($pct%)"
        else
            notok "$1x$2 example $k: screen \"$s_tok\" head $s_head -> $s_top $s_pct%, \
--dump \"$tok\" head $head -> $top $pct%"
        fi
    done <"$WORK/tops"
done
exit $fail

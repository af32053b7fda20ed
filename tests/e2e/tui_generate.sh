#!/bin/bash
# tui_generate.sh - g in the interface samples with the command line's
# --temperature and --top-k, as --generate does: with --top-k 1, or with
# --temperature 0.01, six presses of g on the character model grow 'the ' by
# the six most likely characters, the ones `--generate 6 --top-k 1` prints;
# at the default temperature 1 they are sampled, and differ.
# tier: test
# asan: no
cd "$(dirname "$0")/../.." || exit 1
. tests/e2e/lib/tui.sh
tui_init generate
ROOT=$PWD
M=$ROOT/assets/models/chars
sentence() { screen | sed -n 's/^Sentence: //p' | head -1 | sed 's/ *$//'; }

# Six presses of g, each awaited (the message names the token added).
six_g() {
    for k in 1 2 3 4 5 6; do
        keys g
        wait_for "only row $((4 + k)) \(\+\) is new" || return 1
    done
    settle
}

greedy=$("$BIN" --model "$M" --generate 6 --top-k 1 'the ')
check "the batch's greedy continuation of 'the ' ('$greedy')" test "${#greedy}" -eq 6

tui_start TERM=xterm-256color 100 30 --model "$M" --top-k 1 'the '
six_g
s=$(sentence)
check "--top-k 1: g adds the most likely characters ('$s')" test "$s" = "the $greedy"

tui_start TERM=xterm-256color 100 30 --model "$M" --temperature 0.01 'the '
six_g
s=$(sentence)
check "--temperature 0.01: g adds the most likely characters ('$s')" test "$s" = "the $greedy"

tui_start TERM=xterm-256color 100 30 --model "$M" 'the '
six_g
s=$(sentence)
check "temperature 1 (default): g samples, not the most likely ('$s')" \
    eval '[ ${#s} -eq 10 ] && [ "$s" != "the $greedy" ]'

check "--top-k without --generate in a batch run is refused" \
    eval '! "$BIN" --model "$M" --top-k 2 -e csv "the " >/dev/null 2>&1'
cd "$ROOT" || exit 1
exit $fail

#!/bin/bash
# tui_train_labels.sh - the live training view's labels at 80x24, 100x30 and
# 120x40: every head of every score strip is named, once, never cut (with
# more heads than a strip has rows, names share a row: "L1H2 L2H2", or
# merged by layer, "L1H1,2 L2H1"; a strip of 3 rows once left a head of 4
# unnamed at 80x24 and 100x30, and 5 of 8); read from capture-pane
# (lib/train_names.py). The titles fit or take a shorter form, never cut
# ("…"): the header (a 20-digit seed at 80x24 and 60x18), and after 400
# steps the strip naming the heads that became induction heads ("◆ L2H1
# at step 221, L2H2 at step 259" or "at 221") and the loss's "▲" note.
# tier: test
# asan: no
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/e2e/lib/tui.sh
tui_init train_labels

start_train() {
    local w=$1 h=$2; shift 2
    tui_session "$w" "$h" \
        "env TERM=xterm-256color LC_ALL=C.UTF-8 $(printf '%q ' "$BIN" "$@"); echo EXITED:\$?; sleep 60"
    wait_for '^Training ' && wait_for '^step [0-9]'
}

# check_names SIZE TASK HEADS...: every strip on screen names each of HEADS once
check_names() {
    local size=$1 task=$2 want kind heads n=0 bad=""
    shift 2
    want="$*"
    while read -r kind heads; do
        n=$((n + 1))
        [ "$heads" = "$want" ] || bad="$bad $kind names '$heads';"
    done < <(/usr/bin/python3 tests/e2e/lib/train_names.py "$WORK/shot")
    check "$task at $size: $n strips (3 at least), each naming $want${bad:+:$bad}" \
        test "$n" -ge 3 -a -z "$bad"
}

for size in 80x24 100x30 120x40; do
    w=${size%x*} h=${size#*x}
    start_train "$w" "$h" --train induction
    keys Space && settle # paused: the names stay where they are read
    screen >"$WORK/shot"
    check_names "$size" induction L1H1 L1H2 L2H1 L2H2
    start_train "$w" "$h" --train copy
    keys Space && settle
    screen >"$WORK/shot"
    check_names "$size" copy L1H1 L1H2 L1H3 L1H4 L2H1 L2H2 L2H3 L2H4
done

# titles_whole SIZE: no title line of the view ends cut ("…")
titles_whole() {
    local cut
    cut=$(grep -E '^Training|score|loss' "$WORK/shot" | grep '…')
    check "$1: the header, strip and loss titles whole${cut:+ (cut: $cut)}" test -z "$cut"
}
seed=18446744073709551615
for size in 80x24 60x18; do
    w=${size%x*} h=${size#*x}
    start_train "$w" "$h" --train induction --seed "$seed"
    screen >"$WORK/shot"
    check "$size: the header names the seed whole" grep -q "^Training induction.*seed $seed\$" "$WORK/shot"
    titles_whole "$size, seed $seed"
done
for size in 80x24 100x30 120x40; do
    w=${size%x*} h=${size#*x}
    start_train "$w" "$h" --train induction
    for _ in 1 2 3 4 5 6 7 8; do keys +; done
    WAIT_TICKS=1200 wait_for '^step 400.*paused' && settle
    screen >"$WORK/shot"
    titles_whole "$size, step 400"
    check "$size: the induction strip names L2H1 and L2H2 with their steps" \
        grep -Eq "induction score  ◆ L2H1 at (step )?221, L2H2 at (step )?259" "$WORK/shot"
    check "$size: the loss title says what ▲ marks" grep -Eq "loss.*▲ (a head )?passed 0.5" "$WORK/shot"
done
exit "$fail"

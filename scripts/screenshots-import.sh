#!/bin/bash
# screenshots-import.sh - the picture of imported multi-layer attention with
# rollout for README.md (issue 14): attnviz's own three-layer run of the
# designed heads is dumped (attention.npy, tokens.txt), opened again with
# --attention as any model's attention would be, and shown on its last layer
# with the rollout across the layers (O). Same way as scripts/screenshots.sh:
# a tmux session photographed in an xterm under Xvfb with ImageMagick, the
# text beside it. Needs: xvfb xterm imagemagick fonts-dejavu-core tmux.
#   scripts/screenshots-import.sh     writes screenshots/import-rollout.{png,txt}
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${ATTNVIZ:-$PWD/attnviz}
OUT=$PWD/screenshots
SOCK=attnviz-shots-import-$$
DISP=:$((80 + $$ % 9))
for tool in Xvfb xterm import tmux; do
    command -v $tool >/dev/null || {
        echo "screenshots-import: $tool is missing (apt-get install xvfb xterm imagemagick)" >&2
        exit 1
    }
done
WORK=$(mktemp -d)
mkdir -p "$OUT"
Xvfb "$DISP" -screen 0 1600x1000x24 >/dev/null 2>&1 & xpid=$!
cleanup() {
    tmux -L "$SOCK" kill-server 2>/dev/null || true
    kill $xpid 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT
sleep 1

# The attention of a three-layer run, as a model elsewhere would export it.
"$BIN" --dump "$WORK/run" --layers 3 --preset designed 'Anna saw the dog and she petted it.'

settle() {
    local prev="" cur
    for _ in $(seq 30); do
        cur=$(tmux -L "$SOCK" capture-pane -p -t s 2>/dev/null || true)
        [ -n "$cur" ] && [ "$cur" = "$prev" ] && return 0
        prev=$cur; sleep 0.1
    done
}

name=import-rollout cols=120 rows=40
tmux -L "$SOCK" -f /dev/null new-session -d -s s -x $cols -y $rows -c "$WORK" \
    "env TERM=xterm-256color LC_ALL=C.UTF-8 $BIN --attention run/attention.npy \
     --tokens run/tokens.txt; sleep 60"
tmux -L "$SOCK" set -g status off
settle
for k in l l O Down Down Down Down Down; do # layer 3, the rollout, token 6 "she"
    tmux -L "$SOCK" send-keys -t s "$k"
    sleep 0.15
done
settle
tmux -L "$SOCK" capture-pane -p -t s >"$OUT/$name.txt"
grep -qi 'rollout of layers 1-3' "$OUT/$name.txt" ||
    { echo "screenshots-import: the rollout is not on the screen" >&2; exit 1; }
DISPLAY=$DISP xterm -tn xterm-256color -geometry "${cols}x${rows}+0+0" \
    -fa 'DejaVu Sans Mono' -fs 11 -bg black -fg white \
    -e env TERM=xterm-256color tmux -L "$SOCK" attach -t s >/dev/null 2>&1 & tpid=$!
sleep 1.5
DISPLAY=$DISP import -window root -trim "$OUT/$name.png"
kill $tpid 2>/dev/null || true
echo "screenshots-import: $name.png $name.txt"

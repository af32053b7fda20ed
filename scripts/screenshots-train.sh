#!/bin/bash
# screenshots-train.sh - pictures of the live training view for README.md
# ("Watch a transformer learn"): `attnviz --train induction` at 120x40 just
# after it starts, paused when the first induction head has formed, and at
# the end of its 400 steps. Each runs in a tmux session (text captured into
# screenshots/NAME.txt); an xterm under Xvfb attached to it is photographed
# with ImageMagick into screenshots/NAME.png.
# Needs: xvfb xterm imagemagick fonts-dejavu-core tmux (Debian packages).
#   scripts/screenshots-train.sh            all three
#   scripts/screenshots-train.sh NAME...    only these (train-start train-formed train-end)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${ATTNVIZ:-$PWD/attnviz}
OUT=$PWD/screenshots
DISP=:$((80 + $$ % 9))
SOCK=attnviz-train-shots-$$
for tool in Xvfb xterm import tmux; do
    command -v $tool >/dev/null || { echo "screenshots-train: $tool is missing (apt-get install xvfb xterm imagemagick tmux)" >&2; exit 1; }
done
mkdir -p "$OUT"
WORK=$(mktemp -d)
Xvfb "$DISP" -screen 0 1600x1000x24 >/dev/null 2>&1 & xpid=$!
cleanup() { tmux -L "$SOCK" kill-server 2>/dev/null || true; kill $xpid 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT
sleep 1

screen() { tmux -L "$SOCK" capture-pane -p -t s 2>/dev/null || true; }
# wait_for RE [SECONDS]
wait_for() {
    for _ in $(seq $((${2:-10} * 20))); do
        screen | grep -Eq -- "$1" && return 0
        sleep 0.05
    done
    echo "screenshots-train: timed out waiting for /$1/" >&2
    return 1
}

start() {
    tmux -L "$SOCK" kill-server 2>/dev/null || true
    SOCK=attnviz-train-shots-$$-$1 # a fresh server for each picture
    tmux -L "$SOCK" -f /dev/null new-session -d -s s -x 120 -y 40 -c "$WORK" \
        "env TERM=xterm-256color LC_ALL=C.UTF-8 $BIN --train induction; sleep 120"
    tmux -L "$SOCK" set -g status off
    wait_for '^step [0-9]'
}

photo() {
    local name=$1
    screen > "$OUT/$name.txt"
    DISPLAY=$DISP xterm -tn xterm-256color -geometry 120x40+0+0 \
        -fa 'DejaVu Sans Mono' -fs 11 -bg black -fg white \
        -e env TERM=xterm-256color tmux -L "$SOCK" attach -t s >/dev/null 2>&1 & local tpid=$!
    sleep 1.5
    DISPLAY=$DISP import -window root -trim "$OUT/$name.png"
    kill $tpid 2>/dev/null || true
    echo "screenshots-train: $name.png $name.txt"
}

want() { [ ${#SEL[@]} -eq 0 ] || [[ " ${SEL[*]} " == *" $1 "* ]]; }
SEL=("$@")

if want train-start; then
    start train-start
    wait_for '^step ([3-9][0-9]|1[0-9][0-9]) ' 20 # a few dozen steps: the loss falls, heads are noise
    tmux -L "$SOCK" send-keys -t s Space
    wait_for '  paused$'
    photo train-start
fi
if want train-formed; then
    start train-formed
    wait_for 'became an induction head' 120
    tmux -L "$SOCK" send-keys -t s Space
    wait_for '  paused$'
    photo train-formed
fi
if want train-end; then
    start train-end
    tmux -L "$SOCK" send-keys -t s + + + # 8 steps a frame: the end sooner
    wait_for '400 steps done' 180
    photo train-end
fi

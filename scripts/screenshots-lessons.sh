#!/bin/bash
# screenshots-lessons.sh - pictures for README.md ("Teaching with attnviz"):
# a lesson page asking its question (the numbers hidden until the reveal),
# the same page after the reveal, and the pipeline view of seed 001's
# "Cat eats fish". Each runs in a tmux session at 120x40 (text captured into
# screenshots/NAME.txt); an xterm under Xvfb attached to it is photographed
# with ImageMagick into screenshots/NAME.png.
# Needs: xvfb xterm imagemagick fonts-dejavu-core tmux (Debian packages).
#   scripts/screenshots-lessons.sh            all three
#   scripts/screenshots-lessons.sh NAME...    only these (lesson-question lesson-reveal pipeline)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${ATTNVIZ:-$PWD/attnviz}
OUT=$PWD/screenshots
DISP=:$((80 + $$ % 9))
SOCK=attnviz-lesson-shots-$$
for tool in Xvfb xterm import tmux; do
    command -v $tool >/dev/null || { echo "screenshots-lessons: $tool is missing (apt-get install xvfb xterm imagemagick tmux)" >&2; exit 1; }
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
    echo "screenshots-lessons: timed out waiting for /$1/" >&2
    return 1
}

# start NAME WAIT-FOR ARGS...: attnviz ARGS in a fresh tmux server
start() {
    local name=$1 re=$2
    shift 2
    tmux -L "$SOCK" kill-server 2>/dev/null || true
    SOCK=attnviz-lesson-shots-$$-$name # a fresh server for each picture
    tmux -L "$SOCK" -f /dev/null new-session -d -s s -x 120 -y 40 -c "$PWD" \
        "env TERM=xterm-256color LC_ALL=C.UTF-8 $BIN $* ; sleep 120"
    tmux -L "$SOCK" set -g status off
    wait_for "$re"
}
keys() { tmux -L "$SOCK" send-keys -t s "$@"; sleep 0.4; }

photo() {
    local name=$1
    screen > "$OUT/$name.txt"
    DISPLAY=$DISP xterm -tn xterm-256color -geometry 120x40+0+0 \
        -fa 'DejaVu Sans Mono' -fs 11 -bg black -fg white \
        -e env TERM=xterm-256color tmux -L "$SOCK" attach -t s >/dev/null 2>&1 & local tpid=$!
    sleep 1.5
    DISPLAY=$DISP import -window root -trim "$OUT/$name.png"
    kill $tpid 2>/dev/null || true
    echo "screenshots-lessons: $name.png $name.txt"
}

want() { [ ${#SEL[@]} -eq 0 ] || [[ " ${SEL[*]} " == *" $1 "* ]]; }
SEL=("$@")

if want lesson-question; then
    start lesson-question 'your prediction' --lesson cat-eats-fish
    keys b
    photo lesson-question
fi
if want lesson-reveal; then
    start lesson-reveal 'your prediction' --lesson cat-eats-fish
    keys b
    keys Enter
    wait_for '^.*answer: '
    photo lesson-reveal
fi
if want pipeline; then
    start pipeline 'Cat' --weights assets/seed001 -d 4 -H 2 --no-pe "'Cat eats fish'"
    keys S
    wait_for 'softmax'
    photo pipeline
fi

#!/bin/bash
# screenshots.sh - pictures of the real program for README.md.
#
# Each view runs in a tmux session (keys sent with send-keys, text captured
# with capture-pane into screenshots/NAME.txt); an xterm under Xvfb attached
# to that session is photographed with ImageMagick into screenshots/NAME.png.
# Needs: xvfb xterm imagemagick fonts-dejavu-core tmux (Debian packages).
#   scripts/screenshots.sh            every view
#   scripts/screenshots.sh NAME...    only these
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${ATTNVIZ:-$PWD/attnviz}
OUT=$PWD/screenshots
SOCK=attnviz-shots-$$
DISP=:$((90 + $$ % 9))
for tool in Xvfb xterm import tmux; do
    command -v $tool >/dev/null || { echo "screenshots: $tool is missing (apt-get install xvfb xterm imagemagick tmux)" >&2; exit 1; }
done
mkdir -p "$OUT"
Xvfb "$DISP" -screen 0 1600x1000x24 >/dev/null 2>&1 & xpid=$!
cleanup() { tmux -L "$SOCK" kill-server 2>/dev/null || true; kill $xpid 2>/dev/null || true; }
trap cleanup EXIT
sleep 1

# settle: wait until the pane stops changing (at most ~3 s)
settle() {
    local prev="" cur
    for _ in $(seq 30); do
        cur=$(tmux -L "$SOCK" capture-pane -p -t s 2>/dev/null || true)
        [ -n "$cur" ] && [ "$cur" = "$prev" ] && return 0
        prev=$cur; sleep 0.1
    done
}

# shot NAME COLS ROWS "ARGS" KEY...  (KEY: tmux key names; "-l:text" types text)
shot() {
    local name=$1 cols=$2 rows=$3 args=$4; shift 4
    tmux -L "$SOCK" kill-server 2>/dev/null || true
    SOCK=attnviz-shots-$$-$name # a fresh server for each picture
    tmux -L "$SOCK" -f /dev/null new-session -d -s s -x "$cols" -y "$rows" \
        "env TERM=xterm-256color LC_ALL=C.UTF-8 $BIN $args; sleep 60"
    tmux -L "$SOCK" set -g status off
    for _ in $(seq 200); do # the first run of a long text takes seconds
        tmux -L "$SOCK" capture-pane -p -t s 2>/dev/null | grep -q ' tokens [0-9]' && break
        sleep 0.1
    done
    settle
    for k in "$@"; do
        case $k in
            -l:*) tmux -L "$SOCK" send-keys -t s -l "${k#-l:}" ;;
            *) tmux -L "$SOCK" send-keys -t s "$k" ;;
        esac
        sleep 0.15
    done
    settle
    tmux -L "$SOCK" capture-pane -p -t s > "$OUT/$name.txt"
    DISPLAY=$DISP xterm -tn xterm-256color -geometry "${cols}x${rows}+0+0" \
        -fa 'DejaVu Sans Mono' -fs 11 -bg black -fg white \
        -e env TERM=xterm-256color tmux -L "$SOCK" attach -t s >/dev/null 2>&1 & local tpid=$!
    sleep 1.5
    DISPLAY=$DISP import -window root -trim "$OUT/$name.png"
    kill $tpid 2>/dev/null || true
    echo "screenshots: $name.png $name.txt"
}

want() { [ $# -eq 0 ] || [[ " $* " == *" $1 "* ]]; }
run() { local name=$1; shift; if [ ${#SEL[@]} -eq 0 ] || [[ " ${SEL[*]} " == *" $name "* ]]; then shot "$name" "$@"; fi; }
SEL=("$@")

# The first screen, as ./attnviz opens: the designed heads on seed 000's sentence.
run heatmap 120 40 ""
run first100 100 30 ""
run small 80 24 ""
run cell 120 40 "" n n n Right Right
run examples 120 40 "" n n n n
run causal 120 40 "-c 'Anna saw the dog and she petted it.'" Down Down Down Down Down
run designed 120 40 "'Anna saw the dog and she petted it.'" 5 Down Down Down Down Down
run random 120 40 "'The cat sat on the mat because it was tired.'" P Down Down Down Down Down Down Down
run positional 120 40 "'The bank by the river was old.'" F2
run help 120 40 "'Cat eats fish'" F1
run help80 80 24 "'Cat eats fish'" F1
run mono 100 32 "--color never 'Anna saw the dog and she petted it.'" 5 Down Down Down Down Down
run trace 120 40 "--weights assets/seed001 -d 4 -H 2 --no-pe 'Cat eats fish'" w
run sidebyside 120 40 "" b
run sidebyside80 80 24 "" b
run cross 120 40 "--preset random --cross 'Le chat est assis sur le tapis' 'The cat sat on the mat'" Down
run sentence38 100 30 "'When the old fisherman finally came back from the sea after three long weeks , the whole village gathered at the harbour and everyone wanted to hear what he had seen out there , away at sea .'" End
LONG=$(mktemp)
for _ in $(seq 60); do grep -v '^[#@>]' assets/sentences.txt; done >"$LONG"
run long 120 40 "--max-tokens 16384 -f $LONG" Down Down Down Down Down Down
rm -f "$LONG"

# shots.sh - what the screenshot scripts share, sourced by them: attnviz in a
# tmux session of its own (text captured into screenshots/NAME.txt), an
# xterm under Xvfb attached to it, photographed with ImageMagick into
# screenshots/NAME.png. Needs: xvfb xterm imagemagick fonts-dejavu-core tmux.
#   shots_init TAG              check the tools, start Xvfb, clean up at exit
#   shots_start NAME RE ARGS... attnviz ARGS at SHOTS_W x SHOTS_H (120x40) in a fresh tmux server
#                               (working folder: the repository), wait for RE
#   keys KEY...                 send keys, then a short pause
#   wait_for RE [SECONDS]       wait until the screen matches RE (default 10 s)
#   photo NAME                  the screen as NAME.txt and NAME.png
#   want NAME                   whether NAME was asked for (no arguments: all)
BIN=${ATTNVIZ:-$PWD/attnviz}
OUT=$PWD/screenshots

shots_init() {
    SHOTS_TAG=$1
    DISP=:$((80 + $$ % 9))
    SOCK=attnviz-$SHOTS_TAG-shots-$$
    for tool in Xvfb xterm import tmux; do
        command -v $tool >/dev/null || {
            echo "screenshots-$SHOTS_TAG: $tool is missing (apt-get install xvfb xterm imagemagick tmux)" >&2
            exit 1
        }
    done
    mkdir -p "$OUT"
    WORK=$(mktemp -d)
    Xvfb "$DISP" -screen 0 1600x1000x24 >/dev/null 2>&1 & SHOTS_XPID=$!
    trap shots_cleanup EXIT
    sleep 1
}

shots_cleanup() {
    tmux -L "$SOCK" kill-server 2>/dev/null || true
    kill "$SHOTS_XPID" 2>/dev/null || true
    rm -rf "$WORK"
}

screen() { tmux -L "$SOCK" capture-pane -p -t s 2>/dev/null || true; }

wait_for() {
    for _ in $(seq $((${2:-10} * 20))); do
        screen | grep -Eq -- "$1" && return 0
        sleep 0.05
    done
    echo "screenshots-$SHOTS_TAG: timed out waiting for /$1/" >&2
    return 1
}

shots_start() {
    local name=$1 re=$2
    shift 2
    tmux -L "$SOCK" kill-server 2>/dev/null || true
    SOCK=attnviz-$SHOTS_TAG-shots-$$-$name # a fresh server for each picture
    tmux -L "$SOCK" -f /dev/null new-session -d -s s -x "${SHOTS_W:-120}" -y "${SHOTS_H:-40}" -c "$PWD" \
        "env TERM=xterm-256color LC_ALL=C.UTF-8 $BIN $* ; sleep 120"
    tmux -L "$SOCK" set -g status off
    wait_for "$re"
}

keys() { tmux -L "$SOCK" send-keys -t s "$@"; sleep 0.4; }

photo() {
    local name=$1
    screen >"$OUT/$name.txt"
    DISPLAY=$DISP xterm -tn xterm-256color -geometry "${SHOTS_W:-120}x${SHOTS_H:-40}+0+0" \
        -fa 'DejaVu Sans Mono' -fs 11 -bg black -fg white \
        -e env TERM=xterm-256color tmux -L "$SOCK" attach -t s >/dev/null 2>&1 & local tpid=$!
    sleep 1.5
    DISPLAY=$DISP import -window root -trim "$OUT/$name.png"
    kill $tpid 2>/dev/null || true
    echo "screenshots-$SHOTS_TAG: $name.png $name.txt"
}

want() { [ ${#SEL[@]} -eq 0 ] || [[ " ${SEL[*]} " == *" $1 "* ]]; }

# tui.sh - what the tmux end-to-end tests share: sourced, never run alone.
#
#   tui_init NAME      a tmux socket and a work folder of this test's own,
#                      both removed on exit
#   tui_start "ENV" W H ARGS...
#                      run $BIN with ARGS in a fresh session of W x H columns,
#                      with ENV (e.g. "TERM=xterm-256color") in its environment;
#                      then $AFTER (default: print EXITED:status and wait) runs in
#                      the pane; waits for the status line
#   tui_session W H CMD
#                      a new session "s" of W x H running CMD in a fresh tmux
#                      server (the old one stopped and gone first)
#   screen, keys       the pane's text; send-keys to it
#   resize W H         resize the window (as a key: settle waits for its frame)
#   settle [GET]       wait for the frame of the keys sent since the last
#                      settle (see below; 3 s at most); with no key sent,
#                      until the screen (or what command GET prints of it)
#                      stops changing
#   wait_for RE        wait until the screen matches RE (WAIT_TICKS x 50 ms)
#   ok, notok, check   "ok - name" / "not ok - name" lines; $fail set on failure
#
# Frames: the program started by tui_start (or with $FRAME_ENV in its
# environment) writes "N idle" or "N busy" to $FRAMES after each frame
# (ATTNVIZ_FRAME_FILE, src/ui/color.c; busy: another frame follows with no
# key) and sets the terminal's title to "attnviz frame N" after the frame.
# keys and resize note N before sending; settle waits for a later idle frame
# and captures the pane when tmux shows its title, so a key costs its frame
# and one capture, not 100 ms of polling; wait_for captures when a frame came,
# not every 50 ms.
BIN=${ATTNVIZ:-$PWD/attnviz}
fail=0
FRAMES="" FRAME_ENV="" FRAME_MARK=""
SESS=s # the session screen, keys and settle work on
WAIT_TICKS=${WAIT_TICKS:-100}

tui_init() {
    SOCK="attnviz-e2e-$1-$$"
    WORK=$(mktemp -d)
    FRAMES=$WORK/frames
    FRAME_ENV="ATTNVIZ_FRAME_FILE=$FRAMES"
    FRAME_MARK=""
    # The caller's own EXIT trap (its temporary folder) runs after ours:
    # trap -p prints it quoted for the shell, so set -- takes it apart.
    eval "set -- $(trap -p EXIT)"
    TUI_CALLER_TRAP=${3:-}
    trap 'tmux -L "$SOCK" kill-server 2>/dev/null; rm -rf "$WORK"; eval "$TUI_CALLER_TRAP"' EXIT
}

ok() { echo "ok - $1"; }
notok() { echo "not ok - $1"; fail=1; }
check() { local name=$1; shift; if "$@"; then ok "$name"; else notok "$name"; fi; }
screen() { tmux -L "$SOCK" capture-pane -p -t "$SESS" 2>/dev/null; }
# frame_read: the last frame's number and state into FRAME_N, FRAME_STATE
# (0 and "" before the first).
frame_read() {
    FRAME_N=0 FRAME_STATE=""
    [ -n "${FRAMES:-}" ] && { read -r FRAME_N FRAME_STATE <"$FRAMES"; } 2>/dev/null
    FRAME_N=${FRAME_N:-0}
}
frame_mark() { [ -n "$FRAME_MARK" ] || { frame_read; FRAME_MARK=$FRAME_N; }; }
keys() { frame_mark; tmux -L "$SOCK" send-keys -t "$SESS" "$@"; }
resize() { frame_mark; tmux -L "$SOCK" resize-window -t "$SESS" -x "$1" -y "$2"; }

# nap SECONDS: sleep without starting a process (a read that times out on a
# pipe no one writes to).
exec {NAP_FD}<> <(:)
nap() { read -r -t "$1" -u "$NAP_FD"; }

# settle_frame: the frame after FRAME_MARK, idle, then the pane captured
# (with -e -N) into SETTLED in the same tmux call that reads the title the
# program sets after each frame's bytes: when it names that frame or a later
# one, tmux had drawn the whole frame when it captured.
settle_frame() {
    local mark=$FRAME_MARK out i
    FRAME_MARK=""
    for ((i = 0; i < 300; i++)); do
        frame_read
        [ "$FRAME_N" -gt "$mark" ] && [ "$FRAME_STATE" = idle ] && break
        nap 0.01
    done
    for ((i = 0; i < 100; i++)); do
        out=$(tmux -L "$SOCK" capture-pane -p -e -N -t "$SESS" \; display -p -t "$SESS" \
            '#{pane_title}' 2>/dev/null)
        SETTLED=${out%$'\n'*}
        out=${out##*$'\n'attnviz frame }
        [ -n "$out" ] && [ -z "${out//[0-9]/}" ] && [ "$out" -ge "$FRAME_N" ] && return 0
        nap 0.01
    done
}

settle() {
    local get=${1:-screen} prev="" cur
    if [ -n "$FRAME_MARK" ] && [ -e "$FRAMES" ]; then
        settle_frame
        return
    fi
    FRAME_MARK=""
    for _ in $(seq 1 60); do
        sleep 0.05
        cur=$($get)
        [ -n "$cur" ] && [ "$cur" = "$prev" ] && return 0
        prev=$cur
    done
}

# Every 10 ms: the screen is read when a frame came in the last 40 ms (tmux
# shows it a moment later) and every 100 ms anyway (what no frame of the
# program changes: the shell's text after it quit).
wait_for() {
    local seen=-1 fresh=0 i
    for ((i = 0; i < WAIT_TICKS * 5; i++)); do
        frame_read
        if [ "$FRAME_N" != "$seen" ]; then seen=$FRAME_N fresh=4; fi
        if [ "$fresh" -gt 0 ] || [ $((i % 10)) = 0 ]; then
            screen | grep -Eq -- "$1" && return 0
            fresh=$((fresh - 1))
        fi
        nap 0.01
    done
    screen | grep -Eq -- "$1"
}

# Killing the last session stops the server, and a new session started at
# that moment can reach the dying server ("server exited unexpectedly"): stop
# it, wait until its socket is gone, and start afresh (retried, as that wait
# is a poll).
tui_session() {
    local w=$1 h=$2 cmd=$3 sock
    sock="${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$SOCK"
    rm -f "${FRAMES:-}" && FRAME_MARK=0 # a new program counts from 1
    for _ in 1 2 3; do
        tmux -L "$SOCK" kill-server 2>/dev/null
        for _ in $(seq 1 40); do [ -e "$sock" ] || break; sleep 0.05; done
        tmux -L "$SOCK" new-session -d -s s -x "$w" -y "$h" -c "$WORK" "$cmd" 2>/dev/null &&
            return 0
        sleep 0.2
    done
    return 1
}

tui_start() {
    local env=$1 w=$2 h=$3; shift 3
    tui_session "$w" "$h" \
        "env $env $FRAME_ENV LC_ALL=C.UTF-8 $(printf '%q ' "$BIN" "$@"); ${AFTER:-echo EXITED:\$?; sleep 60}"
    wait_for ' tokens [0-9]' && settle
}

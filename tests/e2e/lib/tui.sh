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
#   settle [GET]       wait until the screen (or what command GET prints of it)
#                      stops changing (~3 s at most)
#   wait_for RE        wait until the screen matches RE (WAIT_TICKS x 50 ms)
#   ok, notok, check   "ok - name" / "not ok - name" lines; $fail set on failure
BIN=${ATTNVIZ:-$PWD/attnviz}
fail=0
WAIT_TICKS=${WAIT_TICKS:-100}

tui_init() {
    SOCK="attnviz-e2e-$1-$$"
    WORK=$(mktemp -d)
    trap 'tmux -L "$SOCK" kill-server 2>/dev/null; rm -rf "$WORK"' EXIT
}

ok() { echo "ok - $1"; }
notok() { echo "not ok - $1"; fail=1; }
check() { local name=$1; shift; if "$@"; then ok "$name"; else notok "$name"; fi; }
screen() { tmux -L "$SOCK" capture-pane -p -t s 2>/dev/null; }
keys() { tmux -L "$SOCK" send-keys -t s "$@"; }

settle() {
    local get=${1:-screen} prev="" cur
    for _ in $(seq 1 60); do
        sleep 0.05
        cur=$($get)
        [ -n "$cur" ] && [ "$cur" = "$prev" ] && return 0
        prev=$cur
    done
}

wait_for() {
    for _ in $(seq 1 "$WAIT_TICKS"); do
        screen | grep -Eq -- "$1" && return 0
        sleep 0.05
    done
    return 1
}

# Killing the last session stops the server, and a new session started at
# that moment can reach the dying server ("server exited unexpectedly"): stop
# it, wait until its socket is gone, and start afresh (retried, as that wait
# is a poll).
tui_session() {
    local w=$1 h=$2 cmd=$3 sock
    sock="${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$SOCK"
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
        "env $env LC_ALL=C.UTF-8 $(printf '%q ' "$BIN" "$@"); ${AFTER:-echo EXITED:\$?; sleep 60}"
    wait_for ' tokens [0-9]' && settle
}

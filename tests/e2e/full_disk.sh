#!/bin/bash
# full_disk.sh - nothing lost on a full disk or a read-only folder: the batch
# command line and the interface's export report the failure (one line, or
# the status line while the program goes on) and leave no partial or
# temporary file behind. Uses a tiny tmpfs filled to the brim and a read-only
# tmpfs (root can write into a chmod'ed folder, not into a read-only mount),
# and /dev/full. Where mounting is not allowed the mount checks are skipped.
# Prints "ok - name" / "not ok - name"; exits non-zero on a failure.
# run-alone: it mounts, fills and unmounts tmpfs folders.
# tier: quick
# asan: no
set -u
BIN=${ATTNVIZ:-$PWD/attnviz}
SOCK="attnviz-e2e-full-$$"
WORK=$(mktemp -d)
FULL=$WORK/full RO=$WORK/ro
fail=0
cleanup() {
    for k in 1 2; do tmux -L "attnviz-e2e-full-$$-$k" kill-server 2>/dev/null; done
    umount "$FULL" 2>/dev/null; umount "$RO" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT
ok() { echo "ok - $1"; }
notok() { echo "not ok - $1"; fail=1; }
TEXT="The cat sat on the mat because it was tired."

# one_line_fail NAME CMD...: exit 1, exactly one stderr line "attnviz: ...".
one_line_fail() {
    local name=$1; shift
    "$@" >/dev/null 2>"$WORK/err"; local rc=$?
    if [ $rc -eq 1 ] && [ "$(wc -l <"$WORK/err")" -eq 1 ] && grep -q '^attnviz: ' "$WORK/err"; then
        ok "$name"
    else
        notok "$name (status $rc, stderr: $(tr '\n' '|' <"$WORK/err"))"
    fi
}

one_line_fail "-o /dev/full reports the full device" "$BIN" --export text -o /dev/full "$TEXT"
[ -c /dev/full ] && ok "/dev/full is still the device" || notok "/dev/full was replaced"

mkdir -p "$FULL" "$RO"
if ! mount -t tmpfs -o size=16k tmpfs "$FULL" 2>/dev/null ||
        ! mount -t tmpfs -o size=16k,ro tmpfs "$RO" 2>/dev/null; then
    echo "skip - mount not allowed here: full and read-only file systems"
    exit $fail
fi
dd if=/dev/zero of="$FULL/filler" bs=1k count=64 2>/dev/null
leftovers() { find "$1" -mindepth 1 ! -name filler | wc -l; }

one_line_fail "-o onto a full file system fails" "$BIN" --export csv -o "$FULL/out.csv" "$TEXT"
[ "$(leftovers "$FULL")" -eq 0 ] && ok "no partial or temporary file on the full disk" ||
    notok "files left on the full disk: $(ls -A "$FULL")"
one_line_fail "-o into a read-only folder fails" "$BIN" --export md -o "$RO/out.md" "$TEXT"
one_line_fail "--dump onto a full file system fails" "$BIN" --dump "$FULL/dump" "$TEXT"
[ -z "$(find "$FULL" -name '.*' -type f)" ] && ok "no temporary file after the failed dump" ||
    notok "temporary files left: $(find "$FULL" -name '.*')"
rm -rf "$FULL/dump"

# The interface: export with x in a full folder, then in a read-only one.
screen() { tmux -L "$SOCK" capture-pane -p -t s 2>/dev/null; }
n=0
wait_for() {
    for _ in $(seq 1 100); do screen | grep -Eq -- "$1" && return 0; sleep 0.05; done
    return 1
}
for dir in "$FULL" "$RO"; do
    what=$([ "$dir" = "$FULL" ] && echo "a full disk" || echo "a read-only folder")
    tmux -L "$SOCK" kill-server 2>/dev/null
    n=$((n + 1)) SOCK="attnviz-e2e-full-$$-$n" # a fresh server each time
    tmux -L "$SOCK" new-session -d -s s -x 120 -y 40 -c "$dir" \
        "env TERM=xterm-256color LC_ALL=C.UTF-8 $(printf '%q ' "$BIN" "$TEXT"); echo EXITED:\$?; sleep 60"
    wait_for ' tokens [0-9]' || { notok "interface starts in $what"; continue; }
    tmux -L "$SOCK" send-keys -t s x
    if wait_for 'No space left|Read-only file system'; then
        ok "the status line reports the failed export on $what"
    else
        notok "no failure reported on $what: $(screen | tail -2 | tr '\n' '|')"
    fi
    tmux -L "$SOCK" send-keys -t s m
    wait_for 'mask on' && ok "the interface goes on after the failure on $what" ||
        notok "interface stuck after the failure on $what"
    [ "$(leftovers "$dir")" -eq 0 ] && ok "no file left by the failed export on $what" ||
        notok "files left on $what: $(ls -A "$dir")"
    tmux -L "$SOCK" send-keys -t s q
    wait_for 'EXITED:0' && ok "quits cleanly after the failure on $what" ||
        notok "did not quit cleanly on $what"
done
exit $fail

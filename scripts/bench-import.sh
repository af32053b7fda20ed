#!/bin/bash
# bench-import.sh - how fast the interface answers on a large imported array:
# the time from starting `attnviz --attention` to its first frame (warm: the
# file in the page cache; cold: dropped from it first with
# POSIX_FADV_DONTNEED), and for each key the time from tmux's send-keys to
# the first change of the pane (so a figure includes tmux's own few
# milliseconds). Prints one line a figure, `bench import_NAME key=value ...`,
# as `make bench` does. Timings only: nothing here passes or fails.
#
#   scripts/bench-import.sh [BIN] [FILE.npy TOKENS]
#
# Without a file it writes a (12, 12, 2048, 2048) float32 array of real
# softmax rows (2.4 GB, NumPy) to ${TMPDIR:-/tmp} and removes it after;
# REPEAT (default 5) presses of each key.
set -u
BIN=$(realpath "${1:-./attnviz}")
NPY=${2:+$(realpath "$2")}
TOK=${3:+$(realpath "$3")}
REPEAT=${REPEAT:-5}
PY=${PY:-/usr/bin/python3}
SOCK="attnviz-bench-import-$$"
WORK=$(mktemp -d)
made=""
cleanup() { tmux -L "$SOCK" kill-server 2>/dev/null; rm -rf "$WORK" $made; }
trap cleanup EXIT

if [ -z "$NPY" ]; then
    NPY=${TMPDIR:-/tmp}/attnviz-bench-import-$$.npy
    TOK=$WORK/tokens.txt
    made=$NPY
    "$PY" - "$NPY" "$TOK" <<'EOF' || exit 1
import sys, numpy as np
L, H, n = 12, 12, 2048
A = np.lib.format.open_memmap(sys.argv[1], mode='w+', dtype='<f4', shape=(L, H, n, n))
rng = np.random.default_rng(1)
idx = np.arange(n)
for l in range(L):
    for h in range(H):
        s = rng.standard_normal((n, n), dtype=np.float32)
        k = (l * H + h) % 3
        if k == 0: s[idx, np.maximum(idx - 1, 0)] += 6   # previous token
        elif k == 1: s[:, 0] += 5                        # first token
        s = np.exp(s - s.max(axis=1, keepdims=True))
        A[l, h] = s / s.sum(axis=1, keepdims=True)
A.flush()
open(sys.argv[2], 'w').write('\n'.join('t%d' % i for i in range(n)) + '\n')
EOF
fi

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
screen() { tmux -L "$SOCK" capture-pane -p -t s 2>/dev/null; }
drop_cache() {
    "$PY" -c "import os,sys; fd=os.open(sys.argv[1], os.O_RDONLY); \
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)" "$1"
}

# Start attnviz and print the milliseconds until the first frame (its status
# line of tokens); -1 after 20 s.
start_ms() {
    tmux -L "$SOCK" kill-server 2>/dev/null
    sleep 0.2
    local t0 t
    t0=$(now_ms)
    tmux -L "$SOCK" new-session -d -s s -x 160 -y 48 -c "$WORK" \
        "env TERM=xterm-256color LC_ALL=C.UTF-8 $(printf '%q ' "$BIN" --attention "$NPY" \
         --tokens "$TOK"); echo EXITED:\$?; sleep 60"
    while :; do
        t=$(now_ms)
        screen | grep -q ' tokens [0-9]' && { echo $((t - t0)); return; }
        [ $((t - t0)) -gt 20000 ] && { echo -1; return; }
        sleep 0.005
    done
}

# The milliseconds from sending key $1 to the first change of the pane
# (5000: no change within 5 s).
key_ms() {
    local before t0 t
    sleep 0.3 # let the previous key's frame (and the status line) settle
    before=$(screen)
    t0=$(now_ms)
    tmux -L "$SOCK" send-keys -t s "$1"
    while :; do
        t=$(now_ms)
        [ "$(screen)" != "$before" ] && { echo $((t - t0)); return; }
        [ $((t - t0)) -gt 5000 ] && { echo 5000; return; }
    done
}

# "median=M max=X n=N" of the numbers on standard input.
summary() {
    sort -n | awk '{v[NR]=$1} END {m = NR % 2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2;
        printf "median_ms=%s max_ms=%s n=%d", m, v[NR], NR}'
}

# Press key $2 $REPEAT times (then key $3 once, unmeasured, when given) and
# print the line for figure $1.
measure() {
    local name=$1 key=$2 back=${3:-}
    for _ in $(seq 1 "$REPEAT"); do
        key_ms "$key"
        [ -n "$back" ] && { key_ms "$back" >/dev/null; }
    done | summary | sed "s/^/bench import_$name key=$key /"
    echo
}

echo "bench import_machine cpu=\"$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 |
    sed 's/^ //')\" cores=$(nproc) load=\"$(cut -d' ' -f1-3 /proc/loadavg)\""
warm=""; cold=""
for k in 1 2 3; do drop_cache "$NPY"; cold="$cold $(start_ms)"; done
echo "bench import_open_cold first_frame_ms=\"${cold# }\""
for k in 1 2 3; do warm="$warm $(start_ms)"; done
echo "bench import_open_warm first_frame_ms=\"${warm# }\""
t0=$(now_ms) # the check of the other layers on its thread, before the keys
while screen | grep -q '(checking layers'; do sleep 0.02; done
echo "bench import_check_rest warm_ms=$(( $(now_ms) - t0 + ${warm##* } ))"
measure select_down j
measure head_next Tab
measure zoom_in z Z
measure layer_next l
measure layer_prev L
for k in 1 2 3 4; do key_ms A; done | summary | sed 's/^/bench import_combine key=A /'
echo
# O: the key's answer (the status line), then the whole rollout to the layer shown
tmux -L "$SOCK" send-keys -t s l l l l l l l l l l l
sleep 1
first=$(key_ms O)
t0=$(now_ms)
sleep 0.2
while screen | grep -q 'computing the rollout'; do
    [ $(( $(now_ms) - t0 )) -gt 120000 ] && break
    sleep 0.02
done
echo "bench import_rollout key=O answer_ms=$first ready_ms=$(( $(now_ms) - t0 + first ))"
measure rollout_layer_prev L l
measure rollout_layer_next l L

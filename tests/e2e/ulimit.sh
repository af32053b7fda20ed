#!/bin/bash
# ulimit.sh - under a small address space (ulimit -v, issue 22 item 5) every
# path either works or says in one line what it lacked, and never hangs:
# OpenBLAS's worker threads each map a 128 MB buffer and retried for ever
# when that failed, so that under ulimit -v 150000 even --version hung at
# exit; attnviz now re-executes itself with one OpenBLAS thread there, and
# below 1 GiB gives OpenBLAS no product at all (its own kernel, core/mat.h):
# a 2,000-word text's pooled export hung inside cblas_sgemm before.
#
# The limits: 100000 and 150000 KB, and a sweep from what the program needs
# to start here (the smallest limit, in steps of 2 MB, at which --version
# runs: it depends on the machine's libraries and cores) up by 6 MB steps,
# so that every case meets limits just above and just below its own need;
# then the interface on the long text under tmux at 6 and 12 MB above that
# and at 100000 KB.
# Prints "ok - name" / "not ok - name"; exits non-zero on a failure.
# tier: test
# asan: no (a sanitized program cannot start under ulimit -v)
set -u
if [ -n "${ATTNVIZ_SANITIZED:-}" ]; then
    # ASan reserves terabytes of shadow address space at start: no sanitized
    # program starts under ulimit -v at all; make test runs this on the plain build
    echo "skip - ulimit: an address-space limit is not for a sanitized build"
    exit 0
fi
BIN=${ATTNVIZ:-$PWD/attnviz}
T=$(mktemp -d "${TMPDIR:-/tmp}/attnviz-ulimit.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
fail=0
ok() { echo "ok - $*"; }
notok() { echo "not ok - $*"; fail=1; }

# run KB ARGS...: $BIN under ulimit -v KB and a 60 s timeout; sets rc
run() {
    local kb=$1; shift
    (ulimit -v "$kb" && exec timeout 60 "$BIN" "$@") >"$T/out" 2>"$T/err"
    rc=$?
}

# limited KB NAME ARGS...: exit 0 with output within 60 s, or exit 1/2 with one line
limited() {
    local kb=$1 name=$2; shift 2
    run "$kb" "$@"
    if [ $rc -eq 0 ] && { [ -s "$T/out" ] || [ -n "${QUIET_OK:-}" ]; } && ! [ -s "$T/err" ]; then
        ok "ulimit -v $kb: $name works"
    elif { [ $rc -eq 1 ] || [ $rc -eq 2 ]; } && [ "$(wc -l <"$T/err")" -eq 1 ] &&
        grep -q '^attnviz: ' "$T/err"; then
        ok "ulimit -v $kb: $name says what it lacked: $(cat "$T/err")"
    else
        local why
        why="status $rc$([ $rc -eq 124 ] && echo ', hung'): $(head -c 200 "$T/err" | tr '\n' '|')"
        notok "ulimit -v $kb: $name ($why)"
    fi
}

# similar A B: the same number of lines, at most 2% of them different (a
# weight near a shade's edge may round the other way: attnviz's own kernel
# and OpenBLAS sum in different orders)
similar() {
    local na nb nd
    na=$(wc -l <"$1") nb=$(wc -l <"$2")
    nd=$(diff "$1" "$2" | grep -c '^<')
    [ "$na" -gt 0 ] && [ "$na" -eq "$nb" ] && [ $((nd * 50)) -le "$na" ]
}

# A 2,000-word text (words from a fixed list by a fixed rule, no RNG), and
# imported attention of ~590 tokens made by attnviz's own --dump.
words=(the cat sat on a mat and dog ran far away because it was tired of all this)
for ((k = 0; k < 2000; k++)); do printf '%s ' "${words[(k * 7 + k / 3) % 18]}"; done \
    >"$T/long.txt"
head -c 3000 "$T/long.txt" >"$T/mid.txt"
"$BIN" -f "$T/mid.txt" --layers 2 --dump "$T/mid" || notok "the imported file is made"
"$BIN" --export text --budget 1 -f "$T/long.txt" >"$T/long_free.txt" ||
    notok "the long text's export, unlimited"

for kb in 100000 150000; do
    limited $kb "--version" --version
    limited $kb "an export" --export csv "The cat sat on the mat"
    limited $kb "a lesson's handout" --lesson qkv --export md
    limited $kb "imported attention" --attention tests/data/import/attn_l3h2n7.npy --export csv
    # the pooled long text hung here in cblas_sgemm (OpenBLAS's buffer)
    run $kb --export text --budget 1 -f "$T/long.txt"
    if [ $rc -eq 0 ] && similar "$T/out" "$T/long_free.txt"; then
        ok "ulimit -v $kb: a 2,000-word text pooled by --budget 1 is exported as unlimited"
    else
        notok "ulimit -v $kb: a 2,000-word text pooled (status $rc:" \
            "$(head -c 200 "$T/err" | tr '\n' '|'))"
    fi
    rm -rf "$T/m"
    run $kb train induction --steps 20 --save "$T/m"
    if [ $rc -eq 0 ] && [ -s "$T/m/model.json" ] && [ -s "$T/m/layer1/Wq.npy" ]; then
        ok "ulimit -v $kb: training saves a model"
    else
        notok "ulimit -v $kb: training (status $rc: $(head -c 200 "$T/err" | tr '\n' '|'))"
    fi
done

# Training too large for the limit: one line naming the sizes and the fix.
run 150000 train induction --steps 3 --d-model 256 --context 256 --batch 64 --layers 4 \
    --save "$T/big"
if [ $rc -eq 1 ] && [ "$(wc -l <"$T/err")" -eq 1 ] &&
    grep -q '^attnviz: out of memory for training 64 sequences of 256 tokens.*lower --batch' \
        "$T/err" && ! [ -e "$T/big/model.json" ]; then
    ok "ulimit -v 150000: training too large says so in one line and saves nothing"
else
    notok "ulimit -v 150000: training too large (status $rc: $(head -c 200 "$T/err" | tr '\n' '|'))"
fi

# What the program needs to start here.
base=0
for ((kb = 30000; kb <= 200000; kb += 2000)); do
    run $kb --version
    if [ $rc -eq 0 ]; then base=$kb; break; fi
done
if [ $base -eq 0 ]; then
    notok "attnviz --version starts under some ulimit -v up to 200000"
    exit 1
fi
echo "# --version starts from ulimit -v $base"

# From there up: every path works or says in one line what it lacked; an
# export to a file (-o) is whole or absent.
"$BIN" --export svg --budget 1 -f "$T/long.txt" -o "$T/free.svg"
for ((kb = base; kb <= base + 36000; kb += 6000)); do
    limited $kb "a pooled long text" --export text --budget 1 -f "$T/long.txt"
    limited $kb "a long text's SVG" --export svg --budget 1 -f "$T/long.txt"
    limited $kb "the long text with --max-tokens" --export text --budget 1 --max-tokens 8192 \
        -f "$T/long.txt"
    limited $kb "imported attention pooled" --attention "$T/mid/attention.npy" \
        --tokens "$T/mid/tokens.txt" --export text --budget 1
    limited $kb "imported attention as SVG" --attention "$T/mid/attention.npy" \
        --tokens "$T/mid/tokens.txt" --export svg --budget 1
    rm -rf "$T/dump"
    QUIET_OK=1 limited $kb "imported attention dumped" --attention "$T/mid/attention.npy" \
        --tokens "$T/mid/tokens.txt" --dump "$T/dump"
    limited $kb "a lesson's handout (induction)" --lesson induction --export md
    limited $kb "a lesson's handout (quadratic)" --lesson quadratic --export md
    rm -rf "$T/m"
    limited $kb "training" train induction --steps 10 --save "$T/m"
    rm -f "$T/x.svg"
    run $kb --export svg --budget 1 -f "$T/long.txt" -o "$T/x.svg"
    if { [ $rc -eq 0 ] && similar "$T/x.svg" "$T/free.svg"; } ||
        { [ $rc -ne 0 ] && [ $rc -ne 124 ] && ! [ -e "$T/x.svg" ]; }; then
        ok "ulimit -v $kb: an SVG written with -o is whole or absent (status $rc)"
    else
        notok "ulimit -v $kb: an SVG written with -o (status $rc:" \
            "$(head -c 200 "$T/err" | tr '\n' '|'))"
    fi
done

# The interface under a limit: a long text opens, keys answer, q exits 0 and
# the terminal is restored; or, before curses starts, one line says what it
# lacked. Never a screen left half drawn.
if ! command -v tmux >/dev/null; then
    notok "tmux is installed (scripts/deps.sh test)"
    exit 1
fi
SOCK="attnviz-ulimit-$$"
trap 'tmux -L "$SOCK" kill-server 2>/dev/null; rm -rf "$T"' EXIT
pane() { tmux -L "$SOCK" capture-pane -p -t s 2>/dev/null; }
pane_wait() { # RE: up to 20 s
    for _ in $(seq 1 400); do pane | grep -Eq -- "$1" && return 0; sleep 0.05; done
    return 1
}
for kb in $((base + 6000)) $((base + 12000)) 100000; do
    tmux -L "$SOCK" kill-server 2>/dev/null
    sleep 0.2
    tmux -L "$SOCK" new-session -d -s s -x 120 -y 40 "env TERM=xterm-256color LC_ALL=C.UTF-8 \
        bash -c 'ulimit -v $kb && exec $(printf '%q ' "$BIN") --budget 1 -f $T/long.txt' \
        2>$T/tui_err; echo EXITED:\$?; stty -a | grep -oE -- '-?icanon|-?echo ' | tr '\n' ' '; \
        sleep 60"
    if ! pane_wait ' tokens 2000 |EXITED:'; then
        notok "ulimit -v $kb: the interface on a long text neither opens nor ends"
        continue
    fi
    if pane | grep -q 'EXITED:'; then
        if pane | grep -q 'EXITED:1' && [ "$(wc -l <"$T/tui_err")" -eq 1 ] &&
            grep -q '^attnviz: ' "$T/tui_err"; then
            ok "ulimit -v $kb: the interface says what it lacked: $(cat "$T/tui_err")"
        else
            notok "ulimit -v $kb: the interface ended: $(pane | grep -a EXITED) $(head -c 200 \
                "$T/tui_err" | tr '\n' '|')"
        fi
        continue
    fi
    for k in l e Escape q; do tmux -L "$SOCK" send-keys -t s "$k"; sleep 0.3; done
    if pane_wait 'EXITED:0' && pane_wait 'icanon echo' && ! pane | grep -q '^ attnviz | ' &&
        ! [ -s "$T/tui_err" ]; then
        ok "ulimit -v $kb: the interface on a long text answers keys, q exits 0, terminal restored"
    else
        notok "ulimit -v $kb: the interface on a long text: $(pane | tail -3 | tr '\n' '|')"
    fi
done
exit $fail

#!/bin/bash
# train_cli.sh - `attnviz train` from the command line: bad usage is one line
# and exit 2, a run prints its progress lines and saves a model folder that
# reads back, Ctrl-C, SIGTERM, SIGHUP and a closed terminal save what it has
# and say so, and a broken model folder is one line naming the file.
# tier: quick
# asan: yes
set -u
A=${ATTNVIZ:-./attnviz}
case $A in /*) ;; */*) A="$(cd "$(dirname "$A")" && pwd)/$(basename "$A")" ;; esac
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass() { echo "ok - $1"; }
fail() { echo "not ok - $1"; }

usage_error() { # DESCRIPTION ARGS...: exit 2 and exactly one line on stderr
    local what=$1; shift
    "$A" train "$@" >"$tmp/out" 2>"$tmp/err"; local rc=$?
    if [ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && [ ! -s "$tmp/out" ] &&
        grep -q '^attnviz: ' "$tmp/err"; then
        pass "train: $what -> exit 2, one line ($(cat "$tmp/err"))"
    else
        fail "train: $what -> exit $rc, stderr: $(head -3 "$tmp/err")"
    fi
}
usage_error "no task" --save "$tmp/m"
usage_error "unknown task" dance --save "$tmp/m"
usage_error "no --save" induction
usage_error "bad --steps" induction --steps -3 --save "$tmp/m"
usage_error "bad --pe" induction --pe wavy --save "$tmp/m"
usage_error "bad --format" induction --format onnx --save "$tmp/m"
# a refused value names its option and what it takes
"$A" train induction --context 1 --save "$tmp/m" 2>"$tmp/err"
grep -qx "attnviz: train: --context takes a whole number from 2 to [0-9]*, not '1'" "$tmp/err" &&
    pass "train: --context 1 names the option and its range" ||
    fail "train: --context 1 says: $(cat "$tmp/err")"
"$A" train induction --lr 20 --save "$tmp/m" 2>"$tmp/err"
grep -qx "attnviz: train: --lr takes a number from 1e-09 to 10, not '20'" "$tmp/err" &&
    pass "train: --lr 20 names the option and its range" ||
    fail "train: --lr 20 says: $(cat "$tmp/err")"
# a learning rate that diverges: the weights overflow within a few dozen
# steps; one line naming the step, exit 2, no folder (it aborted in the
# softmax, status 134, leaving nothing said)
"$A" train induction --lr 10 --steps 300 --save "$tmp/div" >"$tmp/out" 2>"$tmp/err"; rc=$?
if [ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && [ ! -e "$tmp/div" ] &&
    grep -qE "^attnviz: train: step [0-9]+: .*overflow float32 .*lower --lr.*nothing was saved$" "$tmp/err"; then
    pass "train --lr 10: diverges, one line, nothing saved ($(cat "$tmp/err"))"
else
    fail "train --lr 10: exit $rc, stderr: $(head -3 "$tmp/err")"
fi
# no step taken: no loss to report, not a loss of 0
"$A" train induction --steps 0 --save "$tmp/m0" >"$tmp/out" 2>&1
grep -q "^step 0 (untrained: no loss yet)" "$tmp/out" && ! grep -q "loss 0.0000" "$tmp/out" &&
    pass "train --steps 0: says no loss yet" || fail "train --steps 0: $(head -2 "$tmp/out")"
usage_error "heads not dividing d_model" induction --heads 3 --save "$tmp/m"
usage_error "unknown option" induction --frobnicate --save "$tmp/m"
usage_error "text without FILE" text --save "$tmp/m"
usage_error "a FILE for induction" induction extra.txt --save "$tmp/m"
printf 'ab\xffcd' >"$tmp/bad.txt"
usage_error "text not UTF-8" text "$tmp/bad.txt" --save "$tmp/m"
# a NUL byte: said as the main command says it (before: "not valid UTF-8"),
# for a grammar too (before: "line 1: not a rule")
printf 'ab\0cd the cat\n' >"$tmp/nul.txt"
for task in text grammar; do
    "$A" train $task "$tmp/nul.txt" --save "$tmp/m" 2>"$tmp/err"; rc=$?
    [ $rc -eq 2 ] && [ "$(cat "$tmp/err")" = "attnviz: $tmp/nul.txt: the text holds a NUL byte" ] &&
        [ "$("$A" -f "$tmp/nul.txt" -e csv 2>&1)" = "$(cat "$tmp/err")" ] &&
        pass "train $task: a NUL byte is said as the main command says it" ||
        fail "train $task: a NUL byte -> exit $rc: $(head -2 "$tmp/err")"
done
printf 'noun king\n' >"$tmp/bad.grammar"
usage_error "broken grammar" grammar "$tmp/bad.grammar" --save "$tmp/m"
"$A" train text /nonexistent/file --save "$tmp/m" 2>"$tmp/err"; rc=$?
[ $rc -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && pass "train: unreadable FILE -> exit 1" ||
    fail "train: unreadable FILE -> exit $rc"

# a short run: progress lines, a folder, heads.txt
if "$A" train induction --steps 60 --report 20 --seed 3 --save "$tmp/ind" \
        >"$tmp/out" 2>"$tmp/err" &&
    [ "$(grep -c '^step [0-9]* loss [0-9.]* acc [0-9.]*  L1H1 ' "$tmp/out")" -eq 3 ] &&
    grep -q "^saved $tmp/ind (60 steps" "$tmp/out"; then
    pass "train induction: three progress lines and saved"
else
    fail "train induction: $(cat "$tmp/out" "$tmp/err" | head -5)"
fi
for f in model.json embed.npy unembed.npy heads.txt layer1/Wq.npy layer2/Wo.npy; do
    [ -s "$tmp/ind/$f" ] || fail "train induction: $f missing"
done
[ "$(wc -l <"$tmp/ind/heads.txt")" -eq 4 ] && grep -q '"steps": 60' "$tmp/ind/model.json" &&
    pass "train induction: model.json and heads.txt (4 heads)" ||
    fail "train induction: heads.txt or model.json wrong"
# the same seed gives the same model, byte for byte
"$A" train induction --steps 60 --report 0 --seed 3 --save "$tmp/ind2" >/dev/null 2>&1
cmp -s "$tmp/ind/layer2/Wq.npy" "$tmp/ind2/layer2/Wq.npy" &&
    cmp -s "$tmp/ind/heads.txt" "$tmp/ind2/heads.txt" &&
    pass "train: the same seed gives the same weights" || fail "train: not deterministic"

# every task runs and saves, with the options of the usage
printf 'To be, or not to be, that is the question.\n' >"$tmp/t.txt"
for args in "copy --mlp 32 --activation relu" "reverse-digits --pe learned" \
    "sort --layernorm --layers 1" "text $tmp/t.txt --context 16 --d-model 16 --mlp 0" \
    "grammar --pe none" "grammar assets/grammar/grammar.txt --batch 4 --lr 0.003"; do
    # shellcheck disable=SC2086
    if "$A" train $args --steps 5 --report 0 --save "$tmp/task" >"$tmp/out" 2>&1 &&
        [ -s "$tmp/task/model.json" ]; then
        pass "train $args"
    else
        fail "train $args: $(head -2 "$tmp/out")"
    fi
    rm -rf "$tmp/task"
done
"$A" train grammar --steps 1 --save "$tmp/g" >/dev/null 2>&1
grep -q '"tokenizer": "words"' "$tmp/g/model.json" && pass "train grammar: a words model" ||
    fail "train grammar: tokenizer"

# grammar's rules are built in: it runs from any folder
(cd "$tmp" && "$A" train grammar --steps 2 --report 0 --save g2 >/dev/null 2>&1) &&
    [ -s "$tmp/g2/model.json" ] && pass "train grammar: runs outside the source tree" ||
    fail "train grammar: needs the source tree"
# the folder is checked before training, not after
"$A" train induction --steps 100000 --save /nonexistent/x >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 1 ] && grep -q "cannot make the folder /nonexistent/x" "$tmp/err" &&
    pass "train: an impossible --save fails at once, exit 1" || fail "train: --save /nonexistent/x"

# Ctrl-C: the model so far is saved and the message says so
"$A" train induction --steps 1000000 --report 0 --save "$tmp/int" >"$tmp/out" 2>"$tmp/err" &
pid=$!
sleep 1.5
kill -INT $pid
wait $pid; rc=$?
if [ $rc -eq 0 ] && grep -q "interrupted at step [0-9]* of 1000000: saved" "$tmp/err" &&
    [ -s "$tmp/int/model.json" ] && ! grep -q '"steps": 0,' "$tmp/int/model.json"; then
    pass "train: Ctrl-C saves the model so far ($(grep -o 'step [0-9]*' "$tmp/err"))"
else
    fail "train: Ctrl-C -> exit $rc, $(cat "$tmp/err")"
fi

# SIGHUP (a lost SSH connection) and SIGTERM save as Ctrl-C does: killed
# while training runs (its first progress line out), the folder is whole and
# opens with --model
stop_saves() { # SIGNAL CAUSE
    local sig=$1 cause=$2 d="$tmp/stop$1"
    mkdir -p "$d"
    "$A" train induction --steps 1000000 --report 20 --save "$d/m" >"$tmp/out" 2>"$tmp/err" &
    local pid=$! k
    for k in $(seq 100); do grep -q '^step 20 ' "$tmp/out" && break; sleep 0.1; done
    kill -"$sig" $pid
    wait $pid; local rc=$?
    "$A" --model "$d/m" --export text 'abcabc' >"$tmp/view" 2>&1; local vrc=$?
    if [ $rc -eq 0 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
        grep -q "^attnviz: interrupted $cause at step [0-9]* of 1000000: saved the model so far in $d/m\$" "$tmp/err" &&
        [ "$(ls -A "$d")" = m ] && [ -s "$d/m/layer2/Wo.npy" ] &&
        ! grep -q '"steps": 0,' "$d/m/model.json" && [ $vrc -eq 0 ] && [ -s "$tmp/view" ]; then
        pass "train: SIG$sig saves the model so far, which opens ($(cat "$tmp/err"))"
    else
        fail "train: SIG$sig -> exit $rc, stderr $(cat "$tmp/err"), folder: $(ls -A "$d" "$d/m" | tr '\n' ' '), --model exit $vrc"
    fi
}
stop_saves HUP "(hangup)"
stop_saves TERM "(SIGTERM)"

# the terminal itself gone (tmux killed: SIGHUP, then every write to it
# fails): the model is still saved whole
if command -v tmux >/dev/null 2>&1; then
    sock=x$RANDOM
    mkdir -p "$tmp/tty"
    tmux -L $sock new-session -d -s s -x 100 -y 30 \
        "exec env TERM=xterm-256color '$A' train induction --steps 1000000 --report 20 --save '$tmp/tty/m'"
    pid=$(tmux -L $sock display -p -t s '#{pane_pid}')
    for k in $(seq 100); do
        tmux -L $sock capture-pane -p -t s 2>/dev/null | grep -q '^step 20 ' && break
        sleep 0.1
    done
    tmux -L $sock kill-server
    for k in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    "$A" --model "$tmp/tty/m" --export text 'abcabc' >"$tmp/view" 2>&1; vrc=$?
    if ! kill -0 "$pid" 2>/dev/null && [ "$(ls -A "$tmp/tty")" = m ] &&
        ! grep -q '"steps": 0,' "$tmp/tty/m/model.json" && [ $vrc -eq 0 ]; then
        pass "train: its terminal closed, the model so far is saved and opens"
    else
        fail "train: terminal closed -> folder: $(ls -A "$tmp/tty" | tr '\n' ' '), --model exit $vrc"
        kill "$pid" 2>/dev/null
    fi
fi

# a broken model folder: one line naming the file, exit 2
cp -r "$tmp/ind" "$tmp/broken"
rm "$tmp/broken/layer2/Wv.npy"
"$A" --model "$tmp/broken" --export text 'abcabc' >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q 'layer2/Wv.npy' "$tmp/err" &&
    pass "--model: a missing tensor -> exit 2, $(cat "$tmp/err")" ||
    fail "--model: a missing tensor -> exit $rc, $(head -2 "$tmp/err")"
printf '{"format": "attnviz-model", "version": 1, "vocab": [' >"$tmp/broken/model.json"
"$A" --model "$tmp/broken" --export text 'abcabc' >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q 'model.json' "$tmp/err" &&
    pass "--model: a truncated model.json -> exit 2, one line" ||
    fail "--model: a truncated model.json -> exit $rc, $(head -2 "$tmp/err")"

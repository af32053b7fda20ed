#!/bin/bash
# tier: test
# hf_save.sh - attnviz's own models saved as Hugging Face GPT-2 folders
# (`attnviz train ... --format hf`, issue 38 item 4), trained here in seconds:
#  - an induction model (--layernorm --pe learned, no MLP) and a character
#    model of README.md (--layernorm --pe learned --mlp 64 --activation gelu),
#    each trained twice from one seed, saved in attnviz's format and as GPT-2:
#    opened with --model, the GPT-2 folder gives the same ids, every head's
#    weights and the logit lens within 1e-5 of the original, and passes the
#    float64 NumPy GPT-2 forward (lib/gpt2_ref.py, no transformers);
#  - the GPT-2 path on the induction model: the head finder (--export heads)
#    ranks an induction head first, the one the trainer named, and the lens
#    (--export lens-json) shows the copied token rising in that head's layer
#    (lib/copy_lens.py);
#  - without a TEXT the GPT-2 folder opens on the text the attnviz folder
#    opens on (a sequence of its task, named in config.json), and a batch run
#    asks for a TEXT;
#  - a character the model never saw, a model GPT-2 cannot express (no
#    LayerNorm, a ReLU MLP, a word model) and a folder holding another file
#    are refused in one line, and nothing is written.
# Prints "ok - ..." / "not ok - ..." / "skip - ..."; exits 1 when any failed.
# Run from the repository root.
set -u
A=${ATTNVIZ:-$PWD/attnviz}
export LC_ALL=${LC_ALL:-C.UTF-8}
PY=/usr/bin/python3
if ! "$PY" -c 'import numpy' 2>/dev/null; then
    echo "skip - hf_save: python3-numpy not installed"
    exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/attnviz-hfsave.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
failures=0
pass() { echo "ok - $1"; }
fail() { echo "not ok - $1${2:+ ($2)}"; failures=$((failures + 1)); }

# refused NAME WANT ARGS...: exit 2, one line on stderr holding WANT, no folder
refused() {
    local name=$1 want=$2; shift 2
    rm -rf "$tmp/no"
    "$A" train "$@" --steps 2 --save "$tmp/no" --format hf >"$tmp/out" 2>"$tmp/err"
    local rc=$? left
    left=$(ls -A "$tmp" | grep -c '^\.\?no')
    if [ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q -- "$want" "$tmp/err" &&
        [ "$left" -eq 0 ]; then
        pass "$name: refused, exit 2, one line ($(cat "$tmp/err"))"
    else
        fail "$name: exit $rc, $left entries left" "$(head -2 "$tmp/err")"
    fi
}
refused "no LayerNorm" "train with --layernorm" induction
refused "a ReLU MLP" "train with --activation gelu" copy --mlp 16 --activation relu
refused "a word model" "a word model" grammar --layernorm

# train NAME ARGS...: NAME-a in attnviz's format and NAME-h as GPT-2, one seed
train() {
    local name=$1; shift
    "$A" train "$@" --report 100000 --save "$tmp/$name-a" >"$tmp/$name-a.log" 2>&1 &&
        "$A" train "$@" --report 100000 --save "$tmp/$name-h" --format hf \
            >"$tmp/$name-h.log" 2>&1
}

# same NAME TEXT: both folders' dumps of TEXT agree, and the GPT-2 one
# agrees with the float64 NumPy forward
same() {
    local name=$1 text=$2 files res
    files=$(cd "$tmp/$name-h" && ls | tr '\n' ' ')
    if [ "$files" = "config.json merges.txt model.safetensors vocab.json " ]; then
        pass "$name: --format hf wrote $files"
    else
        fail "$name: --format hf wrote '$files'"
    fi
    if ! "$A" --model "$tmp/$name-a" --dump "$tmp/$name-da" "$text" >/dev/null 2>"$tmp/err" ||
        ! "$A" --model "$tmp/$name-h" --dump "$tmp/$name-dh" "$text" >/dev/null 2>>"$tmp/err"; then
        fail "$name: --dump" "$(head -2 "$tmp/err")"
        return
    fi
    if res=$("$PY" - "$tmp/$name-da" "$tmp/$name-dh" <<'PYEOF' 2>&1
import sys
import numpy as np
a, h = sys.argv[1:3]
n = np.load(h + "/ids.npy").shape[0]
at = np.abs(np.load(a + "/attention.npy") - np.load(h + "/attention.npy")).max()
assert at <= 1e-5, "attention differs by %.2g" % at
ids = (np.load(a + "/lens_ids.npy") == np.load(h + "/lens_ids.npy")).all()
lp = np.abs(np.load(a + "/lens_probs.npy") - np.load(h + "/lens_probs.npy")).max()
assert ids and lp <= 1e-5, "lens ids the same: %s, probabilities differ by %.2g" % (ids, lp)
print("%d tokens: attention within %.2g, lens the same ids, within %.2g" % (n, at, lp))
PYEOF
    ); then
        pass "$name: the GPT-2 folder is the model: $res"
    else
        fail "$name: the GPT-2 folder is not the model" "$(echo "$res" | tail -1)"
    fi
    if res=$("$PY" tests/e2e/lib/gpt2_ref.py "$tmp/$name-h" "$tmp/$name-dh"); then
        pass "$name: float64 NumPy GPT-2 forward agrees ($(echo "$res" | grep -c '^ok') checks)"
    else
        fail "$name: float64 NumPy GPT-2 forward" "$(echo "$res" | grep '^not ok' | head -2)"
    fi
}

# screen DIR: the interface's first screen on --model DIR without a TEXT,
# at 100x30 under tmux, once its sentence line is drawn
screen() {
    local sock=x$RANDOM k
    tmux -L $sock new-session -d -s s -x 100 -y 30 \
        "env TERM=xterm-256color '$A' --model '$1'; sleep 30"
    for k in $(seq 50); do
        tmux -L $sock capture-pane -p -t s | grep -q '^Tokens:' && break
        sleep 0.1
    done
    tmux -L $sock capture-pane -p -t s
    tmux -L $sock kill-server
}

# opens NAME SENTENCE: without a TEXT, both folders open on SENTENCE, every
# token of it listed (not an error on the built-in example)
opens() {
    local name=$1 want=$2 a h
    a=$(screen "$tmp/$name-a")
    h=$(screen "$tmp/$name-h")
    if [ "$(echo "$h" | grep '^Sentence:')" = "Sentence: $want" ] &&
        [ "$(echo "$a" | grep '^Sentence:')" = "Sentence: $want" ] &&
        echo "$h" | grep -q '^Tokens:   1 ' && ! echo "$h" | grep -q 'more tokens'; then
        pass "$name: the GPT-2 folder opens on the text its attnviz folder opens on: '$want'"
    else
        fail "$name: the GPT-2 folder opens on" "$(echo "$h" | sed -n 2,3p | tr '\n' '|') / \
attnviz's: $(echo "$a" | grep '^Sentence:')"
    fi
}

# the induction model: two layers, attention only, an induction head in 800 steps
if train ind induction --layernorm --pe learned --lr 3e-3 --steps 800; then
    seg=qwertyuiopasdfgh
    same ind "$seg$seg"
    # config.json names the task: a sequence of it, the one model.json's gives
    opens ind afgnidctkoqafgnidctkoqafgnidctko
    "$A" --model "$tmp/ind-h" -e text >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ $rc -eq 2 ] && [ ! -s "$tmp/out" ] && [ "$(cat "$tmp/err")" = \
        "attnviz: --model needs a TEXT in the model's vocabulary ($tmp/ind-h)" ]; then
        pass "ind: a batch run without a TEXT asks for one, exit 2 ($(cat "$tmp/err"))"
    else
        fail "ind: a batch run without a TEXT: exit $rc" "$(cat "$tmp/err")"
    fi
    trained=$(sed -n 's/.* L\([0-9]*\)H\([0-9]*\) induction [0-9.]*.*/\1 \2/p' \
        "$tmp/ind-h.log" | tail -1)
    "$A" --model "$tmp/ind-h" --export heads "$seg$seg" >"$tmp/heads.csv" 2>"$tmp/err" &&
        "$A" --model "$tmp/ind-h" --export lens-json "$seg$seg" >"$tmp/lens.json" 2>>"$tmp/err"
    if res=$("$PY" tests/e2e/lib/copy_lens.py "$tmp/heads.csv" "$tmp/lens.json" ${#seg}); then
        found=$(echo "$res" | sed -n 's/^head //p')
        if [ -n "$trained" ] && [ "$found" = "$trained" ]; then
            pass "ind: head finder and lens on the GPT-2 path: $(echo "$res" | grep '^ok' |
                sed 's/^ok - //' | tr '\n' ';')"
        else
            fail "ind: the head finder's head ($found) is not the trainer's ($trained)"
        fi
    else
        fail "ind: head finder and lens" "$(echo "$res" | grep '^not ok' | head -2) $(cat "$tmp/err")"
    fi
else
    fail "ind: training" "$(tail -2 "$tmp/ind-a.log" "$tmp/ind-h.log")"
fi

# a character model of README.md: several characters of several bytes
if train readme text README.md --layernorm --pe learned --mlp 64 --activation gelu \
    --layers 2 --d-model 32 --context 48 --steps 60; then
    line=$("$PY" - <<'PYEOF'
import re
for l in open("README.md", encoding="utf-8"):
    m = re.search(r"[^\x00-\x7f]", l.strip())
    if m and len(l.strip()) > 40:
        print(l.strip()[max(0, m.start() - 20):][:47]); break
PYEOF
    )
    multi=$(printf '%s' "$line" | LC_ALL=C grep -o $'[\xc0-\xf7]' | wc -l)
    if [ "$multi" -gt 0 ]; then
        pass "readme: the text has $multi characters of several bytes: '$line'"
    else
        fail "readme: the text has no character of several bytes: '$line'"
    fi
    same readme "$line"
    opens readme "the cat sat on the mat"
    out=$("$A" --model "$tmp/readme-h" --export json "ab"$'\xd0\xb6' 2>&1)
    rc=$?
    if [ $rc -eq 2 ] && [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] &&
        [[ $out == *"'"$'\xd0\xb6'"' is not in the model's vocabulary"* ]]; then
        pass "readme: a character the model never saw: exit 2, one line naming it ($out)"
    else
        fail "readme: a character the model never saw: exit $rc" "$out"
    fi
    mkdir "$tmp/mine" && echo keep >"$tmp/mine/notes.txt"
    "$A" train text README.md --layernorm --steps 1 --layers 1 --save "$tmp/mine" --format hf \
        >/dev/null 2>"$tmp/err"
    rc=$?
    if [ $rc -ne 0 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && [ "$(ls "$tmp/mine")" = notes.txt ]; then
        pass "a folder holding another file is kept: exit $rc ($(cat "$tmp/err"))"
    else
        fail "a folder holding another file: exit $rc, holds $(ls "$tmp/mine" | tr '\n' ' ')"
    fi
else
    fail "readme: training" "$(tail -2 "$tmp/readme-a.log" "$tmp/readme-h.log")"
fi
exit $((failures > 0))

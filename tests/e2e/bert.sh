#!/bin/bash
# bert.sh - Hugging Face BERT-family folders (io/hfbert.h, core/bert.h):
# random checkpoints with the real tensor names and shapes
# (scripts/bert-checkpoint.py), no real weights and no network.
#  - every variant (BERT and DistilBERT; with and without the prefix, the
#    pooler, the masked-LM head, an explicit decoder, the position_ids
#    buffer, LayerNorm's gamma/beta; float32, float16, bfloat16; vocab.txt or
#    tokenizer.json, cased; the sentence-transformers layout with the BERT in
#    the root or in 0_BERT/; MiniLM-L6's shape) run on a sentence pair with
#    [MASK] and held to a float64 NumPy forward (lib/bert_ref.py) and the
#    WordPiece reference (lib/wordpiece_ref.py) by lib/bert_check.py: ids,
#    token types 0/1, every layer's every head's weights within 1e-5, the
#    residual stream 1e-4, the MLM logits 1e-5 of their largest; the causal
#    what-if likewise, its masked weights 0;
#  - every malformed folder refused with one line and exit 2.
# Driven by tests/e2e/lib/bertdump.c, built here against the layer archives
# beside $ATTNVIZ. Prints "ok - ..." / "not ok - ..." / "skip - ...". Run
# from the repository root.
# tier: test
# asan: yes
set -u
PY=/usr/bin/python3
if ! "$PY" -c 'import numpy' 2>/dev/null; then
    echo "skip - bert: python3-numpy not installed"
    exit 0
fi
bin_dir=$(dirname "${ATTNVIZ:-./attnviz}")
B=$bin_dir/build
[ -e "$bin_dir/libio.a" ] && B=$bin_dir
tmp=$(mktemp -d "${TMPDIR:-/tmp}/attnviz-bert.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
san=()
[ -n "${ATTNVIZ_SANITIZED:-}" ] && san=(-fsanitize=address,undefined -fno-sanitize-recover=all)
dump=$tmp/bertdump
if ! cc -std=c11 -O1 -g -Iinclude -D_DEFAULT_SOURCE "${san[@]}" -o "$dump" \
    tests/e2e/lib/bertdump.c "$B/libio.a" "$B/libcore.a" -lopenblas -lm -pthread \
    2>"$tmp/cc.log"; then
    echo "not ok - bert: bertdump does not build against $B: $(head -1 "$tmp/cc.log")"
    exit 1
fi
text="The cat [MASK] on the mat, Ünïcödé and 漢字 too. [SEP] It was tired!"

ok() { echo "ok - $*"; }
notok() { echo "not ok - $*"; }
fact() { sed -n "s/^\(.* \)\{0,1\}$1 \([^ ]*\).*/\2/p" "$2"; }

# variant NAME "FACTS" ARGS...: generate, run, compare; FACTS are "key value"
# pairs the run's facts line must hold.
variant()
{
    local name=$1 facts=$2
    shift 2
    local d=$tmp/$name out=$tmp/$name.out
    mkdir -p "$out"
    if ! "$PY" scripts/bert-checkpoint.py "$d" "$@" >"$tmp/gen.log" 2>&1; then
        notok "bert $name: the generator failed: $(tail -1 "$tmp/gen.log")"
        return
    fi
    local causal=""
    [ "$name" = causal ] && causal=--causal
    if ! "$dump" "$d" "$text" "$out" $causal >"$tmp/facts" 2>"$tmp/err"; then
        notok "bert $name: refused: $(cat "$tmp/err")"
        return
    fi
    set -- $facts
    while [ $# -ge 2 ]; do
        if [ "$(fact "$1" "$tmp/facts")" != "$2" ]; then
            notok "bert $name: $1 is $(fact "$1" "$tmp/facts"), not $2: $(cat "$tmp/facts")"
            return
        fi
        shift 2
    done
    local why
    if why=$("$PY" tests/e2e/lib/bert_check.py "$d" "$out" "$text" $causal 2>&1); then
        ok "bert $name: $why"
    else
        notok "bert $name: $why"
    fi
}

variant prefixed "prefixed 1 tied 1 mlm 1 dtype F32 distil 0 types 2" --seed 3
variant causal "mlm 1" --seed 3
variant bare-old "prefixed 0 tied 0 mlm 1" --seed 4 --no-prefix --gamma --decoder --pooler \
    --position-ids
variant f16 "dtype F16 tied 1" --seed 5 --dtype f16
variant bf16 "dtype BF16" --seed 6 --dtype bf16 --tokenizer-json
variant cased "mlm 0" --seed 7 --cased --no-mlm
variant distilbert "distil 1 prefixed 1 types 0 mlm 1 tied 1" --arch distilbert --seed 8
variant distil-bare "distil 1 prefixed 0 mlm 1 tied 0" --arch distilbert --seed 9 \
    --no-prefix --decoder --dtype bf16
variant st-root "prefixed 0 mlm 0" --st root --no-prefix --no-mlm --seed 10 --position-ids
variant st-sub "prefixed 0 mlm 0 dtype F16" --st sub --no-prefix --no-mlm --seed 11 --dtype f16
variant minilm-l6 "layers 6 d_model 384 heads 12 d_ff 1536 vocab 30522" --size minilm \
    --st root --no-prefix --no-mlm --seed 12
variant minilm-mlm "layers 6 d_model 384 mlm 1" --size minilm --seed 13

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
    "$dump" "$d" "$text" >/dev/null 2>"$tmp/err"
    rc=$?
    lines=$(wc -l <"$tmp/err")
    if [ $rc -eq 2 ] && [ "$lines" -eq 1 ] && grep -q '^bertdump: ' "$tmp/err"; then
        ok "bert refuses $k: $(cat "$tmp/err")"
    else
        notok "bert refuses $k: exit $rc, $lines lines: $(head -3 "$tmp/err")"
    fi
done

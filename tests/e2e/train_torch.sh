#!/bin/bash
# train_torch.sh - the trainer's loss and gradients against PyTorch autograd.
# attnviz dumps a model, a batch and its gradients (--dump-grads); a Python
# script re-implements the forward pass from the model format alone, in
# float64, and compares every gradient (largest relative difference <= 1e-4).
# Without torch every check prints "not ok": nothing is skipped silently.
# tier: test
# asan: yes
set -u
A=${ATTNVIZ:-./attnviz}
REF=tests/data/train/torch_ref.py
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
printf 'Hello, w\xc3\xb6rld! \xc3\xbcn\xc3\xafcode \xe2\x9c\x93 text.\nSecond line.\n' >"$tmp/t.txt"

check() { # NAME ARGS...: dump with ARGS, compare with torch
    local name=$1; shift
    local d="$tmp/$name"
    if ! "$A" train "$@" --dump-grads "$d" >"$tmp/out" 2>&1; then
        echo "not ok - torch $name: attnviz failed: $(head -1 "$tmp/out")"; return
    fi
    if ! /usr/bin/python3 -c 'import torch' 2>/dev/null; then
        echo "not ok - torch $name: python3-torch is missing (scripts/deps.sh test)"; return
    fi
    local r; r=$(/usr/bin/python3 "$REF" "$d" 2>&1)
    case $r in
        ok*) echo "ok - torch $name: $r" ;;
        *) echo "not ok - torch $name: $r" ;;
    esac
}

check induction induction --steps 20
check induction-1layer induction --layers 1 --steps 5
check copy-ln-mlp-learned copy --steps 10 --layers 2 --heads 4 --d-model 32 --context 24 \
    --mlp 48 --layernorm --pe learned
check sort-relu-nope sort-digits --steps 10 --layers 3 --heads 2 --d-model 16 --context 20 \
    --mlp 40 --activation relu --pe none --batch 4
check text-utf8 text "$tmp/t.txt" --steps 5 --layers 1 --heads 2 --d-model 16 --context 16
check grammar grammar assets/grammar/grammar.txt --steps 30 --mlp 32 --activation gelu

#!/bin/sh
# make-models.sh [ATTNVIZ] - train the models that ship in assets/models/ with
# attnviz's own trainer, from fixed seeds (`make models`). Each folder is the
# format of DESIGN.md ("A trained model folder") and stays under 1 MB.
# assets/models/README.md says how each was made; keep the two in step.
set -eu
A=${1:-./attnviz}
OUT=assets/models
mkdir -p "$OUT"

# An induction head: the 2-layer attention-only model.
"$A" train induction --seed 1 --steps 400 --report 100 --save "$OUT/induction"

# A head that finds the antecedent of a pronoun, in the toy grammar.
"$A" train grammar assets/grammar/grammar.txt --seed 1 --steps 600 --report 100 \
    --save "$OUT/grammar"

# A character model of the project's own README and man page.
tmp=$(mktemp); trap 'rm -f "$tmp"' EXIT
cat README.md attnviz.1 >"$tmp"
"$A" train text "$tmp" --seed 1 --steps 2500 --report 250 --layers 4 --heads 4 \
    --d-model 64 --context 64 --mlp 256 --layernorm --lr 0.003 --save "$OUT/chars"

for m in induction grammar chars; do # each at most 1 MiB
    bytes=$(find "$OUT/$m" -type f -exec cat {} + | wc -c)
    echo "$OUT/$m: $bytes bytes"
    [ "$bytes" -le 1048576 ] || { echo "make-models.sh: $OUT/$m is over 1 MiB" >&2; exit 1; }
done

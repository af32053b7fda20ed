#!/bin/bash
# model_whatif.sh - --temperature, --no-scale and --no-pe beside --model, the
# same way for every kind (a random GPT-2 and BERT, attnviz's own chars
# model): in an export without --generate, --temperature and --no-scale are
# the interface's what-if (t/T, s) and the header says them; a model without
# that what-if refuses them in one line, exit 2; --no-pe is refused for every
# model (its positions are its own), never accepted and dropped.
# Prints "ok - ..." / "not ok - ..." / "skip - ...". Run from the repository root.
# tier: quick
# asan: yes
set -u
PY=/usr/bin/python3
A=${ATTNVIZ:-./attnviz}
if ! "$PY" -c 'import numpy' 2>/dev/null; then
    echo "skip - model_whatif: python3-numpy not installed"
    exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/attnviz-whatif.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
ok() { echo "ok - $1"; }
notok() { echo "not ok - $1${2:+ ($2)}"; fail=1; }

"$PY" scripts/gpt2-checkpoint.py "$tmp/g2" --seed 3 --vocab 1024 --ctx 128 >"$tmp/log" 2>&1 &&
    "$PY" scripts/bert-checkpoint.py "$tmp/bt" --size tiny >>"$tmp/log" 2>&1 ||
    { notok "random GPT-2 and BERT checkpoints" "$(tail -2 "$tmp/log")"; exit 1; }
CHARS=assets/models/chars

# csv weights of MODEL with OPTIONS, into $tmp/NAME.csv; status in $rc
csv() {
    local name=$1 model=$2; shift 2
    "$A" --model "$model" "$@" -e csv 'the cat sat' >"$tmp/$name.csv" 2>"$tmp/$name.err"
    rc=$?
}

for kind in g2 bt; do
    csv "$kind-t1" "$tmp/$kind"
    csv "$kind-t2" "$tmp/$kind" --temperature 2
    if [ "$rc" = 0 ] && ! cmp -s "$tmp/$kind-t1.csv" "$tmp/$kind-t2.csv"; then
        ok "$kind: --temperature 2 changes the exported weights"
    else
        notok "$kind: --temperature 2 changes the exported weights" "status $rc"
    fi
    head=$("$A" --model "$tmp/$kind" --temperature 2 --head 1 -e text 'the cat sat' | sed -n 3,5p)
    case $head in
    *"temperature 2)"*) ok "$kind: the text header says temperature 2" ;;
    *) notok "$kind: the text header says temperature 2" "$head" ;;
    esac
    csv "$kind-ns" "$tmp/$kind" --no-scale
    [ "$rc" = 0 ] && ! cmp -s "$tmp/$kind-t1.csv" "$tmp/$kind-ns.csv" &&
        ok "$kind: --no-scale changes the weights" || notok "$kind: --no-scale changes the weights"
done

# --generate samples at --temperature: the export's softmax keeps 1
"$A" --model "$tmp/g2" --generate 3 --temperature 2 -e csv 'the cat sat' >"$tmp/gen.csv" 2>&1
grep -q temperature "$tmp/gen.csv" && notok "g2: --generate: the temperature is the sampling's" ||
    ok "g2: --generate: the temperature is the sampling's"

# one line on stderr matching RE, exit 2, nothing on stdout
refused() { # NAME RE MODEL OPTIONS...
    local name=$1 re=$2 model=$3; shift 3
    "$A" --model "$model" "$@" -e csv 'the cat sat' >"$tmp/r.out" 2>"$tmp/r.err"
    local rc=$? lines
    lines=$(wc -l <"$tmp/r.err")
    if [ "$rc" = 2 ] && [ "$lines" = 1 ] && grep -Eq -- "$re" "$tmp/r.err" && [ ! -s "$tmp/r.out" ]; then
        ok "$name"
        echo "#   $(cat "$tmp/r.err")"
    else
        notok "$name" "status $rc, $lines lines: $(head -c 200 "$tmp/r.err")"
    fi
}
for m in "$tmp/g2" "$tmp/bt" "$CHARS"; do
    refused "${m##*/}: --no-pe is refused" \
        '^attnviz: --model keeps the positions it was trained with: leave out --no-pe$' "$m" --no-pe
done
refused "chars: --temperature without --generate is refused" \
    '^attnviz: --temperature: the trained model fixes .*--generate' "$CHARS" --temperature 2
refused "chars: --no-scale is refused" '^attnviz: --no-scale: the trained model fixes' \
    "$CHARS" --no-scale
"$A" --model "$CHARS" --temperature 0.8 --generate 4 'the cat' >"$tmp/c.out" 2>"$tmp/c.err" &&
    ok "chars: --temperature with --generate samples" ||
    notok "chars: --temperature with --generate samples" "$(cat "$tmp/c.err")"
exit $fail

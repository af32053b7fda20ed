#!/bin/bash
# tui_teach.sh - the teaching views of the interface, read off the screen
# under tmux: the calculation trace reproduces seed 001 (0.7400, 0.3818,
# [0.54, 0.46]) and at 80x24 is wrapped to its box, never cut; entropy and largest weight beside each head, and the
# temperature saturating the softmax; the designed heads labelled, explained,
# and the previous-token head pointing back one token; layers; cross-attention
# with both sentences; the mask off and on side by side; the cost readout.
# Prints "ok - name" / "not ok - name"; exits non-zero on a failure.
# tier: test
# asan: no
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$(dirname "$0")/lib/tui.sh"
tui_init teach
# The mechanics below are checked on random heads (the batch default); the
# interface's own default (designed heads) is tui_examples.sh's.
RANDOM_HEADS="--preset random"
start() { # W H ARGS...
    local w=$1 h=$2; shift 2
    tui_start TERM=xterm-256color "$w" "$h" $RANDOM_HEADS "$@"
}
# The focused head's entropy in the title ("entropy 1.23 bits").
entropy() { screen | grep -oE 'entropy ~?[0-9]+\.[0-9]+ bits' | head -1 | grep -oE '[0-9]+\.[0-9]+'; }
# ... and its rows' largest weights, averaged ("mean top weight 0.38").
top() { screen | grep -oE 'bits, mean top weight ~?[0-9]+\.[0-9]+' | head -1 | grep -oE '[0-9]+\.[0-9]+$'; }
# The label of the top bar of the selected token (the bars are ranked).
top_bar() { screen | grep -oE '[^ ]+ +[0-9]+\.[0-9]%' | head -1 | awk '{print $1}'; }
less_than() { awk -v a="$1" -v b="$2" 'BEGIN {exit !(a + 0 < b + 0)}'; }

# 1. The calculation trace of seed 001's worked example.
start 120 40 --weights "$ROOT/assets/seed001" -d 4 -H 2 --no-pe 'Cat eats fish'
keys w
check "w opens the calculation trace" wait_for 'Calculation trace: head 1 of 2'
check "trace: q.k for Cat -> Cat is 0.7400" wait_for 'score\(Cat -> Cat\) = .* = 0\.7400'
check "trace: softmax weight of Cat is 0.3818" wait_for 'exp\(0\.0000\) / 2\.6192 = 0\.3818'
check "trace: the output vector is [0.54, 0.46]" wait_for '= \[0\.54, 0\.46\]'
want=$("$BIN" --weights "$ROOT/assets/seed001" -d 4 -H 2 --no-pe --export trace --token 1 \
    'Cat eats fish' | sed -n '/^Step 4/,/^Step 5/p' | head -4 | sed 's/^ *//')
got=$(screen | sed -n 's/^│ *//; s/ *│$//p' | sed -n '/^Step 4/,/^Step 5/p' | head -4)
check "trace panel shows the same softmax lines as --export trace" test "$want" = "$got"
keys Down
check "Down: the trace follows token 2" wait_for 'query token 2 "eats"'
keys Tab
check "Tab: the trace of head 2" wait_for 'Calculation trace: head 2 of 2'
keys Escape
check "Esc closes the trace" bash -c "sleep 0.3; ! tmux -L $SOCK capture-pane -p -t s | grep -q 'Calculation trace:'"

# 1b. At 80x24 the trace of the default example (designed heads, d_k 32)
# is wrapped to the box, never cut: every page of it, PgDn to the end.
tui_start TERM=xterm-256color 80 24
keys w
check "80x24: w opens the trace" wait_for 'Calculation trace: head [0-9]+ of 6'
check "80x24: a value vector on its own line beside its key's" wait_for '^│ +v\[cat\] = \['
cut=0
for _ in $(seq 12); do
    screen | grep -qE '…[ ]*│$' && cut=1
    keys NPage
    settle
done
check "80x24: no line of the trace is cut" test "$cut" = 0
check "80x24: its last line reached" wait_for 'The same steps in plain C'
keys q
start 120 40 --weights "$ROOT/assets/seed001" -d 4 -H 2 --no-pe 'Cat eats fish'

# 2. Entropy and largest weight beside each head; temperature and scaling.
keys 1
check "the focused head's title shows entropy and the mean top weight" \
    eval "wait_for 'Head 1 of 2: from --weights' &&
          wait_for 'entropy [0-9]\.[0-9]{2} bits, mean top weight 0\.[0-9]{2}'"
check "each small head shows its entropy and max (head 2 uniform: log2 3)" \
    wait_for '1\.58b \.33'
e0=$(entropy) m0=$(top)
keys t t t t
check "t x4: temperature 0.0625 in the status line" wait_for 'temp 0\.0625'
settle
e1=$(entropy) m1=$(top)
check "a low temperature saturates the softmax: entropy $e0 -> $e1" less_than "$e1" "$e0"
check "... and the largest weight grows: $m0 -> $m1" less_than "$m0" "$m1"
keys T T T T T T T T
check "T: temperature 16" wait_for 'temp 16'
settle
m2=$(top)
check "a high temperature flattens it: largest weight $m0 -> $m2" less_than "$m2" "$m0"
keys q
wait_for 'EXITED:0'

# 3. The designed heads: labels, help, previous-token head read off the bars.
TEXT='Anna saw the dog and she petted it .'
start 120 40 "$TEXT"
keys P
check "P: the designed heads, head 1 labelled 'previous token'" \
    wait_for 'Head 1 of 6: previous token'
settle
words=(Anna saw the dog and she petted it .)
bad=""
for i in 2 3 4 5 6 7 8 9; do
    keys Down
    wait_for "Token $i .* attends to" && settle
    t=$(top_bar)
    [ "$t" = "${words[$((i - 2))]}" ] || bad="$bad $i:$t"
done
check "designed head 1: token i puts its largest weight on token i-1${bad:+ (bad:$bad)}" \
    test -z "$bad"
keys 5
check "head 5 is labelled pronoun -> noun" wait_for 'Head 5 of 6.*pronoun -> noun'
keys I
check "I explains how each head was built" wait_for 'Head 1: previous token'
check "... with the rotation property" wait_for 'rotation property'
settle
keys Escape
# the next key only once Escape has been taken: an Escape and a key read
# within ncurses' escape delay are one key, Alt-key
check "Escape closes how the heads were built" wait_for '^Head 5 of 6: pronoun -> noun  entropy'
settle

# 4. Layers: add one, step through, remove it.
keys P
wait_for 'Head [0-9] of 4: random' && settle
keys '>'
check "> adds a layer and shows it" wait_for 'layer 2 of 2'
check "the status line says layer 2/2" wait_for 'layer 2/2'
keys l
check "l steps to layer 1 of 2" wait_for 'layer 1 of 2'
keys '<'
check "< back to one layer" wait_for 'layer 1/1'

# 5. The cost readout follows typing.
start 120 40 'The cat sat on the mat'
check "cost readout: n 6, n² 36" wait_for 'Cost: n 6 \| n² 36 \| weights 576 B'
check "the heatmaps' run stops at the weights, and says so" \
    wait_for '53\.8k FLOP \| run [0-9.]+ ms \(weights\) \|'
keys e
keys -l ' again'
keys Enter
check "typing a token: n 7, n² 49" wait_for 'Cost: n 7 \| n² 49 \| weights 784 B'
check "doubling the text quadruples the cost" wait_for 'x2 tokens -> n² x4'

# 6. Cross-attention: both sentences as labels; the second is edited with Tab.
keys C
check "C: the second sentence, French by default" \
    wait_for 'Keys/values \(2\): Le chat est assis sur le tapis'
check "rows are the English queries" wait_for '^ *1 The '
check "the keys are the French tokens (bars)" wait_for '(chat|tapis|assis) +[0-9]+\.[0-9]%'
keys e Tab
keys -l ' rouge'
keys Enter
check "Tab in the editor: typing goes to the second sentence" \
    wait_for 'Keys/values \(2\): Le chat est assis sur le tapis rouge'
check "the key axis grows to 8 tokens" wait_for 'Cost: n 7 x 8'
check "the first sentence is unchanged" wait_for 'Queries \(1\): The cat sat on the mat again'
keys C
check "C again: self-attention" wait_for 'Sentence: The cat sat'
start 120 40 --cross 'Die Katze' 'The cat'
check "--cross starts with cross-attention" wait_for 'Keys/values \(2\): Die Katze'

# 7. Side by side: the mask off and on; two heads.
start 120 40 'The cat sat on the mat'
keys b
check "b: the focused head with the mask off and on" \
    wait_for 'Head 1 mask off: .*Head 1 mask ON: '
settle
rows=$(screen | grep -E '^ *[0-9] [A-Za-z]+ +[0-9]')
left=$(echo "$rows" | awk -F'│' '{print $1}' | grep -o '╳' | wc -l)
right=$(echo "$rows" | awk -F'│' '{print $2}' | grep -o '╳' | wc -l)
check "unmasked side: no masked cell; masked side: 15 (the upper triangle of 6)" \
    test "$left-$right" = "0-15"
keys B
check "B: head 1 beside head 2" wait_for '^Head 1: random .*│Head 2: random'
keys B
check "B again: back to one head" wait_for 'All 4 heads'
keys q
check "q quits with status 0" wait_for 'EXITED:0'
exit $fail

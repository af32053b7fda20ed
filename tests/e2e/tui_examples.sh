#!/bin/bash
# tui_examples.sh - the interface in front of a class (issue 13), under tmux
# at 80x24, 100x30 and 120x40: the first screen opens on the designed heads,
# labelled, with "it" -> cat; examples carry their setting and note (seed
# 001's weights give 38/30/32%); Esc never quits; the focused head is the
# largest thing, with its numbers and its whole title; every small head is
# whole and labelled; side by side at 80x24; a long sentence; the smaller
# defects (no head 7, help that scrolls, one layer, the temperature in the
# raw score, a sentence no longer fitting X.npy's rows, a --sentences line
# over its limit).
# tier: test
# asan: no
cd "$(dirname "$0")/../.." || exit 1
. tests/e2e/lib/tui.sh
tui_init examples
ROOT=$PWD
start() { # W H ARGS...
    local w=$1 h=$2; shift 2
    tui_start TERM=xterm-256color "$w" "$h" "$@"
}
not_shown() { ! screen | grep -Eq -- "$1"; }

# 1. The first screen teaches, at every size: designed heads, labelled, on a
# sentence where they are right.
for size in "120 40" "100 30" "80 24"; do
    set -- $size
    start "$1" "$2"
    check "$1x$2: opens on the designed pronoun head, title whole" \
        wait_for '^Head 5 of 6: pronoun -> noun'
    check "$1x$2: \"it\" is selected and finds the cat (9x%)" \
        eval "wait_for 'Token 8 .*it.* attends to' && wait_for '^.*cat +9[0-9]\.[0-9]%'"
    check "$1x$2: the example's note says what to look at" wait_for '"Attention from Scratch" asks: which word is'
    check "$1x$2: status line: d_model 192, 6 heads" wait_for 'd_model 192.*heads 6'
done
start 100 30 -c
check "-c without a text: the first example under the causal mask" \
    eval "wait_for 'mask on' && wait_for '^ *1 The +100 +╳|^ *1 The +100 '"
start 100 30
check "100x30: every head appears, labelled" \
    eval "wait_for '1 previous token' && wait_for '6 verb -> subject' &&
          wait_for '5 pronoun -> noun'"
check "100x30: the focused head writes its numbers (row 8: it -> cat 97)" \
    wait_for '^ *8 it +0 +97 '
check "100x30: the small heads have no token initials for labels" not_shown 'Tcsotmbiwt'
start 100 30
keys n n n
check "100x30, 12 tokens: the focused head writes its numbers (it -> trophy 52)" \
    wait_for '^ *9 it +0 +52 '
start 100 30
keys P
check "P: random heads say plainly they are untrained" \
    wait_for 'random \(untrained, P: designed\)'
keys P
check "P again: the designed heads" wait_for '^Head [1-6] of 6: '

# 2. The articles' pronoun sentences: agreement and animacy decide, world
# knowledge is named where it would be needed; names count as people.
keys n n n
check "the trophy example says it takes knowledge of the world" \
    wait_for 'knowledge of the world'
start 120 40 'Yesterday Priya met the dog and she fed it'
keys 5 Down Down Down Down Down Down
check "an unknown name is a person: she -> Priya" \
    eval "wait_for 'Token 7 .*she.* attends to' && wait_for '^.*Priya +[5-9][0-9]\.[0-9]%'"

# 3. Examples carry their setting: seed 001's weights for "Cat eats fish".
start 120 40
keys n n n n
check "Cat eats fish loads seed 001's weights: d_model 4, 2 heads, PE off" \
    wait_for 'd_model 4 .*heads 2 .*PE off'
check "... and the article's numbers: 38.2%, 29.6%, 32.2%" \
    eval "wait_for 'Cat +38\.2%' && wait_for 'eats +29\.6%' && wait_for 'fish +32\.2%'"
check "... with its note" wait_for 'The worked example of "Attention Mechanism'
# issue 35: a student's sentence at 100x30 keeps the view and says what to
# do; n goes on from the example shown (6), not back to the first
resize 100 30
settle
keys e End
keys -l ' now'
keys Enter
check "100x30, Cat eats fish now: one line on what to do" \
    wait_for '^the weights are for 3 tokens, the text has 4: Backspace, or n for the next example'
check "... and the view stays: the heatmap and the bars of the 3 tokens" \
    eval "wait_for '^3 fish +34 +31 +34' && wait_for 'fish +34\.5%' && not_shown 'X\.npy has'"
keys n
check "n goes on to example 6, with the designed heads back" \
    eval "wait_for '^6/[0-9]+: ' && wait_for 'd_model 192' && wait_for 'PE on'"

# 4. Esc never quits: it backs out one level.
start 100 30
keys b
check "b: side by side" wait_for 'mask off: .*│.*mask ON: '
keys Escape
check "Esc leaves side by side" wait_for '^Head 5 of 6: pronoun'
keys v
check "v: the PE view" wait_for 'PE matrix: row k = token k'
check "the PE view numbers tokens from 1, as the attention view" wait_for '^• +1 [A-Za-z]'
keys Escape
check "Esc leaves the PE view" wait_for '^Head 5 of 6: pronoun'
keys C
check "C: cross-attention" wait_for 'Keys/values \(2\)'
keys Escape
check "Esc leaves cross-attention" wait_for '^Sentence: The cat'
keys Escape
check "Esc in plain browsing says what quits, and does not quit" \
    eval "wait_for 'q, F10 or Ctrl-C quits' && not_shown EXITED"

# 7. Side by side at 80x24: every row that fits (the status line's settings
# take two rows at 80 columns), readable key labels, End scrolls no row away
# that fits.
start 80 24
keys b End
settle
rows=$(screen | grep -cE '^ *[0-9]+ [^ ]+ .*│')
check "80x24 side by side: at least 7 of the 11 rows ($rows)" test "$rows" -ge 7
check "80x24 side by side: the last row is shown after End" wait_for '^11 \. .*│11 \.'
check "80x24 side by side: key labels are letters, not '…'" not_shown '… +… +…'
keys Escape
check "80x24: Esc leaves side by side" wait_for '^Head 5 of 6: pronoun'
keys v
check "80x24 PE view: the similarity shows the selected row (11 .)" \
    wait_for '^.{30,}•11 \.'
keys Home
check "80x24 PE view: ... and after Home, the first (1 The)" wait_for '^.{30,}• 1 The'

# 8. A long sentence: readable key labels, the sentence line follows the
# selection, small heads labelled by head.
LONG='When the old fisherman finally came back from the sea after three long weeks , the whole village gathered at the harbour and everyone wanted to hear what he had seen out there , away at sea .'
start 100 30 "$LONG"
check "38 tokens: small heads labelled by head, abbreviated to fit" wait_for '1 prev tok +2 self +3 1st tok'
check "38 tokens: the key axis is a ruler of token numbers" wait_for '^ +1 +11 +21 +31 '
check "38 tokens: key labels spaced (no run of 20 letters in a label row)" \
    not_shown '^ {8,}[A-Za-z]{20}'
keys End
check "End: the sentence line shows the last token's neighbourhood" \
    wait_for '^Sentence: .*away at sea \.'
check "38 tokens: token 38 selected" wait_for 'Token 38 '
check "38 tokens: its chip is shown, not cut away" wait_for '^ .* 38 \.'
start 80 24 "$LONG"
keys End
check "80x24, 38 tokens: the chip of the selection is shown" wait_for '^Tokens: .* 38 \.'


# 10. Smaller defects.
for _ in $(seq 40); do echo 'The cat sat on the mat because it was tired .'; done > "$WORK/long.txt"
start 120 40 --preset random -f "$WORK/long.txt"
keys z z z z z z
wait_for '^ +10 tired' && settle
c9=$(screen | grep -E '^.? +9 was' | head -1 | awk '{print index($0, "was")}')
c10=$(screen | grep -E '^.? +10 tired' | head -1 | awk '{print index($0, "tired")}')
check "long text: row labels do not shift a column at token 10 ($c9 = $c10)" \
    test -n "$c9" -a "$c9" = "$c10"
start 120 40
keys 7
check "7 with 6 heads: no head 7, the hint names P (h/H are refused)" \
    wait_for 'no head 7: there are 6 designed heads \(P: random heads, whose count h/H change\)'
keys '>' '<'
check "back to one layer: plain attention, not an encoder layer" \
    wait_for 'one layer: plain multi-head attention'
keys t Right
check "the raw score says it is divided by the temperature" \
    wait_for 'raw score q\.k/sqrt\(d_k\)/T \(T = 0\.5\)'
start 80 24
keys n n n n n n n
check "80x24: example 8's note is whole, to its last words" \
    eval "wait_for '^8/11: ' && wait_for 'bites dog\"\\.\$'"
keys n
check "80x24: example 2's note, of four lines, is whole" \
    eval "wait_for '^9/11: ' && keys N N N N N N N && wait_for '^2/11: ' && wait_for 'learns that match\\.\$'"
start 80 24
keys '?'
check "help at 80x24 scrolls instead of cutting every line" wait_for 'Down: more \(1-'
check "... with Esc's line whole" wait_for 'back out one level'
keys End
check "... End: at the last line, only Up scrolls" wait_for '─ Up: more \([0-9]+-([0-9]+) of \1\) '
keys Home
check "... Home: back to the first" wait_for '─ Down: more \(1-'
keys Escape
# q only once Escape has been taken: an Escape and a q read within ncurses'
# escape delay are one key, Alt-q, which does not quit
closed=no
for _ in $(seq 1 "$WAIT_TICKS"); do
    screen | grep -q 'back out one level' || { closed=yes; break; }
    sleep 0.05
done
check "Esc closes the help" test "$closed" = yes
settle
keys q
check "q quits with status 0" wait_for 'EXITED:0'

printf 'a\n%05000d\n' 0 > "$WORK/long.txt"
has() { echo "$out" | grep -qF -- "$1"; }
out=$("$BIN" --sentences "$WORK/long.txt" --export csv a 2>&1)
check "--sentences: an over-long line names the limit" \
    has 'long.txt:2: longer than the 4096 bytes a line may have'
printf 'a\n@ colour=red\n' > "$WORK/bad.txt"
out=$("$BIN" --sentences "$WORK/bad.txt" --export csv a 2>&1)
check "--sentences: a bad setting names its line" has "bad.txt:2: not a setting: 'colour=red'"
cd "$ROOT" || exit 1
exit $fail

#!/bin/bash
# tui_lens.sh - the logit lens view under tmux (issue 38 item 1), at 80x24,
# 100x30 and 120x40, on the trained character model assets/models/chars:
# u opens it on the last token and the output layer (the title, the marked
# column, the top ten), Left selects the position before and shows the
# text's next token with its rank, Up the layer above; typing with the view
# open gives the longer text's lens; Esc goes back to the heatmaps and q
# quits with status 0. The toy pipeline says in one status line why it has
# no lens. The lesson "lens" is clean under --check at the three sizes and
# its handout writes the grid. Its numbers are test_input_lens.c's and
# lens.sh's.
# tier: test
# asan: no
cd "$(dirname "$0")/../.." || exit 1
. tests/e2e/lib/tui.sh
tui_init lens
export LC_ALL=C.UTF-8
CHARS=$PWD/assets/models/chars

for size in "80 24" "100 30" "120 40"; do
    set -- $size
    at="$1x$2"
    tui_start TERM=xterm-256color "$1" "$2" --model "$CHARS" 'The cat sat on the m'
    wait_for '^Sentence: ' && settle
    keys u && wait_for 'layer 4 after m' && settle
    s=$(screen)
    check "$at: u opens the lens: its title, the output layer, the last position marked" \
        grep -q "Logit lens: each layer's likeliest next token (layer 0: embeddings, 4: output)" \
        <<<"$s"
    check "$at: the last position's column marked, its top ten listed" \
        grep -Eq '▼20 .*layer 4 after m' <<<"$s"
    check "$at: the top ten's first, 'a' after ' m', and the last position has no next token" \
        bash -c 'grep -Eq "^.* 1 a +9[0-9]\.[0-9]%" <<<"$1" && grep -q "has no next token yet" <<<"$1"' _ "$s"
    keys Left && wait_for 'layer 4 after ␣' && settle
    s=$(screen)
    check "$at: Left: position 19, the text's next token 'm' with its rank" \
        bash -c 'grep -q "▼19" <<<"$1" && grep -q "next in the text: m" <<<"$1" &&
                 grep -Eq "rank [0-9]+, [0-9.]+%" <<<"$1"' _ "$s"
    keys Up && wait_for 'layer 3 after ␣' && ok "$at: Up: layer 3" || notok "$at: Up: $(screen | grep after)"
    keys e End && keys -l 'at' && keys Enter
    wait_for '▼22' && wait_for 'layer 3 after t' && ok "$at: typed 'at': the lens of the longer text" ||
        notok "$at: after typing: $(screen | grep -E '▼|after' | head -2)"
    keys Escape && wait_for 'attnviz \| Attention' && ok "$at: Esc: back to the heatmaps" ||
        notok "$at: Esc: $(screen | head -1)"
    keys u && wait_for 'Logit lens: each layer' && settle
    keys Escape && wait_for 'attnviz \| Attention' && settle
    check "$at: Esc takes the lens's status line with it" eval '! screen | grep -q "logit lens: each layer"'
    keys q && wait_for 'EXITED:0' && ok "$at: q quits with status 0" || notok "$at: q: $(screen | tail -2)"
done

# The lesson on the lens: clean at the three sizes, its handout writes the grid.
out=$(env -u TERM "$BIN" --lesson lens --check </dev/null 2>&1)
rc=$?
check "the lens lesson: --check clean at 80x24, 100x30 and 120x40" test "$rc" = 0 -a -z "$out"
"$BIN" --lesson lens --export md -o "$WORK/lens.md" 2>/dev/null
check "the lens lesson's handout writes the lens" grep -q "^Logit lens: each layer" "$WORK/lens.md"

tui_start TERM=xterm-256color 80 24 'The cat sat on the mat'
wait_for '^Sentence: ' && settle
keys u && wait_for 'no logit lens' && settle
s=$(screen)
check "the toy pipeline: u says why in one status line, the heatmaps stay" \
    bash -c 'grep -q "no logit lens: attnviz.s own heads predict no tokens" <<<"$1" &&
             grep -q "attnviz | Attention" <<<"$1"' _ "$s"
exit $fail

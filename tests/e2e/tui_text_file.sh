#!/bin/bash
# tui_text_file.sh - a text with tabs and line breaks (-f FILE, a paste) in
# the interface, under tmux at 100x30: the sentence keeps its characters,
# drawn as the exports draw them (a tab "⇥", a newline "↵"), and the token
# chips are --export text's tokens; a bracketed paste in the editor types its
# tab and line break into the sentence, and Enter still ends the edit; a
# paste while browsing opens the editor with it (never read as keys: a "q"
# in it does not quit), and where the editor is refused it is dropped; a
# paste whose end never comes holds the keys no longer than the input lasts.
# The characters model (assets/models/chars) and, with python3-numpy, a
# random GPT-2 with a byte-level tokenizer of its own.
# Prints "ok - name" / "not ok - name"; exits non-zero on a failure.
# tier: test
# asan: no
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/e2e/lib/tui.sh
tui_init textfile
PY=/usr/bin/python3
start() { tui_start TERM=xterm-256color 100 30 "$@"; }
# chips: the token chips of the screen, as "1:a 2:⇥ ..." (export text's form)
chips() { screen | sed -n 's/^Tokens: *//p' | sed -E 's/  +([0-9]+) /\n\1 /g; s/^([0-9]+) /\1:/' |
    sed -E 's/^([0-9]+) /\1:/' | tr '\n' ' ' | sed 's/ *$//'; }
exported() { "$BIN" "$@" -e text | sed -n 's/^Sentence: //p' | head -1; }

printf 'the cat\nsat' >"$WORK/cat.txt"
M=$PWD/assets/models/chars
start --model "$M" -f "$WORK/cat.txt"
check "chars: the sentence keeps its newline, drawn as a mark" \
    wait_for '^Sentence: the cat↵sat'
want=$(exported --model "$M" -f "$WORK/cat.txt")
got=$(chips)
check "chars: the chips are the export's tokens ($want)" test "$got" = "$want"

# paste: a bracketed paste of the file at $1 into the pane
paste() {
    tmux -L "$SOCK" load-buffer "$1"
    tmux -L "$SOCK" paste-buffer -p -t "$SESS" # bracketed, as the program asked
}
# A paste while browsing is a sentence, not keys: "q" in it does not quit,
# "e" does not open a second edit; it goes into the editor it opens.
printf 'q e sat' >"$WORK/keys"
start --model "$M" 'the cat'
wait_for '^Sentence: the cat'
paste "$WORK/keys"
check "a paste while browsing opens the editor with it" wait_for '^Sentence: the catq e sat'
check "... editing, not quit" wait_for 'EDITING'
# where e is refused (the help is open), the paste is dropped, not read as keys
start --model "$M" 'the cat'
wait_for '^Sentence: the cat'
keys '?'
settle
paste "$WORK/keys"
settle
check "a paste under the help is refused whole: still running, the help open" \
    wait_for 'close the help first'
keys Escape
check "... the sentence as it was" wait_for '^Sentence: the cat *$'

# a paste whose end marker is lost (a terminal's glitch, a stream of
# random bytes) holds no key once the input has run dry: q quits
start --model "$M" 'the cat'
wait_for '^Sentence: the cat'
keys '?'
settle
tmux -L "$SOCK" send-keys -l -t "$SESS" $'\e[200~x y'
nap 0.5
keys q
check "a paste without its end marker: q quits afterwards" wait_for 'EXITED:0'

if "$PY" -c 'import numpy' 2>/dev/null &&
    "$PY" scripts/gpt2-checkpoint.py "$WORK/G" --seed 3 --vocab 1024 --ctx 128 >/dev/null; then
    printf 'a\tb  c\n\nd' >"$WORK/ws.txt"
    start --model "$WORK/G" -f "$WORK/ws.txt"
    check "GPT-2: the sentence keeps its tab and newlines" wait_for '^Sentence: a⇥b  c↵↵d'
    want=$(exported --model "$WORK/G" -f "$WORK/ws.txt")
    got=$(chips)
    check "GPT-2: the chips are the export's tokens ($want)" test "$got" = "$want"
    check "GPT-2: one run of the file's text, 8 tokens" wait_for ' tokens 8 '

    start --model "$WORK/G" x
    keys e
    settle
    printf 'p\tq\nr' >"$WORK/paste"
    paste "$WORK/paste"
    check "a bracketed paste types its tab and line break" wait_for '^Sentence: xp⇥q↵r'
    check "... still editing after it" wait_for 'EDITING'
    keys Enter
    check "Enter ends the edit, the text as pasted" \
        bash -c 'for i in $(seq 60); do s=$(tmux -L "$1" capture-pane -p -t s)
            case $s in *"e: edit the sentence"*"Sentence: xp⇥q↵r"*) exit 0;; esac
            sleep 0.05; done; exit 1' _ "$SOCK"
else
    echo "skip - the GPT-2 part: python3-numpy not installed"
fi
exit $fail

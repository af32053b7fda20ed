#!/bin/bash
# tier: quick
# asan: yes
# lesson_missing_model.sh - a lesson page whose model: folder is missing, as
# a teacher meets it: under tmux at 80x24 its lens view gives the true reason
# (the page's model was not found, toy weights meanwhile; not "imported
# attention") under a title that names no layers (it read "layer 0:
# embeddings, 0: output"), and the page says the folder is not there
# without promising what the page does not say; the handout's settings say what the interface
# shows (its sentence, toy weights of the page's seed in place of the model,
# the page's layer), never an empty sentence before a ';'; a built-in
# lesson's model under assets/ missing beside a copied binary says where
# attnviz looked and that make install installs attnviz's own models.
# Prints "ok - name" / "not ok - name"; exits non-zero on a failure.
# Run from the repository root.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/e2e/lib/tui.sh
tui_init lesson-missing
export LC_ALL=C.UTF-8
L=$WORK/t.lesson
printf 'title: t\n== p\nmodel: /tmp/attnviz-no-such-model\nview: lens\n\nSome text.\n' >"$L"

# 1. The interface at 80x24: the lens view's reason and the page's line.
tui_start "TERM=xterm-256color" 80 24 --lesson "$L"
s=$(screen)
if grep -qF "No logit lens: the page's model /tmp/attnviz-no-such-model was not found, and" <<<"$s" &&
    grep -qF "weights that run meanwhile predict no tokens." <<<"$s" &&
    ! grep -q "imported attention" <<<"$s"; then
    ok "80x24: the lens view says the page's model was not found, toy weights meanwhile"
else
    notok "80x24: the lens view's reason: $(head -n 8 <<<"$s" | tr '\n' '|')"
fi
title=$(grep "^Logit lens" <<<"$s")
if [ "$title" = "Logit lens: each layer's likeliest next token" ]; then
    ok "80x24: the lens view's title counts no layers it does not have"
else
    notok "80x24: the lens view's title: $title"
fi
if grep -qF "The model folder /tmp/attnviz-no-such-model is not there. Toy weights run" <<<"$s" &&
    ! grep -q "as the page says" <<<"$s"; then
    ok "80x24: the page says the folder is not there, and promises nothing the page does not say"
else
    notok "80x24: the page's line: $(tail -n 12 <<<"$s" | tr '\n' '|')"
fi
status=$(grep -o 'd_model [0-9]*  heads [0-9]*  d_k [0-9]*  seed [0-9]*' <<<"$s")
sentence=$(sed -n 's/^Sentence: //p' <<<"$s")
keys q && wait_for 'EXITED:0' && ok "q quits with status 0" || notok "q: $(screen | tail -n 3)"

# 2. The handout: the settings the interface shows, the same line.
md=$("$BIN" --lesson "$L" -e md 2>&1)
rc=$?
set_line=$(grep '^\*Settings:\*' <<<"$md")
want='*Settings:* "The cat sat on the mat because it was tired."; d_model 32, 4 heads (d_k 8), head 1; mask off, PE on,'
want="$want scaled by 1/sqrt(d_k); toy weights from seed 42 in place of the model"
want="$want /tmp/attnviz-no-such-model; view: lens."
if [ $rc = 0 ] && [ "$set_line" = "$want" ] && [ "$status" = "d_model 32  heads 4  d_k 8  seed 42" ] &&
    [ "$sentence" = "The cat sat on the mat because it was tired." ] &&
    grep -qxF '> The model folder /tmp/attnviz-no-such-model is not there.' <<<"$md"; then
    ok "the handout's settings are the interface's ($status): $set_line"
else
    notok "handout settings: exit $rc, status line '$status': $set_line"
fi

# 3. A built-in lesson's own model, missing beside a copied binary: where
# attnviz looked, make install, the interface's layer; no empty sentence.
mkdir -p "$WORK/alone" && cp "$BIN" "$WORK/alone/attnviz"
cp assets/lessons/*-induction.lesson "$WORK/alone/induction.lesson"
md=$(cd "$WORK/alone" && ./attnviz --lesson induction -e md 2>&1)
note="> The model folder assets/models/induction is not there: attnviz looked in the working folder"
note="$note ($WORK/alone) and beside attnviz ($WORK/alone, the folders above it and its installed"
note="$note share/attnviz). attnviz's own models come with it: make install installs them, or run"
note="$note attnviz from its checkout."
page3=$(sed -n '/^## 3\. /,/^## 4\. /p' <<<"$md")
if grep -qxF "$note" <<<"$page3" &&
    grep -qF '*Settings:* "fjqzwfjqzw"; d_model 32, 4 heads (d_k 8), head 1, layer 2 of 2;' <<<"$page3" &&
    grep -qF 'toy weights from seed 42 in place of the model assets/models/induction' <<<"$page3" &&
    ! grep -q '^\*Settings:\* ;' <<<"$md"; then
    ok "induction without its model: where attnviz looked, make install, layer 2 of 2"
else
    notok "induction without its model: $(grep -m3 'Settings\|not there' <<<"$page3" | tr '\n' '|')"
fi
exit $fail

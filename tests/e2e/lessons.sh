#!/bin/bash
# lessons.sh - the lessons as a teacher meets them: `--lesson` lists the
# built-in lessons; every one writes its Markdown handout (one section a
# page); answers revealed in handouts equal the model's numbers from
# `--export csv` of the same settings; `--export pipeline` shows seed 001's
# numbers; malformed lesson files of several kinds give one line naming the
# file and the line, exit status 2; and, under tmux, every built-in lesson
# opens and every page renders at 80x24 and 120x40 with no error.
# Run from the repository root; $ATTNVIZ is the binary (default ./attnviz).
# tier: test
# asan: yes
set -u
ATTNVIZ=${ATTNVIZ:-$PWD/attnviz}
export LC_ALL=${LC_ALL:-C.UTF-8}
unset NO_COLOR
tmp=$(mktemp -d "${TMPDIR:-/tmp}/attnviz-lessons.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
failures=0
out=$tmp/stdout err=$tmp/stderr

pass() { echo "ok - $1"; }
fail() { echo "not ok - $1 ($2)"; failures=$((failures + 1)); }
run() { "$ATTNVIZ" "$@" </dev/null >"$out" 2>"$err"; rc=$?; }
err_text() { head -c 300 "$err" | tr '\n' '|'; }

# --- the list ---------------------------------------------------------------
run --lesson
names=$(cut -f1 "$out")
n=$(grep -c . "$out")
if [ "$rc" -eq 0 ] && [ "$n" -ge 15 ] && ! grep -qv $'^[a-z0-9-]*\t[^\t]*[^ ]$' "$out"; then
    pass "--lesson lists $n lessons as name<TAB>title"
else
    fail "--lesson lists the lessons" "status $rc, $n lines: $(head -c 200 "$out" | tr '\n' '|')"
fi
first=$(head -n 1 "$out" | cut -f1)
[ "$first" = qkv ] && pass "the first lesson is queries, keys and values" ||
    fail "lesson order" "first is '$first'"

# --- every handout ------------------------------------------------------------
for name in $names; do
    run --lesson "$name" --export md -o "$tmp/$name.md"
    file=$(ls assets/lessons/*-"$name".lesson 2>/dev/null | head -n 1)
    want=$(grep -c '^==' "$file")
    got=$(grep -c '^## [0-9]*\. ' "$tmp/$name.md" 2>/dev/null)
    asks=$(grep -c '^ask:' "$file")
    answers=$(grep -c '^\*\*Answer' "$tmp/$name.md" 2>/dev/null)
    if [ "$rc" -ne 0 ] || [ -s "$err" ]; then
        fail "handout $name" "status $rc: $(err_text)"
    elif [ "$got" -ne "$want" ] || [ "$answers" -ne "$asks" ]; then
        fail "handout $name" "$got sections for $want pages, $answers answers for $asks questions"
    elif [ "$name" != induction ] && grep -q 'not available' "$tmp/$name.md"; then
        fail "handout $name" "an answer is not available: $(grep -m1 'not available' "$tmp/$name.md")"
    elif ! head -n 1 "$tmp/$name.md" | grep -q '^# '; then
        fail "handout $name" "does not start with a Markdown title"
    else
        pass "handout $name: $got pages, $answers answers"
    fi
done
if [ -d assets/models/induction ]; then
    got=$(grep '^\*\*Answer' "$tmp/induction.md" | sed -n 2p)
    [[ "$got" == *": q ("* ]] && pass "the induction lesson runs assets/models/induction: $got" ||
        fail "induction handout" "answer '$got'"
else
    grep -q 'assets/models/induction is not there' "$tmp/induction.md" &&
        pass "the induction lesson says plainly that its model is missing" ||
        fail "induction handout" "no word on the missing model"
fi
# Without the model folder the page says so: a copy of the lesson and of the
# binary alone (paths are also looked up beside the binary).
mkdir -p "$tmp/alone" && cp assets/lessons/*-induction.lesson "$tmp/alone/induction.lesson"
cp "$ATTNVIZ" "$tmp/alone/attnviz"
(cd "$tmp/alone" && ./attnviz --lesson induction.lesson --export md >"$tmp/alone.md" 2>"$err")
grep -q 'assets/models/induction is not there' "$tmp/alone.md" &&
    grep -q 'Answer:\*\* not available' "$tmp/alone.md" &&
    pass "without its model the induction lesson says plainly that it is missing" ||
    fail "induction lesson without its model" "$(grep -m2 'missing\|Answer' "$tmp/alone.md" | tr '\n' '|')"

# With a trained model beside it, the induction lesson runs it (the trainer
# takes a few seconds) and the second "j" of fjqzwfjqzw attends to "q".
mkdir -p "$tmp/ind/assets/models"
if "$ATTNVIZ" train induction --layers 2 --heads 2 --save "$tmp/ind/assets/models/induction" \
    >"$tmp/train.log" 2>&1; then
    cp assets/lessons/*-induction.lesson "$tmp/ind/induction.lesson"
    (cd "$tmp/ind" && "$ATTNVIZ" --lesson induction.lesson --export md >"$tmp/ind.md" 2>"$err")
    got=$(grep '^\*\*Answer' "$tmp/ind.md" | sed -n 2p)
    if [[ "$got" == *": q ("* ]] && grep -q 'induction' "$tmp/ind.md"; then
        pass "induction lesson with a trained model: $got"
    else
        fail "induction lesson with a trained model" "answer '$got': $(err_text)"
    fi
else
    fail "training the induction model" "$(tail -n 2 "$tmp/train.log" | tr '\n' '|')"
fi

# --- answers equal the model's numbers ------------------------------------------
# answer FILE N : the N-th "**Answer**" of a handout, its number only.
answer() { grep '^\*\*Answer' "$1" | sed -n "${2}p" | sed 's/.*: \([^ ,(]*\).*/\1/; s/%//; s/\.$//'; }
# csv_weight ARGS... -- Q K : the weight query Q gives key K in --export csv, in per cent.
csv_weight() {
    local args=() q k
    while [ "$1" != -- ]; do args+=("$1"); shift; done
    q=$2 k=$3
    "$ATTNVIZ" "${args[@]}" --export csv | awk -F, -v q="$q" -v k="$k" \
        '$3 == q && $5 == k { printf "%.1f\n", 100 * $6; exit }'
}
check_answer() {
    local name=$1 got=$2 want=$3
    if [ -n "$got" ] && [ "$got" = "$want" ]; then pass "$name: $got"; else
        fail "$name" "handout says '$got', --export csv '$want'"; fi
}
S1=(--weights assets/seed001 -d 4 -H 2 --no-pe --head 1 'Cat eats fish')
check_answer "cat-eats-fish: Cat -> fish" "$(answer "$tmp/cat-eats-fish.md" 4)" \
    "$(csv_weight "${S1[@]}" -- Cat fish)"
check_answer "softmax: Cat -> Cat" "$(answer "$tmp/softmax.md" 1)" \
    "$(csv_weight "${S1[@]}" -- Cat Cat)"
D=(--preset designed --head 5 'Anna saw the dog and she petted it.')
check_answer "specialise: she -> Anna" \
    "$(grep '^\*\*Answer' "$tmp/specialise.md" | sed -n 1p | sed 's/.*(\([0-9.]*\)%).*/\1/')" \
    "$(csv_weight "${D[@]}" -- she Anna)"
C=(-c --head 1 'Anna saw the dog and she petted it.')
check_answer "causal-mask: she -> petted" "$(answer "$tmp/causal-mask.md" 3)" \
    "$(csv_weight "${C[@]}" -- she petted)"
N1=$(csv_weight --no-pe --head 1 'dog bites man' -- dog man)
N2=$(csv_weight --no-pe --head 1 'man bites dog' -- dog man)
check_answer "shuffle: dog -> man" "$(answer "$tmp/shuffle.md" 1)" "$N1"
check_answer "shuffle: dog -> man, shuffled" "$(answer "$tmp/shuffle.md" 2)" "$N2"
[ "$N1" = "$N2" ] && pass "without PE the shuffled row is the same ($N1%)" ||
    fail "shuffle invariance" "$N1 vs $N2"

# --- the pipeline export --------------------------------------------------------
run "${S1[@]}" --export pipeline --token 1
if [ "$rc" -eq 0 ] && grep -q '0.74  0.38  0.50' "$out" && grep -q '0.38  0.30  0.32' "$out" &&
    grep -q '0.54  0.46' "$out" && [ "$(grep -c '^[1-8] ' "$out")" -ge 3 ]; then
    pass "--export pipeline: seed 001's scores, weights and output"
else
    fail "--export pipeline" "status $rc: $(head -c 300 "$out" | tr '\n' '|')"
fi

# --- malformed lessons ----------------------------------------------------------------
# bad_lesson NAME LINE PATTERN TEXT : a file with TEXT fails naming file:LINE.
bad_lesson() {
    local name=$1 line=$2 pat=$3 f=$tmp/bad-$1.lesson
    printf '%b' "$4" >"$f"
    run --lesson "$f" --export md
    local msg
    msg=$(head -n 1 "$err")
    if [ "$rc" -ne 2 ] || [ "$(wc -l <"$err")" -ne 1 ] || [ -s "$out" ]; then
        fail "bad lesson: $name" "status $rc, stderr: $(err_text)"
    elif [[ "$msg" != "attnviz: $f:$line: "* ]] || ! grep -Eq -- "$pat" "$err"; then
        fail "bad lesson: $name" "message '$msg'"
    else
        pass "bad lesson: $name"
        echo "#   $msg"
    fi
}
bad_lesson no-title 1 "title" '== Page\nsentence: a b\n'
bad_lesson typo 4 "unknown setting 'tokn:'" 'title: T\n\n== P\ntokn: 3\n'
bad_lesson heads 4 "not divisible" 'title: T\n\n== P\nheads: 5\n'
bad_lesson number 3 "whole number" 'title: T\n== P\nd-model: lots\n'
bad_lesson no-answer 4 "no answer" 'title: T\n== P\nNarration.\nask: Which?\n== Q\n'
bad_lesson bad-answer 5 "answer takes" 'title: T\n== P\nask: Which?\n\nanswer: biggest\n'
bad_lesson late-setting 4 "too late" 'title: T\n== P\nSome text.\nmask: on\n'
bad_lesson one-choice 3 "2 to 9" 'title: T\n== P\nask: A?\nanswer: top\nchoice: x\n'
bad_lesson utf8 3 "UTF-8" 'title: T\n== P\nsentence: caf\xe9\n'
bad_lesson view 4 "view takes" 'title: T\n== P\n# comment\nview: graph\n'
bad_lesson view-own 3 "view train is the interface's own, no lesson page shows it" \
    'title: T\n== P\nview: train\n'
run --lesson no-such-lesson --export md
[ "$rc" -eq 2 ] && grep -q "no lesson called 'no-such-lesson'" "$err" &&
    pass "an unknown lesson name: exit 2" || fail "unknown lesson" "status $rc: $(err_text)"
run --lesson "$tmp/missing.lesson" --export md
[ "$rc" -eq 1 ] && grep -q "cannot read the lesson" "$err" &&
    pass "a lesson file that cannot be read: exit 1" || fail "missing file" "status $rc: $(err_text)"
run --lesson qkv --export csv
[ "$rc" -eq 2 ] && pass "--lesson with --export csv is refused" || fail "lesson csv" "status $rc"

[ "$failures" -eq 0 ]

#!/bin/bash
# cli.sh - the command line as a user meets it: every bad input of issue 2
# item 5 (exit status 2 for bad usage or input, 1 for I/O; exactly one line on
# standard error starting "attnviz: "; never a crash or sanitizer report), and
# the batch exports (--help, --version, csv, json, md, text, -o, -f -).
# Run from the repository root; $ATTNVIZ is the binary (default ./attnviz).
# Prints "ok - name" or "not ok - name (details)"; exits 1 when any failed.
# tier: quick
# asan: yes
set -u
ATTNVIZ=${ATTNVIZ:-$PWD/attnviz}
export LC_ALL=${LC_ALL:-C.UTF-8}
unset NO_COLOR
REF=$PWD/tests/data/ref   # committed 16x16 float32 matrices and a (6, 16) X.npy
tmp=$(mktemp -d "${TMPDIR:-/tmp}/attnviz-cli.XXXXXX") || exit 1
cleanup() { chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
failures=0
out=$tmp/stdout err=$tmp/stderr

pass() { echo "ok - $1"; }
fail() { echo "not ok - $1 ($2)"; failures=$((failures + 1)); }

# run [STDIN] ARGS... : run attnviz with stdin from STDIN (default /dev/null) and
# stdout/stderr in $out/$err; sets $rc.
run_in() {
    local input=$1; shift
    "$ATTNVIZ" "$@" <"$input" >"$out" 2>"$err"
    rc=$?
}
run() { run_in /dev/null "$@"; }

# The whole stderr, quoted on one line for a report.
err_text() { head -c 400 "$err" | tr '\n' '|'; }

# check_one_line NAME WANT PATTERN : the last run exited WANT (< 128) and wrote
# one line "attnviz: ..." to stderr matching the extended regex PATTERN.
check_one_line() {
    local name=$1 want=$2 pat=${3:-}
    local lines msg
    lines=$(wc -l <"$err")
    msg=$(head -n 1 "$err")
    if [ "$rc" -ge 128 ]; then
        fail "$name" "crashed: status $rc, stderr: $(err_text)"
    elif [ "$rc" -ne "$want" ]; then
        fail "$name" "status $rc, want $want; stderr: $(err_text)"
    elif [ "$lines" -ne 1 ] || [ "$(tail -c 1 "$err" | od -An -c | tr -d ' ')" != '\n' ]; then
        fail "$name" "stderr is $lines lines, want exactly 1: $(err_text)"
    elif [[ "$msg" != "attnviz: "* ]]; then
        fail "$name" "stderr does not start with 'attnviz: ': $(err_text)"
    elif [ -n "$pat" ] && ! grep -Eq -- "$pat" "$err"; then
        fail "$name" "message '$msg' does not match /$pat/"
    elif [ -s "$out" ] && [ "$want" -ne 0 ]; then
        fail "$name" "error but stdout not empty: $(head -c 100 "$out" | tr '\n' '|')"
    else
        pass "$name"
        echo "#   $msg"
    fi
}

# bad NAME WANT PATTERN ARGS... : run with ARGS (stdin /dev/null) and check.
bad() {
    local name=$1 want=$2 pat=$3; shift 3
    run "$@"
    check_one_line "$name" "$want" "$pat"
}

# npy_header DESCR FORTRAN SHAPE : a version 1.0 .npy header (magic, length,
# dict padded with spaces to a multiple of 64 bytes, ending in a newline).
npy_header() {
    local dict="{'descr': '$1', 'fortran_order': $2, 'shape': $3, }"
    local total=$((10 + ${#dict} + 1))
    local pad=$(((64 - total % 64) % 64))
    local hlen=$((${#dict} + pad + 1))
    printf '\x93NUMPY\x01\x00'
    printf "\\x$(printf %02x $((hlen & 255)))\\x$(printf %02x $((hlen >> 8)))"
    printf '%s%*s\n' "$dict" "$pad" ''
}

# weights_dir NAME : a fresh copy of the committed 16x16 weights, without X.npy.
weights_dir() {
    local d=$tmp/$1
    mkdir -p "$d"
    cp "$REF"/Wq.npy "$REF"/Wk.npy "$REF"/Wv.npy "$REF"/Wo.npy "$d"/
    echo "$d"
}

W16=(-H 4 -d 16)
TEXT6="a b c d e f"

# ---------------------------------------------------------------- usage errors
bad "d_model not divisible by heads (-d 30 -H 4)" 2 'divisible' -d 30 -H 4 -e csv "a b"
bad "heads 0" 2 'heads' -H 0 -e csv "a b"
bad "d-model 0" 2 'd-model' -d 0 -e csv "a b"
bad "heads absurd (99999)" 2 'heads' -H 99999 -e csv "a b"
bad "d-model absurd (99999)" 2 'd-model' -d 99999 -e csv "a b"
bad "heads beyond int (99999999999999999999)" 2 'heads' -H 99999999999999999999 -e csv "a b"
bad "heads negative (-H -4)" 2 'heads' -H -4 -e csv "a b"
bad "heads with trailing junk (-H 4x)" 2 'heads' -H 4x -e csv "a b"
bad "seed -1" 2 'seed' --seed -1 -e csv "a b"
bad "seed junk" 2 'seed' --seed banana -e csv "a b"
bad "seed empty" 2 'seed' --seed "" -e csv "a b"
bad "seed beyond 64 bits" 2 'seed' --seed 18446744073709551616 -e csv "a b"
bad "unknown long option" 2 'unknown option' --bogus -e csv "a b"
bad "unknown short option" 2 'unknown option' -z -e csv "a b"
bad "missing option value (-H at the end)" 2 'needs a value|-H' "a b" -H
bad "missing option value (--weights at the end)" 2 'needs a value|weights' -e csv "a b" --weights
bad "missing option value (--export at the end)" 2 'needs a value|export' "a b" --export
bad "unknown export format" 2 'export' -e pdf "a b"
bad "unknown --color" 2 'color' --color sometimes -e text "a b"
bad "--head beyond the heads" 2 'head' --head 5 -e csv "a b"
bad "--head 0" 2 'head' --head 0 -e csv "a b"
bad "--max-tokens 0" 2 'max-tokens' --max-tokens 0 -e csv "a b"
bad "TEXT and --file together" 2 'file' -f /dev/null -e csv "a b"
bad "--output without --export" 2 'output' -o "$tmp/never.txt" "a b"
[ ! -e "$tmp/never.txt" ] && pass "--output without --export writes nothing" \
    || fail "--output without --export writes nothing" "$tmp/never.txt exists"

# A --sentences setting that does not fit: FILE:LINE and why, not dropped
for bad_setting in 'preset=random heads=5|d_model 32 is not divisible by 5 heads' \
    'preset=random head=7|head=7, but the example has 4 heads' \
    'preset=random token=dog|token=dog is not a token of the sentence'; do
    printf 'The cat sat.\n@ %s\nA dog.\n' "${bad_setting%%|*}" >"$tmp/ex.txt"
    bad "--sentences: @ ${bad_setting%%|*}" 2 "ex\.txt:2: ${bad_setting#*|}" \
        --sentences "$tmp/ex.txt" -e csv "a b"
done

# ----------------------------------------------------------------- bad text
bad "empty text" 2 'no token|empty' -e csv ""
bad "whitespace-only text" 2 'no token|empty' -e csv $'  \t \n '
printf '   \n\t\n' >"$tmp/blank.txt"
bad "whitespace-only file (-f)" 2 'no token|empty' -e csv -f "$tmp/blank.txt"
: >"$tmp/empty.txt"
bad "empty file (-f)" 2 'no token|empty' -e csv -f "$tmp/empty.txt"
bad "too many tokens (--max-tokens 5, 6 tokens)" 2 'more than 5 tokens' --max-tokens 5 -e csv "$TEXT6"
run --max-tokens 6 -e csv "$TEXT6"
[ "$rc" -eq 0 ] && pass "exactly --max-tokens 6 tokens is accepted" \
    || fail "exactly --max-tokens 6 tokens is accepted" "status $rc: $(err_text)"
yes w | head -n 4097 | tr '\n' ' ' >"$tmp/4097.txt"
bad "too many tokens (4097 > the default 4096, -f)" 2 'more than 4096 tokens' -H 1 -d 1 \
    --dump "$tmp/dump4097" -f "$tmp/4097.txt"
[ ! -e "$tmp/dump4097" ] && pass "too many tokens: no dump folder made" \
    || fail "too many tokens: no dump folder made" "$tmp/dump4097 exists"
# 4096 tokens pass the tokeniser: the run gets as far as X.npy (6 rows), which
# then refuses them, without computing 4096 x 4096 weights
yes w | head -n 4096 >"$tmp/4096.txt"
bad "exactly 4096 tokens pass the default limit (then X.npy's 6 rows refuse them)" 2 \
    'X.npy has 6 rows but the text has 4096 tokens' -H 4 -d 16 --weights "$REF" -e csv -f "$tmp/4096.txt"
bad "--max-tokens beyond its limit (99999)" 2 'max-tokens' --max-tokens 99999 -e csv "a"
printf '\xff' >"$tmp/ff.txt"
bad "invalid UTF-8 (a lone 0xff byte, -f)" 2 'ff\.txt: invalid UTF-8 at byte' -e csv -f "$tmp/ff.txt"
printf 'caf\xc3 ok' >"$tmp/trunc-utf8.txt"
bad "invalid UTF-8 (truncated sequence, -f)" 2 'trunc-utf8\.txt: invalid UTF-8 at byte' -e csv -f "$tmp/trunc-utf8.txt"
bad "invalid UTF-8 in TEXT" 2 'UTF-8' -e csv $'ab \xc0\xaf cd'
printf 'a\0b' >"$tmp/nul.txt"
bad "NUL byte in the text file" 2 'NUL' -e csv -f "$tmp/nul.txt"
bad "text file missing (-f)" 1 'nope.txt' -e csv -f "$tmp/nope.txt"
bad "text file is a directory (-f)" 1 "$tmp" -e csv -f "$tmp"

# ----------------------------------------------------------------- bad .npy files
bad "--weights folder missing" 1 'Wq.npy' "${W16[@]}" -e csv --weights "$tmp/no-such-dir" "a b"
d=$(weights_dir missing); rm "$d/Wk.npy"
bad "missing .npy (Wk.npy)" 1 'Wk.npy' "${W16[@]}" -e csv --weights "$d" "a b"
d=$(weights_dir truncated); head -c 600 "$REF/Wv.npy" >"$d/Wv.npy"
bad "truncated .npy (Wv.npy, 600 of 1152 bytes)" 2 'Wv.npy' "${W16[@]}" -e csv --weights "$d" "a b"
d=$(weights_dir truncated-header); head -c 40 "$REF/Wq.npy" >"$d/Wq.npy"
bad "truncated .npy header (Wq.npy, 40 bytes)" 2 'Wq.npy' "${W16[@]}" -e csv --weights "$d" "a b"
d=$(weights_dir empty-npy); : >"$d/Wo.npy"
bad "empty .npy (Wo.npy, 0 bytes)" 2 'Wo.npy' "${W16[@]}" -e csv --weights "$d" "a b"
d=$(weights_dir not-npy); echo "hello" >"$d/Wq.npy"
bad "not a .npy file (text in Wq.npy)" 2 'Wq.npy' "${W16[@]}" -e csv --weights "$d" "a b"
d=$(weights_dir int32); { npy_header '<i4' False '(16, 16)'; head -c 1024 /dev/zero; } >"$d/Wq.npy"
bad "non-float .npy (int32 Wq.npy)" 2 'Wq.npy' "${W16[@]}" -e csv --weights "$d" "a b"
d=$(weights_dir bigendian); { npy_header '>f4' False '(16, 16)'; head -c 1024 /dev/zero; } >"$d/Wk.npy"
bad "big-endian float32 .npy (Wk.npy)" 2 'Wk.npy' "${W16[@]}" -e csv --weights "$d" "a b"
d=$(weights_dir fortran); { npy_header '<f4' True '(16, 16)'; head -c 1024 /dev/zero; } >"$d/Wv.npy"
bad "Fortran-order .npy (Wv.npy)" 2 'Wv.npy' "${W16[@]}" -e csv --weights "$d" "a b"
d=$(weights_dir shape); { npy_header '<f4' False '(16, 17)'; head -c 1088 /dev/zero; } >"$d/Wo.npy"
bad "wrongly shaped .npy (Wo.npy 16 x 17)" 2 'Wo.npy.*shape' "${W16[@]}" -e csv --weights "$d" "a b"
d=$(weights_dir shape1d); { npy_header '<f4' False '(256,)'; head -c 1024 /dev/zero; } >"$d/Wq.npy"
bad "wrongly shaped .npy (Wq.npy 1-D of 256)" 2 'Wq.npy' "${W16[@]}" -e csv --weights "$d" "a b"
d=$(weights_dir dmodel)
bad "16 x 16 weights with --d-model 32" 2 'Wq.npy.*shape' -e csv --weights "$d" "a b"
d=$(weights_dir nan); cp "$REF/Wq.npy" "$d/Wq.npy"
printf '\x00\x00\xc0\x7f' | dd of="$d/Wq.npy" bs=1 seek=$((128 + 4 * 37)) conv=notrunc status=none
bad "NaN-holding .npy (Wq.npy)" 2 'Wq.npy.*(NaN|finite)' "${W16[@]}" -e csv --weights "$d" "a b"
# finite weights so large (1e20) that the scores overflow float32: one line
# naming the folder, not NaN weights (3 tokens) or an abort in the softmax (40)
d=$(weights_dir huge)
for f in Wq Wk; do
    { npy_header '<f4' False '(16, 16)'; for i in $(seq 256); do printf '\xec\x78\xad\x60'; done; } >"$d/$f.npy"
done
bad "weights of 1e20 (3 tokens)" 2 "huge: .*overflow float32" "${W16[@]}" -e csv --weights "$d" "a b c"
bad "weights of 1e20 (40 tokens)" 2 "huge: .*overflow float32" "${W16[@]}" -e csv --weights "$d" \
    "$(seq -s ' ' 40)"
d=$(weights_dir inf); cp "$REF/Wv.npy" "$d/Wv.npy"
printf '\x00\x00\x80\xff' | dd of="$d/Wv.npy" bs=1 seek=$((128 + 4 * 255)) conv=notrunc status=none
bad "Inf-holding .npy (Wv.npy, -inf)" 2 'Wv.npy.*(Inf|finite)' "${W16[@]}" -e csv --weights "$d" "a b"
d=$(weights_dir xnan); cp "$REF/X.npy" "$d/X.npy"
printf '\x00\x00\xc0\x7f' | dd of="$d/X.npy" bs=1 seek=128 conv=notrunc status=none
bad "NaN-holding X.npy" 2 'X.npy' "${W16[@]}" -e csv --weights "$d" "$TEXT6"
d=$(weights_dir xrows); cp "$REF/X.npy" "$d/X.npy"
bad "X.npy rows (6) not matching 5 tokens" 2 'X.npy.*6.*5' "${W16[@]}" -e csv --weights "$d" "a b c d e"
bad "X.npy rows (6) not matching 7 tokens" 2 'X.npy.*6.*7' "${W16[@]}" -e csv --weights "$d" "a b c d e f g"
d=$(weights_dir xcols); { npy_header '<f4' False '(6, 15)'; head -c 360 /dev/zero; } >"$d/X.npy"
bad "X.npy of 15 columns with d_model 16" 2 'X.npy' "${W16[@]}" -e csv --weights "$d" "$TEXT6"
run "${W16[@]}" -e csv --weights "$(weights_dir ok)" "$TEXT6"
[ "$rc" -eq 0 ] && pass "good --weights folder (no X.npy) is accepted" \
    || fail "good --weights folder (no X.npy) is accepted" "status $rc: $(err_text)"
run "${W16[@]}" -e csv --weights "$REF" "$TEXT6"
[ "$rc" -eq 0 ] && pass "good --weights folder with X.npy of 6 rows and 6 tokens" \
    || fail "good --weights folder with X.npy of 6 rows and 6 tokens" "status $rc: $(err_text)"

# ----------------------------------------------------------------- unwritable outputs
bad "-o into a missing folder" 1 'nonexistent' -e csv -o /nonexistent/dir/x.txt "a b"
[ ! -e /nonexistent/dir/x.txt ] && pass "-o into a missing folder leaves no file" \
    || fail "-o into a missing folder leaves no file" "/nonexistent/dir/x.txt exists"
echo "not a folder" >"$tmp/regular"
bad "-o under a regular file" 1 'regular' -e csv -o "$tmp/regular/x.txt" "a b"
[ "$(cat "$tmp/regular")" = "not a folder" ] && pass "-o under a regular file leaves it alone" \
    || fail "-o under a regular file leaves it alone" "$tmp/regular changed"
mkdir "$tmp/outdir" "$tmp/outdir/target"
bad "-o onto an existing folder" 1 'target' -e csv -o "$tmp/outdir/target" "a b"
left=$(find "$tmp/outdir" -mindepth 1 ! -path "$tmp/outdir/target" | tr '\n' ' ')
[ -z "$left" ] \
    && pass "-o onto an existing folder leaves no partial or temporary file" \
    || fail "-o onto an existing folder leaves no partial or temporary file" "left: $left"
# -o -: standard output, as -f - is standard input; no file named "-"
mkdir "$tmp/dash"
(cd "$tmp/dash" && "$ATTNVIZ" -e text -o - 'the cat' >"$out" 2>"$err")
rc=$?
if [ "$rc" = 0 ] && grep -q '^Sentence: 1:the 2:cat' "$out" && [ -z "$(ls -A "$tmp/dash")" ]; then
    pass "-o - writes to standard output, no file named -"
else
    fail "-o - writes to standard output, no file named -" \
        "status $rc, left: $(ls -A "$tmp/dash"), stdout: $(head -c 80 "$out")"
fi
bad "-e lens-json on the toy model names lens-json" 2 '^attnviz: --export lens-json needs' \
    -e lens-json "the cat"
if [ -w /dev/full ]; then
    bad "-o /dev/full (disk full)" 1 'full|space' -e csv -o /dev/full "a b"
fi
if [ "$(id -u)" -ne 0 ]; then
    mkdir "$tmp/ro"; chmod 555 "$tmp/ro"
    bad "-o into a read-only folder" 1 'ro/x.txt' -e csv -o "$tmp/ro/x.txt" "a b"
    [ -z "$(ls -A "$tmp/ro")" ] && pass "-o into a read-only folder leaves no file" \
        || fail "-o into a read-only folder leaves no file" "$(ls -A "$tmp/ro")"
    bad "--dump into a read-only folder" 1 'ro' --dump "$tmp/ro/d" "a b"
    chmod 755 "$tmp/ro"
else
    bad "-o under /etc/passwd (a regular file; running as root)" 1 'passwd' \
        -e csv -o /etc/passwd/x "a b"
fi
bad "--dump under a regular file" 1 'regular' --dump "$tmp/regular/d" "a b"
bad "--dump onto a regular file" 1 'regular' --dump "$tmp/regular" "a b"
bad "--dump under /etc/passwd" 1 'passwd' --dump /etc/passwd/d "a b"
if [ -w /dev/full ]; then
    "$ATTNVIZ" -e csv "a b" </dev/null >/dev/full 2>"$err"; rc=$?; : >"$out"
    check_one_line "export to a full standard output (>/dev/full)" 1 'write|space'
fi

bad "-o with an empty path" 2 "needs a path" -e csv -o "" "a b"
bad "--dump with an empty path" 2 "needs a path" --dump "" "a b"
bad "--weights with an empty path" 2 "needs a path" --weights "" -e csv a
bad "--cross with no token" 2 "--cross text holds no token" --cross "" -e csv a

# ----------------------------------------------------------------- not a terminal
bad "no terminal and no --export: one line, status 2" 2 'terminal' "The cat sat on the mat"
"$ATTNVIZ" "The cat sat on the mat" </dev/null >/dev/null 2>"$err"; rc=$?; : >"$out"
check_one_line "no terminal (stdout /dev/null)" 2 'terminal'

# ----------------------------------------------------------------- positive checks
run --help
{ [ "$rc" -eq 0 ] && grep -q '^usage: attnviz' "$out" && grep -q -- '--export' "$out" \
    && [ ! -s "$err" ]; } && pass "--help: status 0, usage on stdout, nothing on stderr" \
    || fail "--help: status 0, usage on stdout, nothing on stderr" "status $rc: $(err_text)"
grep -A1 -- '--model DIR' "$out" | grep -q 'Hugging Face GPT-2 folder' &&
    pass "--help: --model says it opens a Hugging Face GPT-2 folder" ||
    fail "--help: --model says it opens a Hugging Face GPT-2 folder" "$(grep -A1 -- --model "$out")"
run -h
{ [ "$rc" -eq 0 ] && grep -q '^usage: attnviz' "$out"; } && pass "-h prints the usage" \
    || fail "-h prints the usage" "status $rc"
run --version
{ [ "$rc" -eq 0 ] && grep -Eq '^attnviz [0-9]+\.[0-9]+\.[0-9]+( \(.*kernel .*\))?$' "$out" \
    && [ "$(wc -l <"$out")" -eq 1 ] && [ ! -s "$err" ]; } \
    && pass "--version: status 0, 'attnviz X.Y.Z (... kernel ...)'" \
    || fail "--version: status 0, 'attnviz X.Y.Z (... kernel ...)'" "status $rc, stdout $(head -c 80 "$out")"
run -V
{ [ "$rc" -eq 0 ] && grep -q '^attnviz ' "$out"; } && pass "-V prints the version" \
    || fail "-V prints the version" "status $rc"

# sums_to_one CSV : every (head, query) row of weights sums to 1 within 1e-5;
# prints the first bad row.
sums_to_one() {
    awk -F, 'NR > 1 { s[$1 "," $2] += $6 }
             END { for (k in s) if (s[k] < 0.99999 || s[k] > 1.00001) { print k, s[k]; exit 1 } }' "$1"
}
TEXT5="the cat sat on mats"
run -e csv "$TEXT5"
cp "$out" "$tmp/all.csv"
lines=$(wc -l <"$out")
[ "$rc" -eq 0 ] && [ "$lines" -eq $((4 * 5 * 5 + 1)) ] \
    && pass "--export csv: H*n*n+1 = 101 lines" \
    || fail "--export csv: H*n*n+1 = 101 lines" "status $rc, $lines lines"
head -n 1 "$out" | grep -q '^head,query_index,query,key_index,key,weight,masked$' \
    && pass "--export csv: header line" || fail "--export csv: header line" "$(head -n 1 "$out")"
bad_row=$(sums_to_one "$out") && pass "--export csv: every query row sums to 1" \
    || fail "--export csv: every query row sums to 1" "$bad_row"
run -e csv --causal -H 2 -d 8 "$TEXT5"
lines=$(wc -l <"$out")
[ "$rc" -eq 0 ] && [ "$lines" -eq $((2 * 5 * 5 + 1)) ] \
    && pass "--export csv -H 2 --causal: 51 lines" || fail "--export csv -H 2 --causal: 51 lines" "$lines"
bad_row=$(sums_to_one "$out") && pass "--export csv --causal: every query row sums to 1" \
    || fail "--export csv --causal: every query row sums to 1" "$bad_row"
m=$(awk -F, 'NR > 1 && ($4 > $2) != ($7 == 1) { print; exit }' "$out")
z=$(awk -F, 'NR > 1 && $7 == 1 && $6 != 0 { print; exit }' "$out")
[ -z "$m$z" ] && pass "--export csv --causal: masked exactly when key > query, weight 0" \
    || fail "--export csv --causal: masked exactly when key > query, weight 0" "$m$z"
run -e csv --head 3 "$TEXT5"
{ [ "$rc" -eq 0 ] && [ "$(wc -l <"$out")" -eq 26 ] \
    && [ -z "$(awk -F, 'NR > 1 && $1 != 3' "$out")" ]; } \
    && pass "--export csv --head 3: only head 3, n*n+1 lines" \
    || fail "--export csv --head 3: only head 3, n*n+1 lines" "status $rc, $(wc -l <"$out") lines"
grep '^3,' "$tmp/all.csv" | cmp -s - <(tail -n +2 "$out") \
    && pass "--head 3 rows equal head 3 of the full export" \
    || fail "--head 3 rows equal head 3 of the full export" "they differ"

run -e json "$TEXT5"
cp "$out" "$tmp/a.json"
if command -v python3 >/dev/null 2>&1; then
    why=$(python3 - "$tmp/a.json" <<'PY' 2>&1
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
assert d["tokens"] == ["the", "cat", "sat", "on", "mats"], d["tokens"]
assert len(d["heads"]) == 4, len(d["heads"])
for h in d["heads"]:
    w = h["weights"]
    assert len(w) == 5 and all(len(r) == 5 for r in w), "not 5 x 5"
    for r in w:
        assert abs(sum(r) - 1) < 1e-5, "row sums to %r" % sum(r)
PY
    ) && pass "--export json parses: 4 heads of 5 x 5, rows sum to 1" \
      || fail "--export json parses: 4 heads of 5 x 5, rows sum to 1" "$(echo "$why" | tail -n 1)"
else
    echo "skip - --export json: no python3 to parse it"
fi
{ [ "$rc" -eq 0 ] && grep -q '"heads"' "$out"; } && pass "--export json: status 0" \
    || fail "--export json: status 0" "status $rc"

run -e md "$TEXT5"
heads=$(grep -c '^#.*Head [0-9]' "$out"); seps=$(grep -c '^|---' "$out")
rows=$(grep -c '^| ' "$out")
[ "$rc" -eq 0 ] && [ "$heads" -eq 4 ] && [ "$seps" -eq 4 ] && [ "$rows" -eq $((4 * 6)) ] \
    && pass "--export md: a heading and a table (header + 5 rows) per head" \
    || fail "--export md: a heading and a table (header + 5 rows) per head" \
        "status $rc, $heads headings, $seps separators, $rows table rows"

run -e text --color always "$TEXT5"
grep -q $'\e\[' "$out" && [ "$rc" -eq 0 ] && pass "--export text --color always has ESC[" \
    || fail "--export text --color always has ESC[" "status $rc, no escape"
run -e text "$TEXT5"
cp "$out" "$tmp/a.txt"
{ [ "$rc" -eq 0 ] && ! grep -q $'\e' "$out"; } && pass "--export text (not a terminal): no ESC" \
    || fail "--export text (not a terminal): no ESC" "status $rc"
[ "$(grep -c '^weight: ' "$out")" -eq 4 ] && pass "--export text: a legend line per head" \
    || fail "--export text: a legend line per head" "$(grep -c '^weight: ' "$out") legend lines"
[ "$(grep -c '^Head [1-4] of 4' "$out")" -eq 4 ] && pass "--export text: a title per head" \
    || fail "--export text: a title per head" "$(grep -c '^Head' "$out") titles"
run -e text --color never "$TEXT5"
cmp -s "$out" "$tmp/a.txt" && pass "--color never equals the plain export" \
    || fail "--color never equals the plain export" "they differ"
run -e text --causal "$TEXT5"
grep '^weight: ' "$out" | head -n 1 | grep -qi 'mask' && pass "--export text --causal: legend names masked cells" \
    || fail "--export text --causal: legend names masked cells" "$(grep '^weight: ' "$out" | head -n 1)"

for fmt in text csv json md; do
    run -e "$fmt" "$TEXT5"; cp "$out" "$tmp/stdout.$fmt"
    run -e "$fmt" -o "$tmp/o.$fmt" "$TEXT5"
    { [ "$rc" -eq 0 ] && [ ! -s "$out" ] && cmp -s "$tmp/o.$fmt" "$tmp/stdout.$fmt"; } \
        && pass "-o writes the same bytes as stdout ($fmt)" \
        || fail "-o writes the same bytes as stdout ($fmt)" "status $rc"
done
run -e csv -o "$tmp/o.csv" "one two"
{ [ "$rc" -eq 0 ] && [ "$(wc -l <"$tmp/o.csv")" -eq 17 ]; } \
    && pass "-o replaces an existing file whole" || fail "-o replaces an existing file whole" "$(wc -l <"$tmp/o.csv") lines"
left=$(find "$tmp" -maxdepth 1 -name '.o.*' | tr '\n' ' ')
[ -z "$left" ] && pass "-o leaves no temporary file" || fail "-o leaves no temporary file" "$left"

printf '%s\n' "$TEXT5" >"$tmp/t5.txt"
run_in "$tmp/t5.txt" -e csv -f -
cmp -s "$out" "$tmp/stdout.csv" && [ "$rc" -eq 0 ] && pass "-f - reads the text from stdin" \
    || fail "-f - reads the text from stdin" "status $rc: $(err_text)"
run -e csv -f "$tmp/t5.txt"
cmp -s "$out" "$tmp/stdout.csv" && [ "$rc" -eq 0 ] && pass "-f FILE reads the text from FILE" \
    || fail "-f FILE reads the text from FILE" "status $rc: $(err_text)"
run -e csv the cat sat on mats
cmp -s "$out" "$tmp/stdout.csv" && pass "several TEXT operands are joined by spaces" \
    || fail "several TEXT operands are joined by spaces" "status $rc"
run -e csv --seed 42 "$TEXT5"
cmp -s "$out" "$tmp/stdout.csv" && pass "--seed 42 is the default" || fail "--seed 42 is the default" "differs"
run -e csv --seed 7 "$TEXT5"
! cmp -s "$out" "$tmp/stdout.csv" && pass "--seed 7 changes the weights" || fail "--seed 7 changes the weights" "same output"

run --dump "$tmp/dump" -H 2 -d 8 "$TEXT5"
missing=""
for f in tokens.txt X.npy Q.npy K.npy V.npy scores.npy weights.npy output.npy; do
    [ -s "$tmp/dump/$f" ] || missing="$missing $f"
done
{ [ "$rc" -eq 0 ] && [ -z "$missing" ] && [ ! -s "$out" ]; } \
    && pass "--dump writes every file of DESIGN.md" || fail "--dump writes every file of DESIGN.md" "status $rc, missing:$missing"
left=$(find "$tmp/dump" -mindepth 1 -name '.*' | tr '\n' ' ')
[ -z "$left" ] && pass "--dump leaves no temporary file" || fail "--dump leaves no temporary file" "$left"

# Exports say what was shown (issue 13 item 9): the temperature when not 1,
# and --numbers writes each cell's percentage as the screen does. Seed 001's
# "Cat eats fish" (d_k 2, no PE) gives the article's 38 / 30 / 32 %.
run -e text --numbers --no-pe -d 4 -H 2 --head 1 --weights assets/seed001 'Cat eats fish'
{ [ "$rc" -eq 0 ] && grep -Eq '^1 Cat +38 +30 +32$' "$out"; } \
    && pass "--numbers: seed 001's Cat row reads 38 30 32 as in the article" \
    || fail "--numbers: seed 001's Cat row reads 38 30 32 as in the article" "$(grep Cat "$out" | head -2 | tr '\n' '|')"
run -e text 'Cat eats fish'
grep -Eq '^1 Cat +[0-9]' "$out" && fail "without --numbers the cells are glyphs" "$(grep -m1 Cat "$out")" \
    || pass "without --numbers the cells are glyphs"
run -e text --temperature 0.5 'Cat eats fish'
grep -q 'temperature 0.5)' "$out" && pass "the text export names a temperature that is not 1" \
    || fail "the text export names a temperature that is not 1" "$(head -2 "$out" | tr '\n' '|')"
run -e json --temperature 2 'Cat eats fish'
grep -q '"temperature": 2,' "$out" && pass "the JSON export names a temperature that is not 1" \
    || fail "the JSON export names a temperature that is not 1" "$(head -4 "$out" | tr '\n' '|')"
run -e text 'Cat eats fish'
grep -q temperature "$out" && fail "temperature 1 is not mentioned" "$(head -2 "$out" | tr '\n' '|')" \
    || pass "temperature 1 is not mentioned"

# Each layer's folder names its own heads (a trained model's differ by layer).
rm -rf "$tmp/dl" && run --dump "$tmp/dl" --layers 3 --preset designed 'she saw him'
{ [ "$rc" -eq 0 ] && [ "$(sed -n 5p "$tmp/dl/layer1/heads.txt")" = "pronoun -> noun" ] &&
  [ "$(wc -l <"$tmp/dl/layer3/heads.txt")" -eq 6 ] && cmp -s "$tmp/dl/heads.txt" "$tmp/dl/layer1/heads.txt"; } \
    && pass "--dump: layerN/heads.txt with each layer's labels" \
    || fail "--dump: layerN/heads.txt with each layer's labels" "$(cat "$tmp/dl/layer1/heads.txt" 2>&1 | tr '\n' '|')"

# A dump replaces an earlier dump whole: none of its files stays beside the
# new ones (a 3-layer run's layerN/, then imported attention's three files).
cp -r "$tmp/dl" "$tmp/dl3"
run --dump "$tmp/dl" -H 2 -d 8 'she saw him'
got=$(cd "$tmp/dl" && find . -mindepth 1 | sort | tr '\n' ' ')
want="./K.npy ./Q.npy ./V.npy ./X.npy ./attention.npy ./heads.txt ./norms.npy ./output.npy ./rollout.npy ./scores.npy ./tokens.txt ./weights.npy "
{ [ "$rc" -eq 0 ] && [ "$got" = "$want" ]; } \
    && pass "--dump over a 3-layer dump: only the 1-layer run's files" \
    || fail "--dump over a 3-layer dump: only the 1-layer run's files" "status $rc: $got"
run --attention "$tmp/dl3/attention.npy" --tokens "$tmp/dl3/tokens.txt" --dump "$tmp/dl"
got=$(cd "$tmp/dl" && find . -mindepth 1 | sort | tr '\n' ' ')
{ [ "$rc" -eq 0 ] && [ "$got" = "./attention.npy ./rollout.npy ./tokens.txt " ]; } \
    && pass "--attention --dump over a dump: only the import's three files" \
    || fail "--attention --dump over a dump: only the import's three files" "status $rc: $got"
# A folder with a file no dump writes is refused, one line, nothing touched.
mkdir "$tmp/mine" && echo "my notes" >"$tmp/mine/notes.md" && cp "$tmp/dl3/X.npy" "$tmp/mine/"
bad "--dump into a folder of one's own files" 1 "mine: it holds notes.md, which is not a file of a dump" \
    --dump "$tmp/mine" 'she saw him'
got=$(cd "$tmp/mine" && find . | sort | tr '\n' ' ')
{ [ "$got" = ". ./X.npy ./notes.md " ] && cmp -s "$tmp/mine/X.npy" "$tmp/dl3/X.npy"; } \
    && pass "--dump leaves a folder it refuses as it was" \
    || fail "--dump leaves a folder it refuses as it was" "$got"
mkdir -p "$tmp/mine2/layer1" && : >"$tmp/mine2/layer1/model.json"
bad "--dump into a folder holding a model's layer" 1 "it holds layer1/model.json" \
    --attention "$tmp/dl3/attention.npy" --tokens "$tmp/dl3/tokens.txt" --dump "$tmp/mine2"

# --lesson and the settings its pages set: each refused by name, one line and
# exit 2, for the handout and the interface alike (the pages would replace
# them); --width, --numbers, --max-tokens and --sentences are the handout's.
for opt in "-c:-c/--causal" "--head 2:--head" "--seed 7:--seed" "--no-pe:--no-pe" \
    "-H 8:-H/--heads" "-d 16:-d/--d-model" "--preset random:--preset" "--no-scale:--no-scale" \
    "--temperature 2:--temperature" "--layers 2:--layers" "--layer 1:--layer" \
    "--token 2:--token" "--cross x:--cross"; do
    IFS=: read -r args name <<<"$opt"
    read -ra words <<<"$args"
    run --lesson qkv -e md "${words[@]}"
    check_one_line "--lesson qkv -e md $args: refused" 2 \
        "^attnviz: --lesson sets every page's settings: leave out $name\$"
    run --lesson qkv "${words[@]}"
    check_one_line "--lesson qkv $args (the interface): refused" 2 "leave out $name\$"
done
run --lesson qkv -e md
cp "$out" "$tmp/qkv.md"
run --lesson qkv -e md --width 40
w=$(sed -n '/^```text$/,/^```$/p' "$out" | LC_ALL=C.UTF-8 wc -L)
w0=$(sed -n '/^```text$/,/^```$/p' "$tmp/qkv.md" | LC_ALL=C.UTF-8 wc -L)
{ [ "$rc" -eq 0 ] && [ "$w" -le 40 ] && [ "$w0" -gt 40 ]; } \
    && pass "--lesson -e md --width 40: code blocks of at most 40 columns ($w; $w0 without)" \
    || fail "--lesson -e md --width 40" "status $rc, widest line $w, $w0 without"
run --lesson qkv -e md --numbers
{ [ "$rc" -eq 0 ] && cmp -s "$out" "$tmp/qkv.md"; } \
    && pass "--lesson -e md --numbers: the handout writes the numbers anyway" \
    || fail "--lesson -e md --numbers" "status $rc, $(diff "$out" "$tmp/qkv.md" | head -3 | tr '\n' '|')"
run --lesson qkv -e md --max-tokens 3
{ [ "$rc" -eq 0 ] && [ "$(grep -c 'more tokens than the limit' "$out")" -eq 4 ]; } \
    && pass "--lesson -e md --max-tokens 3: every page's sentence over the limit" \
    || fail "--lesson -e md --max-tokens 3" "status $rc: $(grep -m2 '^>' "$out" | tr '\n' '|')"

echo "# $failures failed"
[ "$failures" -eq 0 ]

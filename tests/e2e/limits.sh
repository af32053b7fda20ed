#!/bin/bash
# limits.sh - every stated limit (README.md "Limits") at its edge: the largest
# value accepted works, one more is refused with one line and exit status 2.
# Prints "ok - name" / "not ok - name"; exits non-zero on a failure.
# tier: quick
# asan: yes
set -u
BIN=${ATTNVIZ:-$PWD/attnviz}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
fail=0
ok() { echo "ok - $1"; }
notok() { echo "not ok - $1"; fail=1; }
# accept NAME ARGS...: exit 0
accept() {
    local name=$1; shift
    if "$BIN" "$@" >"$WORK/out" 2>"$WORK/err"; then ok "$name"
    else notok "$name (status $?: $(head -c 200 "$WORK/err"))"; fi
}
# refuse NAME PATTERN ARGS...: exit 2, one stderr line matching PATTERN
refuse() {
    local name=$1 pat=$2; shift 2
    "$BIN" "$@" >/dev/null 2>"$WORK/err"; local rc=$?
    if [ $rc -eq 2 ] && [ "$(wc -l <"$WORK/err")" -eq 1 ] && grep -q -- "$pat" "$WORK/err"; then
        ok "$name"
    else
        notok "$name (status $rc: $(tr '\n' '|' <"$WORK/err"))"
    fi
}
words() { awk -v n="$1" 'BEGIN { for (i = 0; i < n; i++) printf "w%d ", i % 97; print "" }'; }

accept "64 heads" -H 64 -d 64 --export csv "a b c"
refuse "65 heads" "from 1 to 64" -H 65 -d 65 --export csv "a b c"
accept "d_model 1024" -d 1024 --export csv "a b c"
refuse "d_model 1025" "from 1 to 1024" -d 1025 --export csv "a b c"
accept "48 layers" --layers 48 -d 8 -H 1 --export csv "a b c"
refuse "49 layers" "from 1 to 48" --layers 49 --export csv "a b c"
words 4096 >"$WORK/t4096"; words 4097 >"$WORK/t4097"
accept "4096 tokens by default" -f "$WORK/t4096" -H 1 -d 8 --export text
refuse "4097 tokens by default" "more than 4096 tokens" -f "$WORK/t4097" -H 1 -d 8 --export text
words 16384 >"$WORK/t16384"; words 16385 >"$WORK/t16385"
accept "16384 tokens with --max-tokens 16384" -f "$WORK/t16384" --max-tokens 16384 -H 1 -d 8 \
    --export text --width 60
refuse "16385 tokens with --max-tokens 16384" "more than 16384" -f "$WORK/t16385" \
    --max-tokens 16384 -H 1 -d 8 --export text
refuse "--max-tokens 16385" "from 1 to 16384" --max-tokens 16385 --export csv "a"
# A text file of exactly 1 MiB is read; one byte more is refused.
{ printf 'one two three'; head -c $((1048576 - 13)) /dev/zero | tr '\0' ' '; } >"$WORK/mib"
cp "$WORK/mib" "$WORK/mib1"; printf ' ' >>"$WORK/mib1"
accept "a text of 1 MiB" -f "$WORK/mib" --export csv
refuse "a text of 1 MiB and a byte" "1 MiB" -f "$WORK/mib1" --export csv
# A 256-byte word is one token, a 257-byte one two.
w256=$(head -c 256 /dev/zero | tr '\0' 'a'); w257=${w256}a
[ "$("$BIN" --export csv -H 1 -d 8 "$w256" | wc -l)" -eq 2 ] && ok "a 256-byte word is one token" ||
    notok "a 256-byte word is one token"
[ "$("$BIN" --export csv -H 1 -d 8 "$w257" | wc -l)" -eq 5 ] && ok "a 257-byte word is two tokens" ||
    notok "a 257-byte word is two tokens"
# Sentences files: 1,000 lines of 4,096 bytes at the most.
seq 1000 | sed 's/^/sentence /' >"$WORK/s1000"; seq 1001 | sed 's/^/sentence /' >"$WORK/s1001"
long=$(head -c 4096 /dev/zero | tr '\0' 'b')
echo "$long" >"$WORK/l4096"; echo "${long}b" >"$WORK/l4097"
accept "1000 example sentences" --sentences "$WORK/s1000" --export csv "a"
refuse "1001 example sentences" "s1001:1001" --sentences "$WORK/s1001" --export csv "a"
accept "a 4096-byte sentence" --sentences "$WORK/l4096" --export csv "a"
refuse "a 4097-byte sentence" "l4097:1" --sentences "$WORK/l4097" --export csv "a"
exit $fail

#!/bin/bash
# valgrind.sh - the batch command line under valgrind: no memory errors and no
# definite or indirect leaks, on success paths (every export format, --dump,
# --weights with hand-made .npy files, several layers, cross-attention, text
# from a file and from standard input) and on error paths (bad options, a
# missing file, invalid UTF-8, malformed .npy files). Each case also checks the
# exit status DESIGN.md gives. Prints "ok - valgrind NAME" / "not ok - valgrind
# NAME (why)". "possibly lost" blocks are not counted: OpenBLAS keeps its
# thread buffers to the end. $ATTNVIZ is the binary (absolute path); run from
# the repository root. Without valgrind: one "skip" line.
# tier: test
# asan: no (valgrind and the sanitizers do not mix)
set -u
ATTNVIZ=${ATTNVIZ:-$PWD/attnviz}
if ! command -v valgrind >/dev/null 2>&1; then
    echo "skip - valgrind not installed"
    exit 0
fi
if [ -n "${ATTNVIZ_SANITIZED:-}" ]; then
    # AddressSanitizer's runtime and valgrind exclude each other: valgrind
    # checks the plain build in `make test`, ASan and UBSan this one.
    echo "skip - valgrind: the sanitizer build (valgrind checks the plain one)"
    exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/attnviz-vg.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
# a private copy, so that a rebuild during the run cannot swap the binary
if ! cp "$ATTNVIZ" "$tmp/attnviz"; then
    echo "not ok - valgrind: cannot copy $ATTNVIZ"
    exit 1
fi
bin=$tmp/attnviz
export NO_COLOR=1 LC_ALL=C.UTF-8
failed=0
bad_report='ERROR SUMMARY: [1-9]\|definitely lost\|indirectly lost\|Invalid \|uninitialised'

# vg NAME STATUS [ARGS...]: run attnviz ARGS under valgrind (stdin from
# $tmp/stdin when it exists, else /dev/null) and expect exit status STATUS.
vg() {
    local name=$1 want=$2 rc in=/dev/null
    shift 2
    [ -e "$tmp/stdin" ] && in=$tmp/stdin
    valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect \
        --show-leak-kinds=definite,indirect --log-file="$tmp/vg.log" \
        "$bin" "$@" <"$in" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ "$rc" -eq 99 ] || grep -q "$bad_report" "$tmp/vg.log"; then
        echo "not ok - valgrind $name (memory errors or leaks, exit $rc)"
        sed 's/^/# /' "$tmp/vg.log" | head -40
        failed=$((failed + 1))
    elif [ "$rc" -ne "$want" ]; then
        echo "not ok - valgrind $name (exit $rc, want $want)"
        sed 's/^/# /' "$tmp/err" | head -5
        failed=$((failed + 1))
    else
        echo "ok - valgrind $name"
    fi
}

# le32 HEX...: each 32-bit word (8 hex digits, a float32's bits) as 4 bytes,
# little-endian, as .npy '<f4' data wants.
le32() {
    local w
    for w in "$@"; do
        printf "\\x${w:6:2}\\x${w:4:2}\\x${w:2:2}\\x${w:0:2}"
    done
}

# npy PATH SHAPE HEX...: a version 1.0 '<f4' C-order .npy file, header padded
# with spaces and '\n' to a multiple of 64 bytes, as NumPy writes it.
npy() {
    local path=$1 shape=$2 hdr pad
    shift 2
    hdr="{'descr': '<f4', 'fortran_order': False, 'shape': ($shape), }"
    pad=$(( (10 + ${#hdr} + 1 + 63) / 64 * 64 - 10 ))
    {
        printf '\223NUMPY\001\000'
        printf "\\x$(printf %02x $((pad & 255)))\\x$(printf %02x $((pad >> 8)))"
        printf '%s%*s\n' "$hdr" $((pad - ${#hdr} - 1)) ''
        le32 "$@"
    } >"$path"
}

# Weights for d_model 4: small distinct values (0.5, -0.25, 1, 0.2, 0, ...).
w=$tmp/weights
mkdir -p "$w"
a=(3f000000 be800000 3f800000 3e4ccccd 00000000 bf000000 3e800000 3dcccccd
   bf800000 3f400000 00000000 be4ccccd 3e99999a 00000000 3f000000 bf400000)
npy "$w/Wq.npy" "4, 4" "${a[@]}"
npy "$w/Wk.npy" "4, 4" "${a[@]:8}" "${a[@]:0:8}"
npy "$w/Wv.npy" "4, 4" "${a[@]:4}" "${a[@]:0:4}"
npy "$w/Wo.npy" "4, 4" "${a[@]:12}" "${a[@]:0:12}"
wx=$tmp/weights_x
mkdir -p "$wx"
cp "$w"/W*.npy "$wx"/
npy "$wx/X.npy" "3, 4" "${a[@]:0:12}"
# malformed sets: a wrong shape, a NaN, a truncated file, a huge header length
for bad in shape nan trunc hlen; do mkdir -p "$tmp/bad_$bad"; cp "$w"/W*.npy "$tmp/bad_$bad"/; done
npy "$tmp/bad_shape/Wk.npy" "4, 3" "${a[@]:0:12}"
npy "$tmp/bad_nan/Wv.npy" "4, 4" "${a[@]:0:15}" 7fc00000
head -c 100 "$w/Wo.npy" >"$tmp/bad_trunc/Wo.npy"
{ printf '\223NUMPY\002\000\377\377\377\177'; printf "{'descr': '<f4'"; } >"$tmp/bad_hlen/Wq.npy"

printf 'The cat sat on the mat because it was tired.\n' >"$tmp/text.txt"
printf 'caf\303\251 \377 bad\n' >"$tmp/bad_utf8.txt"
printf '# mine\nFirst sentence.\nSecond one\n' >"$tmp/sentences.txt"
printf 'good\nbad \300\257\n' >"$tmp/bad_sentences.txt"
text="The cat sat on the mat"

# success paths
for fmt in text csv json md; do
    vg "export $fmt" 0 --export "$fmt" "$text"
done
vg "export text, causal, one head, to a file" 0 -e text -c --head 2 -o "$tmp/out.txt" "$text"
vg "export trace" 0 -e trace --token 2 "$text"
vg "dump" 0 --dump "$tmp/dump" -H 2 -d 8 "$text"
vg "dump, three layers" 0 --dump "$tmp/dump3" --layers 3 -e csv "$text"
vg "designed preset" 0 --preset designed -e text "Anna saw the dog and she petted it."
vg "cross-attention" 0 -e json --cross "le chat" "$text"
vg "weights" 0 --weights "$w" -d 4 -H 2 -e csv "Cat eats fish"
vg "weights with X.npy" 0 --weights "$wx" -d 4 -H 1 --dump "$tmp/dumpx" "Cat eats fish"
vg "text from a file" 0 -f "$tmp/text.txt" -e md --no-pe --no-scale
vg "sentences file" 0 --sentences "$tmp/sentences.txt" -e csv
printf 'from standard input\n' >"$tmp/stdin"
vg "text from standard input" 0 -f - -e text
rm -f "$tmp/stdin"
vg "help" 0 --help
vg "version" 0 --version

# error paths
vg "bad option" 2 --nope "$text"
vg "bad number" 2 --heads 3x "$text"
vg "heads not dividing d_model" 2 -H 3 -d 32 -e text "$text"
vg "missing file" 1 -f "$tmp/no/such/file" -e text
vg "invalid UTF-8 argument" 2 -e text "$(printf 'ok \377\376 no')"
vg "invalid UTF-8 file" 2 -f "$tmp/bad_utf8.txt" -e csv
vg "invalid UTF-8 sentences" 2 --sentences "$tmp/bad_sentences.txt" -e csv
vg "too many tokens" 2 --max-tokens 3 -e text "$text"
vg "missing weights folder" 1 --weights "$tmp/no_weights" -d 4 -H 1 -e csv "$text"
vg "weights of the wrong shape" 2 --weights "$tmp/bad_shape" -d 4 -H 1 -e csv "$text"
vg "weights with NaN" 2 --weights "$tmp/bad_nan" -d 4 -H 1 -e csv "$text"
vg "truncated weights" 2 --weights "$tmp/bad_trunc" -d 4 -H 1 -e csv "$text"
vg "weights with a huge header length" 2 --weights "$tmp/bad_hlen" -d 4 -H 1 -e csv "$text"
vg "X.npy rows not matching the text" 2 --weights "$wx" -d 4 -H 1 -e csv "$text"
vg "unwritable dump folder" 1 --dump /proc/attnviz-no-such-dir -e text "$text"
vg "unwritable output" 1 -e csv -o /proc/attnviz-no-such-dir/out.csv "$text"

exit $((failed > 0))

#!/bin/bash
# ulimit.sh - under a small address space (ulimit -v, issue 22 item 5) every
# path either works or says in one line what it lacked, and never hangs:
# OpenBLAS's worker threads each map a 128 MB buffer and retried for ever
# when that failed, so that under ulimit -v 150000 even --version hung at
# exit; attnviz now re-executes itself with one OpenBLAS thread there.
# Not yet here (issue 22 item 5 is open): a long text's pooled export under
# ulimit -v 100000 still hangs, and training is untested.
# Prints "ok - name" / "not ok - name"; exits non-zero on a failure.
set -u
if [ -n "${ATTNVIZ_SANITIZED:-}" ]; then
    # ASan reserves terabytes of shadow address space at start: no sanitized
    # program starts under ulimit -v at all; make test runs this on the plain build
    echo "skip - ulimit: an address-space limit is not for a sanitized build"
    exit 0
fi
BIN=${ATTNVIZ:-$PWD/attnviz}
T=$(mktemp -d "${TMPDIR:-/tmp}/attnviz-ulimit.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
fail=0
# limited KB NAME ARGS...: exit 0 within 60 s, or exit 1/2 with one line
limited() {
    local kb=$1 name=$2; shift 2
    (ulimit -v "$kb" && exec timeout 60 "$BIN" "$@") >"$T/out" 2>"$T/err"
    local rc=$?
    if [ $rc -eq 0 ] && [ -s "$T/out" ]; then
        echo "ok - ulimit -v $kb: $name works"
    elif { [ $rc -eq 1 ] || [ $rc -eq 2 ]; } && [ "$(wc -l <"$T/err")" -eq 1 ]; then
        echo "ok - ulimit -v $kb: $name says what it lacked: $(cat "$T/err")"
    else
        echo "not ok - ulimit -v $kb: $name (status $rc$([ $rc -eq 124 ] && echo ', hung'):" \
            "$(head -c 200 "$T/err" | tr '\n' '|'))"
        fail=1
    fi
}
for kb in 100000 150000; do
    limited $kb "--version" --version
    limited $kb "an export" --export csv "The cat sat on the mat"
    limited $kb "a lesson's handout" --lesson qkv --export md
    limited $kb "imported attention" --attention tests/data/import/attn_l3h2n7.npy --export csv
done
exit $fail

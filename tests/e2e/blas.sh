#!/bin/bash
# blas.sh - the BLAS kernel attnviz runs on (issue 15 item 1), as --version
# reports it: OpenBLAS's own choice when it fits the processor; attnviz's,
# after one re-execution, when OpenBLAS fell back to an older kernel (walked
# here on any machine by ATTNVIZ_BLAS_PRETEND_KERNEL, which makes the decision
# take "Prescott" as OpenBLAS's choice); the user's OPENBLAS_CORETYPE never
# overridden; and never a second re-execution.
# Run from the repository root; $ATTNVIZ is the binary (default ./attnviz).
# tier: quick
# asan: yes
set -u
ATTNVIZ=${ATTNVIZ:-$PWD/attnviz}
failures=0
pass() { echo "ok - $1"; }
fail() { echo "not ok - $1 ($2)"; failures=$((failures + 1)); }
skip() { echo "skip - $1 ($2)"; }

# version [VAR=VALUE...]: attnviz --version under a clean BLAS environment
# plus the given variables; stdout in $out, status in $rc.
version() {
    out=$(env -u OPENBLAS_CORETYPE -u ATTNVIZ_BLAS_CHOSEN -u ATTNVIZ_BLAS_PRETEND_KERNEL \
        "$@" timeout 20 "$ATTNVIZ" --version 2>&1)
    rc=$?
}

version
kernel=$(printf '%s' "$out" | sed -n 's/.*kernel \([A-Za-z0-9_]*\),.*/\1/p')
# OpenBLAS's own choice: the kernel, or where attnviz re-executed itself (an
# Intel Xeon with AVX-512 on which 0.3.21 reports Prescott runs SkylakeX) the
# kernel it chose over
own=$(printf '%s' "$out" | sed -n 's/.*chosen by attnviz over \([A-Za-z0-9_]*\).*/\1/p')
own=${own:-$kernel}
if printf '%s' "$out" | grep -q 'no BLAS'; then
    [ "$rc" -eq 0 ] && pass "--version without BLAS: $out" || fail "--version" "status $rc"
    skip "kernel choice" "built with NO_BLAS=1"
    exit $((failures > 0))
fi
{ [ "$rc" -eq 0 ] && printf '%s' "$out" |
    grep -Eq '^attnviz [0-9]+\.[0-9]+\.[0-9]+ \(OpenBLAS [^,]*, kernel [A-Za-z0-9_]+, chosen by (OpenBLAS|attnviz over [A-Za-z0-9_]+)'; } \
    && pass "--version names the kernel and who chose it: $out" \
    || fail "--version names the kernel" "status $rc, '$out'"

if ! grep -qw avx /proc/cpuinfo 2>/dev/null; then
    skip "fallback corrected" "no AVX here: Prescott is already this processor's kernel"
else
    # attnviz corrects a fallback by itself: one re-execution with OPENBLAS_CORETYPE
    version ATTNVIZ_BLAS_PRETEND_KERNEL=Prescott
    { [ "$rc" -eq 0 ] && printf '%s' "$out" | grep -q 'chosen by attnviz over Prescott' &&
        ! printf '%s' "$out" | grep -q 'kernel Prescott'; } \
        && pass "a Prescott fallback is replaced by attnviz: $out" \
        || fail "a Prescott fallback is replaced" "status $rc, '$out'"
    if command -v strace >/dev/null 2>&1; then
        n=$(env -u OPENBLAS_CORETYPE -u ATTNVIZ_BLAS_CHOSEN ATTNVIZ_BLAS_PRETEND_KERNEL=Prescott \
            timeout 20 strace -e trace=execve -o /dev/stdout "$ATTNVIZ" --version 2>/dev/null |
            grep -c 'execve(.*= 0')
        [ "$n" -eq 2 ] && pass "exactly one re-execution" \
            || fail "exactly one re-execution" "$n successful execve calls, want 2"
    else
        skip "exactly one re-execution" "no strace"
    fi
fi

# the user's value is never overridden, even an older kernel
version OPENBLAS_CORETYPE=Prescott ATTNVIZ_BLAS_PRETEND_KERNEL=Prescott
{ [ "$rc" -eq 0 ] && printf '%s' "$out" | grep -q 'kernel Prescott, chosen by the user'; } \
    && pass "OPENBLAS_CORETYPE set by the user wins: $out" \
    || fail "OPENBLAS_CORETYPE set by the user wins" "status $rc, '$out'"

# a process that carries the mark (a re-execution, or its child) never
# re-executes: it runs OpenBLAS's own choice ($own), whatever attnviz would
# have forced
version ATTNVIZ_BLAS_CHOSEN=Haswell:Prescott ATTNVIZ_BLAS_PRETEND_KERNEL=Prescott
{ [ "$rc" -eq 0 ] && printf '%s' "$out" | grep -q "kernel $own, chosen by OpenBLAS"; } \
    && pass "the mark stops any further re-execution (kernel $own, OpenBLAS's own)" \
    || fail "the mark stops any further re-execution" "status $rc, '$out', want kernel $own"

# a real run after the re-execution: same output as without it
text='The trophy did not fit in the suitcase because it was too big'
a=$(env -u OPENBLAS_CORETYPE "$ATTNVIZ" -e csv "$text" 2>&1)
b=$(env -u OPENBLAS_CORETYPE ATTNVIZ_BLAS_PRETEND_KERNEL=Prescott "$ATTNVIZ" -e csv "$text" 2>&1)
{ [ -n "$a" ] && [ "$a" = "$b" ]; } && pass "a sentence's export is the same after the re-execution" \
    || fail "a sentence's export is the same after the re-execution" "outputs differ"

exit $((failures > 0))

#!/bin/bash
# run.sh ATTNVIZ TEST... - run every unit test binary, then every end-to-end
# script in tests/e2e/, and end with one "N passed, N failed, N skipped" line.
# Unit tests are cmocka binaries; e2e scripts print "ok - ...", "not ok - ..."
# or "skip - ..." (a check that could not run here: never counted as passed).
# Each file's line gives its seconds; the run ends with the slowest ten.
set -u
bin=$1; shift
export ATTNVIZ="$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")"
export LC_ALL=C.UTF-8
pass=0; fail=0; skip=0; failed=(); times=()
log=$(mktemp); trap 'rm -f "$log"' EXIT
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
for t in "$@"; do
    t0=$(now)
    "$t" >"$log" 2>&1; rc=$?
    s=$(secs "$t0" "$(now)")
    p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log" | awk '{s+=$1} END {print s+0}')
    f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log" | awk '{s+=$1} END {print s+0}')
    k=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' "$log" | awk '{s+=$1} END {print s+0}')
    if [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
    pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + k))
    if [ $rc -ne 0 ]; then cat "$log"; failed+=("$t"); fi
    printf '%-40s %3d passed, %d failed, %d skipped %7s s\n' "$(basename "$t")" "$p" "$f" "$k" "$s"
    times+=("$s $(basename "$t")")
done
for s in tests/e2e/*.sh; do
    [ -e "$s" ] || continue
    t0=$(now)
    bash "$s" >"$log" 2>&1; rc=$?
    sec=$(secs "$t0" "$(now)")
    p=$(grep -c '^ok - ' "$log"); f=$(grep -c '^not ok - ' "$log"); k=$(grep -c '^skip - ' "$log")
    if [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
    pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + k))
    if [ $rc -ne 0 ] || [ "$f" -ne 0 ]; then grep -v '^ok - ' "$log"; failed+=("$s"); fi
    grep '^skip - ' "$log" | sed 's/^/  /'
    printf '%-40s %3d passed, %d failed, %d skipped %7s s\n' "$(basename "$s")" "$p" "$f" "$k" "$sec"
    times+=("$sec $(basename "$s")")
done
echo "================================================================"
echo "slowest ten (seconds):"
printf '%s\n' "${times[@]}" | sort -rn | head -10 | awk '{ printf "  %7.1f  %s\n", $1, $2 }'
if [ "$fail" -eq 0 ]; then echo "ALL TESTS PASSED"; else echo "FAILED: ${failed[*]}"; fi
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]

#!/bin/bash
# run.sh [-j N] [--tier quick|test|full] [--asan] [--with SCRIPT]... [--save-times FILE]
#        ATTNVIZ TEST...
# Runs every unit test binary TEST and the end-to-end scripts of tests/e2e/
# of the tier asked, N at a time (default: a job per core), and ends with one
# "N passed, N failed, N skipped" line.
# Unit tests are cmocka binaries; e2e scripts print "ok - ...", "not ok - ..."
# or "skip - ..." (a check that could not run here: never counted as passed).
# An e2e script says in its first lines which runs take it:
#   # tier: quick|test|full   the smallest tier that runs it (none: test);
#                             make quick runs quick, make test quick and test,
#                             make fulltest all three
#   # asan: yes               make asan runs it too (--asan: only those, and
#                             those named by --with)
#   # run-alone               it cannot share the machine (timing, mounts,
#                             ulimit): run after the others, by itself
# E2E="tests/e2e/a.sh ..." runs those scripts instead of every one (their
# tier still applies). Files start longest first (tests/times.txt: the seconds last measured) so
# that a long one does not end the run alone; each file's output is kept
# whole and printed in the order of the command line, scripts after, with its
# seconds; the run ends with the slowest ten.
set -u
jobs=$(nproc 2>/dev/null || echo 2) tier=test asan=0 save="" with=()
while [ $# -gt 0 ]; do
    case $1 in
    -j) jobs=$2; shift 2 ;;
    -j*) jobs=${1#-j}; shift ;;
    --tier) tier=$2; shift 2 ;;
    --asan) asan=1; shift ;;
    --save-times) save=$2; shift 2 ;;
    --with) with+=("$2"); shift 2 ;;
    *) break ;;
    esac
done
case $jobs in '' | *[!0-9]* | 0) echo "run.sh: -j needs a whole number above 0" >&2; exit 2 ;; esac
case $tier in quick) rank=1 ;; test) rank=2 ;; full) rank=3 ;;
*) echo "run.sh: --tier is quick, test or full, not '$tier'" >&2; exit 2 ;; esac
bin=$1; shift
export ATTNVIZ="$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")"
export LC_ALL=C.UTF-8
dir=$(mktemp -d "${TMPDIR:-/tmp}/attnviz-run.XXXXXX") || exit 1
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$dir"' EXIT
trap 'exit 130' INT TERM

# header FILE KEY: the value of the "# KEY: value" line among FILE's first 30.
header() { head -30 "$1" | sed -n "s/^# $2: *\([a-z]*\).*/\1/p" | head -1; }
files=() kind=() alone=()
for t in "$@"; do files+=("$t"); kind+=(unit); alone+=(0); done
later=()
for s in ${E2E:-tests/e2e/*.sh}; do
    [ -e "$s" ] || continue
    case $(header "$s" tier) in quick) r=1 ;; full) r=3 ;; *) r=2 ;; esac
    [ "$r" -le "$rank" ] || continue
    if [ "$asan" = 1 ] && [ "$(header "$s" asan)" != yes ] &&
        [[ " ${with[*]} " != *" $s "* ]]; then continue; fi
    if head -30 "$s" | grep -q '^# run-alone'; then later+=("$s"); continue; fi
    files+=("$s"); kind+=(e2e); alone+=(0)
done
for s in "${later[@]}"; do files+=("$s"); kind+=(e2e); alone+=(1); done

# run_one I: file I's output, status and seconds into $dir/I.{log,rc,sec}.
run_one() {
    local i=$1 t0 rc
    t0=$(date +%s.%N)
    if [ "${kind[$i]}" = unit ]; then
        "${files[$i]}" >"$dir/$i.log" 2>&1; rc=$?
    else
        bash "${files[$i]}" >"$dir/$i.log" 2>&1; rc=$?
    fi
    awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f\n", b - a }' >"$dir/$i.sec"
    echo "$rc" >"$dir/$i.rc"
}

# name I: how file I is named in the report and in tests/times.txt (a unit
# test with its layer: app/ and io/ both have a test_lesson).
name() {
    if [ "${kind[$1]}" = unit ]; then
        echo "$(basename "$(dirname "${files[$1]}")")/$(basename "${files[$1]}")"
    else
        basename "${files[$1]}"
    fi
}

pass=0; fail=0; skip=0; failed=(); next=0
# report: print every finished file not yet printed, in order, up to the
# first one still running.
report() {
    local i t log rc p f k sec
    while [ "$next" -lt "${#files[@]}" ] && [ -e "$dir/$next.rc" ]; do
        i=$next t=${files[$i]} log=$dir/$i.log rc=$(cat "$dir/$i.rc") sec=$(cat "$dir/$i.sec")
        next=$((next + 1))
        if [ "${kind[$i]}" = unit ]; then
            p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log" | awk '{s+=$1} END {print s+0}')
            f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log" | awk '{s+=$1} END {print s+0}')
            k=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' "$log" | awk '{s+=$1} END {print s+0}')
            if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
            if [ "$rc" -ne 0 ]; then cat "$log"; failed+=("$t"); fi
        else
            p=$(grep -c '^ok - ' "$log"); f=$(grep -c '^not ok - ' "$log")
            k=$(grep -c '^skip - ' "$log")
            if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
            if [ "$rc" -ne 0 ] || [ "$f" -ne 0 ]; then grep -v '^ok - ' "$log"; failed+=("$t"); fi
            grep '^skip - ' "$log" | sed 's/^/  /'
        fi
        pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + k))
        printf '%-40s %3d passed, %d failed, %d skipped %7s s\n' "$(name "$i")" "$p" "$f" "$k" "$sec"
    done
}

# The order to start them: the files that share the machine, longest first
# (seconds of tests/times.txt; a file it does not name counts as 5 s), then
# those that run alone, in their order.
order=$(for i in "${!files[@]}"; do
    [ "${alone[$i]}" = 1 ] && continue
    s=$(awk -v n="$(name "$i")" '$2 == n { print $1; exit }' tests/times.txt 2>/dev/null)
    echo "${s:-5} $i"
done | sort -k1,1rn -k2,2n | cut -d' ' -f2)
running=0
for i in $order; do
    if [ "$running" -ge "$jobs" ]; then
        wait -n; running=$((running - 1)); report
    fi
    run_one "$i" &
    running=$((running + 1))
done
while [ "$running" -gt 0 ]; do wait -n; running=$((running - 1)); report; done
for i in "${!files[@]}"; do
    [ "${alone[$i]}" = 1 ] || continue
    run_one "$i"; report
done

echo "================================================================"
echo "slowest ten (seconds):"
for i in "${!files[@]}"; do echo "$(cat "$dir/$i.sec") $(name "$i")"; done |
    sort -rn | tee "$dir/times" | head -10 | awk '{ printf "  %7.1f  %s\n", $1, $2 }'
[ -n "$save" ] && cp "$dir/times" "$save"
if [ "$fail" -eq 0 ]; then echo "ALL TESTS PASSED"; else echo "FAILED: ${failed[*]}"; fi
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]

#!/bin/bash
# long.sh BUILDS MINUTES [KEYS] [SEED] - `make soak`: tests/soak/storm.py on
# each build of BUILDS ("plain": ./attnviz, -O2; "asan": build/asan/attnviz,
# ASan and UBSan) for MINUTES minutes each, or KEYS keys when given, from SEED
# (a fresh one, printed, when empty). Every stream is recorded in
# build/soak/BUILD-SEED.events (its output in BUILD-SEED.log); a finding's stream is the one to replay
# (storm.py --replay FILE --bin BIN) and, once fixed, to keep as
# tests/soak/regress/NAME.events, which `make test` replays (a stream of
# minutes in tests/soak/regress/long/, which this replays).
set -u
builds=${1:-plain asan} minutes=${2:-5} keys=${3:-} seed=${4:-}
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 1
mkdir -p build/soak
[ -n "$seed" ] || seed=$(( $(date +%s) % 100000 ))
limit=(--minutes "$minutes")
[ -z "$keys" ] || limit=(--keys "$keys")
cpu=$(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1)
echo "# make soak: ${limit[*]} on each of: $builds; seed $seed; $(nproc) cores, ${cpu:-unknown processor}"
rc=0 summary=()
for b in $builds; do
    case $b in
        plain) bin=$root/attnviz ;;
        asan) bin=$root/build/asan/attnviz ;;
        *) echo "long.sh: a build is plain or asan, not $b" >&2; exit 2 ;;
    esac
    rec=build/soak/$b-$seed.events log=build/soak/$b-$seed.log
    /usr/bin/python3 tests/soak/storm.py --bin "$bin" --seed "$seed" "${limit[@]}" \
        --record "$rec" | tee "$log"
    [ "${PIPESTATUS[0]}" = 0 ] || rc=1
    summary+=("$b: $(grep '^storm ' "$log")")
    echo "# stream recorded in $rec, its output in $log"
done
# the long recorded streams (minutes each: too long for make test), on the
# sanitizer build when it is asked, else the plain one
for f in tests/soak/regress/long/*.events; do
    [ -e "$f" ] || continue
    case " $builds " in *" asan "*) bin=$root/build/asan/attnviz ;; *) bin=$root/attnviz ;; esac
    /usr/bin/python3 tests/soak/storm.py --bin "$bin" --replay "$f" --check-every 0 || rc=1
done
echo "# make soak, $(date -u +%Y-%m-%d), $(nproc) cores, ${cpu:-unknown processor}:"
for s in "${summary[@]}"; do echo "#   $s"; done
exit $rc

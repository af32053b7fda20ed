#!/bin/bash
# tier: test
# asan: yes
# soak_short.sh - the short soaks of `make test` (and of `make asan`, where
# $ATTNVIZ is the ASan/UBSan build), about a minute in all:
#  1. tests/soak/soak.sh, spaced keys with a probe of the screen: SOAK_KEYS
#     events (default 200) of seed SOAK_SEED (default 1), pastes up to 800 B;
#  2. tests/soak/storm.py, keys in bursts (0-1 ms apart) and spaced, attnviz
#     started again after each quit: STORM_KEYS keys (default 1200) of seed
#     STORM_SEED (default 2);
#  3. every recorded stream of tests/soak/regress/*.events replayed with its
#     gaps (a finding's stream, kept when it was fixed): none may crash.
# The long soak is `make soak` (README "Tests").
# Prints the soaks' "ok - ..." / "not ok - ..." lines and summaries.
set -u
here=$(cd "$(dirname "$0")" && pwd)
soak=$here/../soak
bin=${ATTNVIZ:-$here/../../attnviz}
rc=0
bash "$soak/soak.sh" --keys "${SOAK_KEYS:-200}" --seed "${SOAK_SEED:-1}" \
    --paste-max "${SOAK_PASTE_MAX:-800}" --sync 25 --bin "$bin" || rc=1
/usr/bin/python3 "$soak/storm.py" --bin "$bin" --keys "${STORM_KEYS:-1200}" \
    --seed "${STORM_SEED:-2}" --check-every 400 || rc=1
n=0
for f in "$soak"/regress/*.events; do
    [ -e "$f" ] || continue
    n=$((n + 1))
    /usr/bin/python3 "$soak/storm.py" --bin "$bin" --replay "$f" --check-every 0 || rc=1
done
if [ "$n" -gt 0 ]; then
    echo "ok - soak: $n recorded streams in tests/soak/regress replayed"
else
    echo "not ok - soak: no recorded stream in tests/soak/regress"; rc=1
fi
exit $rc

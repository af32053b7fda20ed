#!/bin/bash
# soak_short.sh - a short keystroke soak as part of `make test` (and of
# `make asan`, where $ATTNVIZ is the ASan/UBSan build): tests/soak/soak.sh with
# SOAK_KEYS events (default 600: about 1,000 keys, typed texts and mouse
# events, about a minute) of seed SOAK_SEED (default 1), pastes up to 800 bytes.
# The long soak is `tests/soak/soak.sh --keys 10000 --seed N`.
# Prints the soak's "ok - soak ..." / "not ok - soak ..." lines and summary.
set -u
here=$(cd "$(dirname "$0")" && pwd)
exec bash "$here/../soak/soak.sh" --keys "${SOAK_KEYS:-600}" --seed "${SOAK_SEED:-1}" \
    --paste-max "${SOAK_PASTE_MAX:-800}" --sync 25

#!/bin/bash
# screenshots-train.sh - pictures of the live training view for README.md
# ("Watch a transformer learn"): `attnviz --train induction` at 120x40 just
# after it starts, paused when the first induction head has formed, and at
# the end of its 400 steps (scripts/lib/shots.sh: tmux, xterm under Xvfb,
# ImageMagick).
#   scripts/screenshots-train.sh            all three
#   scripts/screenshots-train.sh NAME...    only these (train-start train-formed train-end)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/shots.sh
shots_init train
SEL=("$@")

if want train-start; then
    shots_start train-start '^step [0-9]' --train induction
    wait_for '^step ([3-9][0-9]|1[0-9][0-9]) ' 20 # a few dozen steps: the loss falls, heads are noise
    tmux -L "$SOCK" send-keys -t s Space
    wait_for '  paused$'
    photo train-start
fi
if want train-formed; then
    shots_start train-formed '^step [0-9]' --train induction
    wait_for 'became an induction head' 120
    tmux -L "$SOCK" send-keys -t s Space
    wait_for '  paused$'
    photo train-formed
fi
if want train-end; then
    shots_start train-end '^step [0-9]' --train induction
    tmux -L "$SOCK" send-keys -t s + + + # 8 steps a frame: the end sooner
    wait_for '400 steps done' 180
    photo train-end
fi

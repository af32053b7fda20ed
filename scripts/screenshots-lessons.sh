#!/bin/bash
# screenshots-lessons.sh - pictures for README.md ("Teaching with attnviz"):
# a lesson page asking its question (the numbers hidden until the reveal),
# the same page after the reveal, and the pipeline view of seed 001's
# "Cat eats fish", and the scaling lesson's raw and scaled scores side by side
# with their values (scripts/lib/shots.sh: tmux, xterm under Xvfb,
# ImageMagick), at 100x30, a projector's size: the page below the view.
#   scripts/screenshots-lessons.sh            all four
#   scripts/screenshots-lessons.sh NAME...    only these (lesson-question lesson-reveal
#                                             pipeline-scaling pipeline)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/shots.sh
shots_init lessons
SHOTS_W=100 SHOTS_H=30
SEL=("$@")

if want lesson-question; then
    shots_start lesson-question 'Lesson 1/' --lesson cat-eats-fish
    keys n # the question is on page 2, "Guess first"
    wait_for 'Enter: reveal'
    keys b
    photo lesson-question
fi
if want lesson-reveal; then
    shots_start lesson-reveal 'Lesson 1/' --lesson cat-eats-fish
    keys n
    wait_for 'Enter: reveal'
    keys b
    keys Enter
    wait_for '^.*answer: '
    photo lesson-reveal
fi
if want pipeline-scaling; then
    shots_start pipeline-scaling 'Lesson 1/' --lesson scaling
    wait_for '5 ÷ sqrt'
    photo pipeline-scaling
fi
if want pipeline; then
    shots_start pipeline 'Cat' --weights assets/seed001 -d 4 -H 2 --no-pe "'Cat eats fish'"
    keys S
    wait_for 'softmax'
    photo pipeline
fi

#!/bin/sh
# screenshots-svg.sh - the SVG exports README.md shows (issue 26): the
# designed heads' "previous token" head under the causal mask, and all six
# heads as small multiples, made by attnviz itself (no browser, no X).
#   scripts/screenshots-svg.sh     writes screenshots/export-*.svg
set -eu
cd "$(dirname "$0")/.."
BIN=${ATTNVIZ:-$PWD/attnviz}
S='The cat sat on the mat because it was tired.'
mkdir -p screenshots
"$BIN" --preset designed --causal --head 5 -e svg -o screenshots/export-head.svg "$S"
"$BIN" --preset designed --causal -e svg -o screenshots/export-heads.svg "$S"
"$BIN" --preset designed --causal --head 5 --color mono -e svg -o screenshots/export-mono.svg "$S"
echo "screenshots-svg: wrote screenshots/export-head.svg, export-heads.svg, export-mono.svg"

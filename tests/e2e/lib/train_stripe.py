#!/usr/bin/python3
"""train_stripe.py - read the live training view's head tiles off a tmux
capture (tests/e2e/tui_train.sh).

  train_stripe.py guide FILE    exit 0 when every full tile of the first
                                column marks its induction stripe: on the
                                periodic probe (5 letters repeated) query row
                                i >= 5 has the guide glyph in key column i - 4
                                and no row before the second copy has one;
                                prints what is wrong otherwise
  train_stripe.py scores FILE   print each tile's induction score (the
                                "╲.62" after its stripe row), one a line
"""
import re
import sys

GUIDE = "\u2572"
PERIOD = 5


def heads_part(line):
    """The line left of the plots (their axis is the first '│')."""
    cut = line.find("\u2502")
    return line if cut < 0 else line[:cut]


def check_guide(lines):
    tiles = 0
    for y, line in enumerate(lines):
        # a full tile's column labels: "  u x s o t ..." (2 columns a token)
        if not re.match(r"^  (\S \S ){3}", line):
            continue
        tiles += 1
        rows = []
        for row in lines[y + 1:]:
            if not re.match(r"^\S  ", row) or row.startswith(GUIDE):
                break
            rows.append(row)
        if len(rows) < 2 * PERIOD:
            return "a tile of %d rows (want at least %d)" % (len(rows), 2 * PERIOD)
        width = 2 + 2 * len(rows)  # the first tile's columns
        for i, row in enumerate(rows):
            have = [x for x, ch in enumerate(row[:width]) if ch == GUIDE]
            want = [2 + 2 * (i - PERIOD + 1)] if i >= PERIOD else []
            if have != want:
                return "row %d: guide at columns %s, want %s" % (i, have, want)
    return None if tiles else "no tile of full cells"


def scores(lines):
    out = []
    for line in lines:
        out += re.findall(GUIDE + r"(\.\d\d)", heads_part(line))
    return out


def main():
    mode, path = sys.argv[1], sys.argv[2]
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    if mode == "guide":
        why = check_guide(lines)
        if why:
            print(why)
            return 1
        return 0
    for s in scores(lines):
        print(s)
    return 0


if __name__ == "__main__":
    sys.exit(main())

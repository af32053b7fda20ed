"""pipe_values.py SCREEN STAGE NPY TOKENS HEAD [FACTOR] - do the values the
pipeline view writes in stage STAGE's cells ("4" for "4 Q_h K_h^T: raw
scores") equal head HEAD's (0-based) matrix of NPY, (H, n, n) as --dump's
scores.npy or weights.npy, times FACTOR (default 1), within the precision
printed?  TOKENS is --dump's tokens.txt: a row's label names its token.

The stage is found by its title; its columns run from the title's column to
the next title on that line (stages side by side), its rows from the line
after its key labels to the first line without a value. A value printed as
"-2.17" is right within 0.005, "127.8" within 0.05, "-35" within 0.5 (half
a unit of its last digit). Prints the cells compared, or what differs and
exits 1; exits 1 also when no value was found.
"""
import re
import sys

import numpy as np

screen = open(sys.argv[1], encoding="utf-8").read().splitlines()
stage, m = sys.argv[2], np.load(sys.argv[3])
tokens = [t for t in open(sys.argv[4], encoding="utf-8").read().splitlines()]
head = int(sys.argv[5])
factor = float(sys.argv[6]) if len(sys.argv) > 6 else 1.0
mat = m[head].astype(np.float64) * factor

TITLES = r" (Q_h|K_h|V_h|÷|not scaled|causal mask|no mask|softmax|output)"
title = re.compile(r"(^|  )" + stage + TITLES)
top = next((k for k, l in enumerate(screen) if l.startswith("Pipeline of head")), len(screen))
at = next(((k, mt.start() + len(mt.group(1)))
           for k, l in enumerate(screen) if k > top
           for mt in [title.search(l)] if mt), None)
if not at:
    print("no stage %s on the screen" % stage)
    sys.exit(1)
y, x0 = at
nxt = re.search(r"  [1-8]" + TITLES, screen[y][x0 + 2:])
x1 = x0 + 2 + nxt.start() + 2 if nxt else None
num = re.compile(r"^-?(\d+\.?\d*|\.\d+)$")
compared, bad = 0, []
for line in screen[y + 2:]:
    part = line[x0:x1].rstrip()
    fields = part[1:].split()
    if len(fields) < 2 or not all(num.match(f) for f in fields[1:]):
        break
    label = fields[0]
    if tokens.count(label) != 1:  # a label that names no one token: skip
        continue
    i = tokens.index(label)
    for j, f in enumerate(fields[1:]):
        digits = f.split(".")[1] if "." in f else ""
        tol = 0.5 * 10 ** -len(digits) + 1e-6
        want = mat[i, j]
        compared += 1
        if abs(float(f) - want) > tol:
            bad.append("%s -> %s: %s on screen, %.4f" % (label, tokens[j], f, want))
if bad or not compared:
    print("; ".join(bad[:5]) if bad else "no values of stage %s" % stage)
    sys.exit(1)
print(compared)

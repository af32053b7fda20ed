#!/usr/bin/python3
"""train_names.py FILE - the heads each score strip of the live training
view names, read off a tmux capture (tests/e2e/tui_train_labels.sh).

Prints a line a strip: its kind, then every head its name column names,
sorted ("induction L1H1 L1H2 L2H1 L2H2"); a merged name ("L1H1,2") counts
for each head it lists, and a head named twice is printed twice. A name
cut short ("L2…") is printed as CUT. A strip is found by its title
("previous-token score", at the plots' column); its rows are the lines
under it up to the next title; names are read right of the plot's
dots (the tiles' titles on the left are not read).
"""
import re
import sys

lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
TITLE = re.compile(r"(?:^|(?<=  ))([a-z-]+) score|loss \(cross-entropy\)")
NAME = re.compile(r"L(\d+)H(\d+)((?:,\d+)*)")
strips, cur = [], None
for line in lines:
    m = TITLE.search(line)
    if m:
        cur = None
        if m.group(1):
            cur = (m.group(1), m.start(), [], [False])
            strips.append(cur)
        continue
    if cur is None:
        continue
    right = line[cur[1]:]
    dots = max((k for k, ch in enumerate(right) if 0x2800 <= ord(ch) <= 0x28FF or ch == "│"),
               default=-1)
    names = right[dots + 1:]
    if "…" in names:
        cur[3][0] = True
    for layer, head, more in NAME.findall(names):
        cur[2].append(f"L{layer}H{head}")
        cur[2].extend(f"L{layer}H{h}" for h in more.split(",")[1:])
for kind, _, heads, cut in strips:
    print(kind, *sorted(heads), *(["CUT"] if cut[0] else []))

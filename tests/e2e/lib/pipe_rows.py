"""pipe_rows.py SCREEN - the rows each stage of the pipeline view shows.

Prints a line a stage found on the captured SCREEN: its number, the rows it
says it shows ("9-22" from "rows 9-22 of 22", "rows 9-22" or "9-22" on its
title line or, where that has no room, in its row labels' column on the line
under it; "all" when it says nothing), the selected row's label ("-" for none) and the row
labels it draws, comma-separated: "1 9-22 tired dog,while,...,tired". A stage
is found by its title ("2 K_h = X W_k: keys"); its row labels start two lines
under it, one column right of the title's first (after the marker's column,
blank or ">"), and end at the first line with none there (or with text
running into the marker's column: the lines under the view).
"""
import re
import sys

screen = open(sys.argv[1], encoding="utf-8").read().splitlines()
RANGE = re.compile(r"(?<![\d.])(\d+)-(\d+)(?![\d.])")
TITLE = re.compile(r"(^|  )([1-8]) (Q_h|K_h|V_h|÷|not scaled|causal mask|no mask|softmax|output)")
top = next((k for k, l in enumerate(screen) if l.startswith("Pipeline of head")), len(screen))
for k in range(top + 1, len(screen)):
    found = [(m.start(2), m.group(2)) for m in TITLE.finditer(screen[k])]
    for n, (x, stage) in enumerate(found):
        end = found[n + 1][0] if n + 1 < len(found) else len(screen[k])
        rng = RANGE.search(screen[k][x:end])
        if not rng and k + 1 < len(screen):
            rng = RANGE.match(screen[k + 1][x:end].strip())
        labels, sel = [], "-"
        for line in screen[k + 2:]:
            word = line[x + 1:].split(" ", 1)[0] if len(line) > x + 1 else ""
            if not word or line[x] not in " >" or (x > 0 and line[x - 1] != " "):
                break
            labels.append(word)
            if line[x] == ">":
                sel = word
        print(stage, f"{rng.group(1)}-{rng.group(2)}" if rng else "all", sel, ",".join(labels))

"""lesson_picture.py SCREEN [lines|similarity] - does a lesson page's screen show its picture
and its narration whole?  Prints what is missing and exits 1, else 0.

The picture: in the attention view the selected token's heatmap row
("8 it" at the start of a line, after the "Token 8 it attends to" of the
bars); in the pipeline view the selected query's row ('>it'); in the
positional encodings view its plot axis; side by side, the two titles.
With a second argument, the positional encodings view must show that
picture: the line plots, or the similarity's rows (the page's plot:).
The narration: the lesson panel (the lines after its rule, or right of
its rule) holds no '…' (a cut line): it scrolls instead.
"""
import re
import sys

lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
text = "\n".join(lines)
bad = []
cost = next((k for k, l in enumerate(lines) if l.startswith("Cost:")), len(lines))
col = next((l.index("│Lesson ") for l in lines if "│Lesson " in l), -1)
if col >= 0:  # the page at the right of the view, after its rule
    panel = [l[col + 1:] for l in lines[:cost]]
    view = [l[:col] for l in lines]
else:
    rule = next((k for k, l in enumerate(lines) if l.startswith("────")), cost)
    panel, view = lines[rule + 1:cost], lines[:rule]
cut = [l for l in panel if "…" in l]
if cut:
    bad.append("narration cut: " + cut[0].strip())
vtext = "\n".join(view)
m = re.search(r"Token (\d+) (\S+) attends to", vtext)
if "Pipeline of head" in vtext:
    q = re.search(r"query (\S+)", vtext)
    if q and not re.search(r"^>" + re.escape(q.group(1)) + r"\b", vtext, re.M):
        bad.append("pipeline: no row of the query " + q.group(1))
elif "PE matrix:" in vtext:
    # the line plots (a row of Braille dots under a formula whose numbers
    # show) or, on a page about it, the similarity with a token's row
    braille = [l for l in view if sum(0x2800 <= ord(ch) <= 0x28FF for ch in l) >= 10]
    formula = re.search(r"dim \d+ = (sin|cos)\(pos / 10000\^\(\d+/\d+\)\)", vtext)
    sim = re.search(r"Similarity of the tokens' positions", vtext)
    sim_rows = [l for l in view if re.search(r"• ?\d+ \S+ *$|•\d+ \S+ *$", l[len(l) // 3:])]
    want = sys.argv[2] if len(sys.argv) > 2 else ""
    has_lines, has_sim = bool(braille and formula), bool(sim and sim_rows)
    if want == "lines" and not has_lines:
        bad.append("positional encodings: no line plot")
    elif want == "similarity" and not has_sim:
        bad.append("positional encodings: no similarity rows")
    elif not has_lines and not has_sim:
        bad.append("positional encodings: no line plot and no similarity rows")
elif m:
    row = r"^ *" + m.group(1) + r" " + re.escape(m.group(2)) + r"( |$)"
    if not re.search(row, vtext, re.M):
        bad.append("no heatmap row of token %s %s" % (m.group(1), m.group(2)))
elif "Head " in vtext and not re.search(r"^ *\d+ \S+ +[?0-9 ·░▒▓█╳]", vtext, re.M):
    bad.append("no heatmap row at all")
if bad:
    print("; ".join(bad))
    sys.exit(1)

#!/usr/bin/python3
"""svgcheck.py - the checks of tests/e2e/export_browser.sh on SVG and HTML
exports, against --export csv (the numbers) and Chromium's screenshots.

  svgcheck.py svg SVG PNG CSV [--mono] [--heads 1,2] [--tokens FILE]
      The SVG parses as XML, is SVG 1.1 with a viewBox and no external
      reference; each cell rect p<k>-<i>-<j> (panel k shows head heads[k])
      has the fill of the ramp level of its weight (floor(16 sqrt w)), or
      the hatching when the CSV says masked, and the screenshot shows that
      colour in the cell (within 3 per channel) or the hatching's two
      colours; every row label is there as text and drawn (dark pixels).
      Pooled pictures (rows x cols < tokens) are checked against the CSV
      pooled the same way: each cell the largest visible weight.
  svgcheck.py ramp
      The colour and grey ramps rise (fall) in CIELAB lightness at every step.
  svgcheck.py bars DOM CSV HEAD TOKEN
      The bars of the page's DOM (--dump-dom) are row TOKEN (1-based) of
      head HEAD in the CSV, each weight within 2e-5 (the page keeps 1/65534).
"""
import csv
import math
import re
import sys
import xml.etree.ElementTree as ET

from PIL import Image

NS = "{http://www.w3.org/2000/svg}"
# The ramp of svg.c, written out again: the oracle of the colours.
RAMP = [0x0e1e57, 0x002f6c, 0x00407e, 0x00518d, 0x006198, 0x00719e, 0x0082a0, 0x00919e,
        0x00a59f, 0x00b593, 0x00c483, 0x00d270, 0x5fdf5c, 0x9aea48, 0xd0f335, 0xfff92a]
MONO = [(255 - 15 * k) * 0x010101 for k in range(16)]
HATCH = {False: [(48, 48, 48), (128, 128, 128)], True: [(255, 255, 255), (128, 128, 128)]}
failures = []


def fail(msg):
    failures.append(msg)


def rgb(h):
    return (h >> 16, (h >> 8) & 255, h & 255)


def lightness(c):
    def lin(u):
        u /= 255.0
        return u / 12.92 if u <= 0.04045 else ((u + 0.055) / 1.055) ** 2.4
    y = 0.2126 * lin(c[0]) + 0.7152 * lin(c[1]) + 0.0722 * lin(c[2])
    return 116 * y ** (1 / 3) - 16 if y > 0.008856 else 903.3 * y


def levels(w):
    """The level of w, and the neighbour too when w sits on an edge (float32
    sqrtf and Python's double sqrt may round either way there)."""
    x = math.sqrt(w) * 16 if w > 0 else 0.0
    lv = min(15, int(x))
    near = {lv}
    if abs(x - round(x)) < 1e-4 and 0 < round(x) < 16:
        near |= {int(round(x)) - 1, min(15, int(round(x)))}
    return near


def read_csv(path):
    """{(head, i, j): (weight, masked)}, the query and key tokens."""
    cells, q, k = {}, {}, {}
    with open(path, newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            h, i, j = int(row["head"]), int(row["query_index"]), int(row["key_index"])
            cells[(h, i, j)] = (float(row["weight"]), row["masked"] == "1")
            q[i], k[j] = row["query"], row["key"]
    return cells, [q[i] for i in sorted(q)], [k[j] for j in sorted(k)]


def pooled(cells, h, nq, nk, rows, cols, r, c):
    a0, a1 = r * nq // rows, (r + 1) * nq // rows
    b0, b1 = c * nk // cols, (c + 1) * nk // cols
    vis = [cells[(h, i, j)][0] for i in range(a0, a1) for j in range(b0, b1)
           if not cells[(h, i, j)][1]]
    return (max(vis), False) if vis else (0.0, True)


def check_structure(root, text):
    if root.tag != NS + "svg" or root.get("version") != "1.1" or not root.get("viewBox"):
        fail("root is not <svg version=1.1 viewBox=...>")
    for el in root.iter():
        for key, val in el.attrib.items():
            if key.endswith("href") or re.search(r"url\((?!#)", val):
                fail("external reference: %s=%s" % (key, val))
    for bad in ("http://", "https://", "file:"):
        if bad in text.replace('xmlns="http://www.w3.org/2000/svg"', ""):
            fail("the file names %s" % bad)


def near(a, b, tol=3):
    return all(abs(x - y) <= tol for x, y in zip(a, b))


def check_cell(img, rect, want_fill, masked, mono, name):
    x, y = float(rect.get("x")), float(rect.get("y"))
    w, h = float(rect.get("width")), float(rect.get("height"))
    if masked:
        if rect.get("fill") != "url(#hatch)":
            fail("%s: masked but filled %s" % (name, rect.get("fill")))
        px = {img.getpixel((int(x + dx), int(y + dy)))[:3]
              for dx in range(1, int(w) - 1) for dy in range(1, int(h) - 1)}
        for want in HATCH[mono]:
            if not any(near(p, want, 24) for p in px):
                fail("%s: masked cell lacks the hatching colour %s" % (name, want))
        return
    if rect.get("fill") not in want_fill:
        fail("%s: fill %s, want one of %s" % (name, rect.get("fill"), sorted(want_fill)))
        return
    # the centre column, above the value written in the middle
    got = img.getpixel((int(x + w / 2), int(y + max(1.5, h * 0.18))))[:3]
    if not any(near(got, rgb(int(f[1:], 16))) for f in want_fill):
        fail("%s: screenshot shows %s, want %s" % (name, got, sorted(want_fill)))


def check_labels(root, img, q, pooled_view):
    texts = [(t, "".join(t.itertext())) for t in root.iter(NS + "text")]
    contents = {s for _, s in texts}
    if pooled_view:
        return
    for i, tok in enumerate(q):
        shown = tok if len(tok) <= 12 else tok[:12] + "\u2026"
        shown = "".join(chr(0x2400 + ord(ch)) if ord(ch) < 0x20 else ch for ch in shown)
        want = "%d %s" % (i + 1, shown)
        if want not in contents:
            fail("row label %r missing" % want)
            continue
        el = next(t for t, s in texts if s == want)
        x, y = float(el.get("x")), float(el.get("y"))
        dark = sum(1 for dx in range(0, 40) for dy in range(1, 9)
                   if sum(img.getpixel((int(x - 1 - dx), int(y - dy)))[:3]) < 300)
        if dark < 5:
            fail("row label %r is not drawn (%d dark pixels)" % (want, dark))


def cmd_svg(args):
    svg, png, csvp = args[:3]
    mono = "--mono" in args
    heads = [int(h) for h in args[args.index("--heads") + 1].split(",")] if "--heads" in args \
        else [1]
    text = open(svg, encoding="utf-8").read()
    root = ET.fromstring(text.encode("utf-8"))
    check_structure(root, text)
    img = Image.open(png).convert("RGB")
    cells, q, k = read_csv(csvp)
    ramp = MONO if mono else RAMP
    rects = {}
    for r in root.iter(NS + "rect"):
        m = re.fullmatch(r"p(\d+)-(\d+)-(\d+)", r.get("id") or "")
        if m:
            rects[tuple(int(g) for g in m.groups())] = r
    n = 0
    for p, head in enumerate(heads):
        rows = 1 + max(i for (pp, i, _) in rects if pp == p)
        cols = 1 + max(j for (pp, _, j) in rects if pp == p)
        is_pooled = rows < len(q) or cols < len(k)
        if not is_pooled and (rows, cols) != (len(q), len(k)):
            fail("panel %d: %d x %d cells for %d x %d tokens" % (p, rows, cols, len(q), len(k)))
        for i in range(rows):
            for j in range(cols):
                w, masked = pooled(cells, head, len(q), len(k), rows, cols, i, j) if is_pooled \
                    else cells[(head, i, j)]
                fills = {"#%06x" % ramp[lv] for lv in levels(w)}
                check_cell(img, rects[(p, i, j)], fills, masked, mono, "head %d cell %d,%d" %
                           (head, i, j))
                n += 1
        check_labels(root, img, q, is_pooled)
    return n


def cmd_ramp():
    for name, ramp, sign in (("colour", RAMP, 1), ("grey", MONO, -1)):
        ls = [lightness(rgb(c)) for c in ramp]
        steps = [sign * (b - a) for a, b in zip(ls, ls[1:])]
        if min(steps) < 3:
            fail("%s ramp: lightness step %.1f < 3 (L* %s)" % (name, min(steps),
                                                             [round(v) for v in ls]))
    return 2 * 16


def cmd_bars(args):
    dom, csvp, head, token = args[0], args[1], int(args[2]), int(args[3])
    html = open(dom, encoding="utf-8").read()
    bars = re.findall(r'<div class="bar" data-key="(\d+)" data-weight="([^"]+)"', html)
    cells, q, k = read_csv(csvp)
    if len(bars) != len(k):
        fail("%d bars for %d keys" % (len(bars), len(k)))
    for key, wt in bars:
        w, masked = cells[(head, token - 1, int(key) - 1)]
        if masked != (wt == "masked") or (not masked and abs(float(wt) - w) > 2e-5):
            fail("bar of key %s: %s, the CSV says %s%s" % (key, wt, w, " masked" if masked else ""))
    return len(bars)


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    n = cmd_svg(args) if cmd == "svg" else cmd_ramp() if cmd == "ramp" else cmd_bars(args)
    for m in failures[:10]:
        print(m, file=sys.stderr)
    if failures:
        print("%d of %d checks failed" % (len(failures), n), file=sys.stderr)
        sys.exit(1)
    print("%d checked" % n)


main()

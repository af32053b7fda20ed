#!/usr/bin/python3
"""pagecheck.py - the HTML page of --export html, as Chromium's --dump-dom
left it, against --dump's numbers (tests/e2e/export_browser.sh).

  pagecheck.py readout DOM ATTENTION.npy LAYER HEAD TOKEN KEY
      The cell readout of (TOKEN, KEY) (1-based) of head HEAD of layer LAYER
      says "masked" exactly when the dump's weight is a masked one (causal,
      KEY > TOKEN, weight 0), and otherwise gives the dump's weight (within
      0.05 points of a percent); every bar of the row says "masked" exactly
      for the masked keys.
  pagecheck.py chips DOM N [SELECTED]
      The sentence's N chips carry data-token 1..N, tabindex 0 and
      role="button" (view.js made them live); with SELECTED, exactly chip
      SELECTED is shown selected (class "sel", aria-pressed="true").
Exits 0, or 1 with one line saying what differs.
"""
import re
import sys

import numpy as np


def fail(msg):
    print(msg)
    sys.exit(1)


def readout(dom, npy, layer, head, tok, key):
    a = np.load(npy)
    if a.ndim == 3:
        a = a[None]
    causal = bool(np.all(np.triu(a[layer - 1, head - 1], 1) == 0))
    m = re.search(r'<p id="cell" data-weight="([^"]+)" data-score="[^"]*">([^<]*)<', dom)
    if not m:
        fail("no cell readout")
    w, text = a[layer - 1, head - 1, tok - 1, key - 1], m.group(2)
    masked = causal and key > tok
    if masked != ("masked" in text) or masked != (m.group(1) == "masked"):
        fail("cell (%d, %d): weight %.6f%s, page says %r" %
             (tok, key, w, " (masked)" if masked else "", text))
    if not masked and not re.search(r"weight %.1f%%" % (100 * w), text) and \
            abs(float(m.group(1)) - w) > 5e-4:
        fail("cell (%d, %d): weight %.6f, page says %r" % (tok, key, w, text))
    bars = re.findall(r'<div class="bar" data-key="(\d+)" data-weight="([^"]+)"', dom)
    if len(bars) != a.shape[3]:
        fail("%d bars for %d keys" % (len(bars), a.shape[3]))
    for k, bw in bars:
        if (bw == "masked") != (causal and int(k) > tok):
            fail("bar of key %s says %s" % (k, bw))
    return 0


def chips(dom, n, sel):
    m = re.search(r'<p id="sentence"[^>]*>(.*?)</p>', dom, re.S)
    if not m or 'class="live"' not in m.group(0)[:40]:
        fail("the sentence is not live")
    spans = re.findall(r"<span ([^>]*)>", m.group(1))
    if len(spans) != n:
        fail("%d chips for %d tokens" % (len(spans), n))
    for i, s in enumerate(spans, 1):
        for want in ('data-token="%d"' % i, 'tabindex="0"', 'role="button"'):
            if want not in s:
                fail("chip %d lacks %s: %s" % (i, want, s))
        on = 'class="tok sel"' in s and 'aria-pressed="true"' in s
        if sel is not None and on != (i == sel):
            fail("chip %d %s selected" % (i, "is" if on else "is not"))
    return 0


def main():
    cmd, dom = sys.argv[1], open(sys.argv[2], encoding="utf-8").read()
    if cmd == "readout":
        return readout(dom, sys.argv[3], *map(int, sys.argv[4:8]))
    return chips(dom, int(sys.argv[3]), int(sys.argv[4]) if len(sys.argv) > 4 else None)


if __name__ == "__main__":
    sys.exit(main())

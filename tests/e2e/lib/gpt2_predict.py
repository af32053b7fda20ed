#!/usr/bin/python3
"""gpt2_predict.py - check the predictions panel of a screen against a dump.

    gpt2_predict.py SCREEN.txt DUMP_DIR VOCAB.json WANT_ROWS

SCREEN.txt is tmux's capture of attnviz on a GPT-2 model with the last token
selected; DUMP_DIR holds `attnviz --model DIR --dump DUMP_DIR TEXT`'s
logits.npy (the last position's next-token logits, float32). The panel's rows
("rank token probability%") must be the first WANT_ROWS of the float64
softmax's top 10, in order: each probability equal to the reference printed
with two decimals (a difference of at most 0.01 percentage point, the last
printed digit, allowed for float32 rounding at a boundary), each token the
beginning of the reference's display form (a label cut by "…") (GPT-2's bytes decoded, a space
shown as U+2423; a token holding part of a UTF-8 character is compared by its
probability only). Prints "ok - ..." / "not ok - ..." lines; exits 1 on a
failure.
"""
import json
import re
import sys

import numpy as np


def byte_decoder():
    """GPT-2's bytes_to_unicode, inverted: code point -> byte."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAC + 1)) + \
        list(range(0xAE, 0xFF + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return {chr(c): b for b, c in zip(bs, cs)}


def display(token, dec):
    raw = bytes(dec[ch] for ch in token)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return text.replace(" ", "\u2423").replace("\n", "\u21b5").replace("\t", "\u21e5")


def panel_rows(screen):
    lines = screen.split("\n")
    for k, line in enumerate(lines):
        m = re.search(r"Next (token )?after \d+", line)
        if m:
            col = m.start()
            rows = []
            for below in lines[k + 1:]:
                r = re.match(r"\s*(\d+) (.*?)\s+(\d+\.\d\d)%", below[col:])
                if not r:
                    break
                rows.append((int(r.group(1)), r.group(2), float(r.group(3))))
            return rows
    return None


def main():
    screen = open(sys.argv[1], encoding="utf-8").read()
    logits = np.load(sys.argv[2] + "/logits.npy").astype(np.float64)
    vocab = json.load(open(sys.argv[3], encoding="utf-8"))
    want = int(sys.argv[4])
    names = {i: t for t, i in vocab.items()}
    dec = byte_decoder()
    p = np.exp(logits - logits.max())
    p /= p.sum()
    top = sorted(range(len(p)), key=lambda i: (-p[i], i))[:10]
    rows = panel_rows(screen)
    fail = False
    if rows is None:
        print("not ok - no predictions panel on the screen")
        return 1
    if len(rows) != want:
        print(f"not ok - {len(rows)} predictions shown, {want} wanted")
        fail = True
    for (rank, tok, pct), i in zip(rows, top):
        ref = p[i] * 100
        shown = display(names[i], dec)
        good = abs(pct - ref) <= 0.01 + 1e-9 and rank == top.index(i) + 1
        cut = tok.rstrip().rstrip("\u2026")  # a label cut to its column ends with "…"
        if shown is not None and not shown.startswith(cut):
            good = False
        if not good:
            print(f"not ok - prediction {rank}: '{tok}' {pct:.2f}% on screen, "
                  f"'{shown}' {ref:.4f}% in the dump")
            fail = True
    if not fail:
        print(f"ok - {len(rows)} predictions equal the dump's softmax top 10 "
              f"(first '{rows[0][1]}' {rows[0][2]:.2f}%)")
    return 1 if fail else 0


if __name__ == "__main__":
    sys.exit(main())

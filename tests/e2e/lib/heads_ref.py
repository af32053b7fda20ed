#!/usr/bin/python3
"""heads_ref.py KIND CSV ATTNVIZ [ARGS...] - `attnviz --export heads`'s table
(CSV) against the four scores computed here in NumPy from attention of the
same sequences (the ids listed in the CSV's '# sequence' lines):

  pipeline ARGS  each sequence written as attnviz's pipeline words (id i is
                 three letters: aaa, aab, ...) and run with `--dump` and ARGS;
  trained DIR    the trained model folder DIR, each sequence written in its
                 vocabulary (model.json) and run with `--model DIR --dump`;
  gpt2 DIR       the Hugging Face folder DIR run by gpt2_ref.py's float64
                 forward on the ids themselves (no text in between).

The scores (DESIGN.md, include/core/headscore.h): previous-token = mean of
A[i, i-1] over i >= 1; induction = mean of A[t, t-P+1] over t = P..2P-1;
duplicate-token = the weight on earlier keys of the same id, over queries
that have one; first-token = mean of A[i, 0] over i >= 1; each pooled over
every sequence. Prints "ok - ..." / "not ok - ..." lines; exit 0 when all
are ok.
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np


def read_csv(path):
    seqs, rows = [], []
    with open(path) as f:
        for line in f:
            if line.startswith("# sequence"):
                seqs.append([int(t) for t in line.split(":", 1)[1].split()])
            elif line[0].isdigit():
                rows.append([float(v) for v in line.split(",")])
    return seqs, np.array(rows)


def tallies(att, ids, P):
    """Sums and counts (L, H, 4) of one sequence's attention (L, H, n, n)."""
    L, H, n, _ = att.shape
    s = np.zeros((L, H, 4))
    c = np.zeros(4)
    for i in range(1, n):
        s[:, :, 0] += att[:, :, i, i - 1]
        s[:, :, 3] += att[:, :, i, 0]
        c[0] += 1
        c[3] += 1
    for t in range(P, 2 * P):
        s[:, :, 1] += att[:, :, t, t - P + 1]
        c[1] += 1
    for i in range(n):
        same = [j for j in range(i) if ids[j] == ids[i]]
        if same:
            s[:, :, 2] += att[:, :, i, same].sum(axis=-1)
            c[2] += 1
    return s, c


def dump_attention(attnviz, args, text):
    with tempfile.TemporaryDirectory() as d:
        subprocess.run([attnviz] + args + ["--dump", d, text], check=True)
        return np.load(os.path.join(d, "attention.npy")).astype(np.float64)


def main():
    kind, csv, attnviz, rest = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    seqs, got = read_csv(csv)
    if kind == "gpt2":
        here = os.path.dirname(os.path.abspath(__file__))
        sys.path.insert(0, here)
        import gpt2_ref
        w, cfg = gpt2_ref.ckpt.read_folder(rest[0])
        run = lambda ids: gpt2_ref.forward(w, cfg, np.array(ids))[0]
    elif kind == "trained":
        vocab = json.load(open(os.path.join(rest[0], "model.json")))
        sep = " " if vocab.get("tokenizer") == "words" else ""
        words = vocab["vocab"]
        run = lambda ids: dump_attention(attnviz, ["--model", rest[0]],
                                         sep.join(words[i] for i in ids))
    else:
        word = lambda i: chr(97 + i // 676) + chr(97 + i // 26 % 26) + chr(97 + i % 26)
        run = lambda ids: dump_attention(attnviz, rest, " ".join(word(i) for i in ids))
    total_s, total_c = 0, 0
    for ids in seqs:
        att = run(ids)
        s, c = tallies(att, ids, len(ids) // 2)
        total_s, total_c = total_s + s, total_c + c
    want = (total_s / total_c).reshape(-1, 4)
    L, H = att.shape[:2]
    bad = 0
    ok = got.shape == (L * H, 6)
    print(("ok" if ok else "not ok") + " - %s: the table has %d rows of 6 (want %d heads)"
          % (kind, got.shape[0], L * H))
    if not ok:
        return 1
    heads_ok = all(got[k, 0] == k // H + 1 and got[k, 1] == k % H + 1 for k in range(L * H))
    diff = np.abs(got[:, 2:] - want).max()
    # the CSV has 6 decimals; float32 attention against float64 (gpt2) or the
    # same float32 weights read back (--dump)
    tol = 2e-5
    for ok, what in ((heads_ok, "rows are layer,head in order"),
                     (diff <= tol, "every score within %g of NumPy's (largest diff %.2g, %d "
                      "sequences)" % (tol, diff, len(seqs)))):
        print(("ok" if ok else "not ok") + " - %s: %s" % (kind, what))
        bad += not ok
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

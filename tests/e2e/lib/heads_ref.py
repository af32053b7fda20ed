#!/usr/bin/python3
"""heads_ref.py KIND CSV ATTNVIZ [ARGS...] - `attnviz --export heads`'s table
(CSV) against the four scores computed here in NumPy from attention of the
same sequences (the ids listed in the CSV's '# sequence' lines):

  pipeline ARGS  each sequence written as attnviz's pipeline words (id i is
                 three letters: aaa, aab, ...) and run with `--dump` and ARGS;
  trained DIR    the trained model folder DIR, each sequence written in its
                 vocabulary (model.json) and run with `--model DIR --dump`;
  gpt2 DIR       the Hugging Face folder DIR run by gpt2_ref.py's float64
                 forward on the ids themselves (no text in between);
  bert DIR       the BERT-family folder DIR run by bert_ref.py's float64
                 forward on the ids (token types 0): each sequence is
                 [CLS] segment segment [SEP], the ids of [CLS] and [SEP]
                 read from the folder's vocab.txt.

The scores (DESIGN.md, include/core/headscore.h): previous-token = mean of
A[i, i-1] over i >= 1; induction = mean of A[t, t-P+1] over the second
copy's t (the segment starts at a = 1 after a [CLS], else 0: t = a+P ..
a+2P-1); duplicate-token = the weight on earlier keys of the same id, over
queries that have one; first-token = mean of A[i, 0] over i >= 1;
next-token = mean of A[i, i+1] over i <= n-2; no-op on [CLS] / [SEP] = the
weight on the keys holding that token, over the queries holding neither
(absent, an empty field, for a model without them); each pooled over every
sequence. Prints "ok - ..." / "not ok - ..." lines; exit 0 when all are
ok.
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np


def read_csv(path):
    seqs, rows, P = [], [], None
    with open(path) as f:
        for line in f:
            if line.startswith("# attnviz head scores:"):
                P = int(line.split("segment of ")[1].split()[0])
            elif line.startswith("# sequence"):
                seqs.append([int(t) for t in line.split(":", 1)[1].split()])
            elif line[0].isdigit():
                rows.append([float(v) if v.strip() else np.nan for v in line.split(",")])
    return seqs, np.array(rows), P


KINDS = 7


def tallies(att, ids, P, at, cls, sep):
    """Sums and counts (L, H, 7) of one sequence's attention (L, H, n, n)."""
    L, H, n, _ = att.shape
    s = np.zeros((L, H, KINDS))
    c = np.zeros(KINDS)
    for i in range(1, n):
        s[:, :, 0] += att[:, :, i, i - 1]
        s[:, :, 3] += att[:, :, i, 0]
        c[0] += 1
        c[3] += 1
    for t in range(at + P, at + 2 * P):
        s[:, :, 1] += att[:, :, t, t - P + 1]
        c[1] += 1
    for i in range(n):
        same = [j for j in range(i) if ids[j] == ids[i]]
        if same:
            s[:, :, 2] += att[:, :, i, same].sum(axis=-1)
            c[2] += 1
    for i in range(n - 1):
        s[:, :, 4] += att[:, :, i, i + 1]
        c[4] += 1
    words = [i for i in range(n) if ids[i] not in (cls, sep)]
    for k, tok in ((5, cls), (6, sep)):
        if tok is None:
            continue
        keys = [j for j in range(n) if ids[j] == tok]
        for i in words:
            s[:, :, k] += att[:, :, i, keys].sum(axis=-1)
            c[k] += 1
    return s, c


def dump_attention(attnviz, args, text):
    with tempfile.TemporaryDirectory() as d:
        subprocess.run([attnviz] + args + ["--dump", d, text], check=True)
        return np.load(os.path.join(d, "attention.npy")).astype(np.float64)


def main():
    kind, csv, attnviz, rest = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    seqs, got, P = read_csv(csv)
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, here)
    cls = sep = None
    if kind == "gpt2":
        import gpt2_ref
        w, cfg = gpt2_ref.ckpt.read_folder(rest[0])
        run = lambda ids: gpt2_ref.forward(w, cfg, np.array(ids))[0]
    elif kind == "bert":
        import importlib.util
        import bert_ref
        spec = importlib.util.spec_from_file_location(
            "bck", os.path.join(here, "..", "..", "..", "scripts", "bert-checkpoint.py"))
        bck = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(bck)
        w, cfg = bck.read_folder(rest[0])
        with open(os.path.join(bck.model_dir(rest[0]), "vocab.txt"), encoding="utf-8") as f:
            vocab = [t.rstrip("\n") for t in f]
        cls, sep = vocab.index("[CLS]"), vocab.index("[SEP]")
        run = lambda ids: bert_ref.forward(w, cfg, ids, [0] * len(ids))["P"]
    elif kind == "trained":
        vocab = json.load(open(os.path.join(rest[0], "model.json")))
        sep_ = " " if vocab.get("tokenizer") == "words" else ""
        words = vocab["vocab"]
        run = lambda ids: dump_attention(attnviz, ["--model", rest[0]],
                                         sep_.join(words[i] for i in ids))
    else:
        word = lambda i: chr(97 + i // 676) + chr(97 + i // 26 % 26) + chr(97 + i % 26)
        run = lambda ids: dump_attention(attnviz, rest, " ".join(word(i) for i in ids))
    at = 1 if cls is not None else 0
    total_s, total_c = 0, 0
    for ids in seqs:
        wrapped = ids[0] == cls and ids[-1] == sep and len(ids) == 2 * P + 2
        seg = ids[1:P + 1] if cls is not None else ids[:P]
        if cls is not None and (not wrapped or cls in seg or sep in seg):
            print("not ok - %s: a sequence is not [CLS] %d + %d other ids [SEP]" % (kind, P, P))
            return 1
        if len(set(seg)) != P or ids[at:at + 2 * P] != seg + seg:
            print("not ok - %s: a segment is not %d distinct ids repeated once" % (kind, P))
            return 1
        att = run(ids)
        s, c = tallies(att, ids, P, at, cls, sep)
        total_s, total_c = total_s + s, total_c + c
    with np.errstate(invalid="ignore"):
        want = (total_s / total_c).reshape(-1, KINDS)  # 0/0: absent, NaN as the CSV's empty
    L, H = att.shape[:2]
    bad = 0
    ok = got.shape == (L * H, 2 + KINDS)
    print(("ok" if ok else "not ok") + " - %s: the table has %d rows of %d (want %d heads)"
          % (kind, got.shape[0], 2 + KINDS, L * H))
    if not ok:
        return 1
    heads_ok = all(got[k, 0] == k // H + 1 and got[k, 1] == k % H + 1 for k in range(L * H))
    absent_ok = np.array_equal(np.isnan(got[:, 2:]), np.isnan(want))
    diff = np.nanmax(np.abs(got[:, 2:] - want))
    # the CSV has 6 decimals; float32 attention against float64 (gpt2, bert)
    # or the same float32 weights read back (--dump)
    tol = 2e-5
    noop = "present" if cls is not None else "absent (empty)"
    for ok, what in ((heads_ok, "rows are layer,head in order"),
                     (absent_ok, "the no-op scores are %s" % noop),
                     (diff <= tol, "every score within %g of NumPy's (largest diff %.2g, %d "
                      "sequences)" % (tol, diff, len(seqs)))):
        print(("ok" if ok else "not ok") + " - %s: %s" % (kind, what))
        bad += not ok
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

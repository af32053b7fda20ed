#!/usr/bin/python3
"""copy_lens.py HEADS.csv LENS.json P - the head finder and the logit lens on
a model that copies: HEADS.csv is `--export heads` (its "# best induction:
layer L head H (S)" line), LENS.json is `--export lens-json` of a text made
of a segment of P tokens and one repetition of it.

Checks that the head finder's best induction head scores above 0.5, and
that in the second copy the token that comes next (a copy of the token after
the earlier occurrence) is the lens's top token after the head's layer in
most positions, with a mean probability above 0.5, while the layer before it
gives it a mean probability below 0.2: the prediction forms in the layer of
the induction head. A token outside a cell's top 10 counts as probability 0
(an upper bound below the tenth). Prints "ok - ..." / "not ok - ..." lines
and "head L H" (1-based); exit status 0 when all are ok.
"""
import json
import re
import sys


def main():
    heads, lens_path, P = sys.argv[1], sys.argv[2], int(sys.argv[3])
    best = None
    for line in open(heads, encoding="utf-8"):
        m = re.match(r"# best induction: layer (\d+) head (\d+) \(([0-9.]+)\)", line)
        if m:
            best = int(m.group(1)), int(m.group(2)), float(m.group(3))
    bad = 0

    def check(ok, what):
        nonlocal bad
        bad += not ok
        print(("ok - " if ok else "not ok - ") + what)

    check(best is not None and best[2] > 0.5,
          "the head finder's best induction head scores above 0.5 (%s)" % (best,))
    if best is None:
        return 1
    layer = best[0]
    d = json.load(open(lens_path, encoding="utf-8"))
    ids = d["token_ids"]
    check(len(ids) == 2 * P and ids[:P] == ids[P:], "the text is a segment of %d tokens and "
          "its repetition" % P)

    def prob(row, i, tok):
        cell = d["lens"][row][i]
        return cell["probs"][cell["ids"].index(tok)] if tok in cell["ids"] else 0.0

    pos = range(P, 2 * P - 1)  # second copy, where the next token is known
    at = [prob(layer, i, ids[i + 1]) for i in pos]
    before = [prob(layer - 1, i, ids[i + 1]) for i in pos]
    top = sum(d["lens"][layer][i]["ids"][0] == ids[i + 1] for i in pos)
    mean_at, mean_before = sum(at) / len(at), sum(before) / len(before)
    check(top * 4 >= 3 * len(at) and mean_at > 0.5,
          "after layer %d the copied token is the top token at %d of %d positions, "
          "mean probability %.3f" % (layer, top, len(at), mean_at))
    check(mean_before < 0.2, "after layer %d (before the head's) its mean probability is "
          "%.3f" % (layer - 1, mean_before))
    print("head %d %d" % (best[0], best[1]))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

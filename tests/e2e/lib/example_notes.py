"""example_notes.py ATTNVIZ SENTENCES [--tops] - does every example's note say what
attnviz computes with that example's settings?

SENTENCES is assets/sentences.txt: a sentence, its "@ KEY=VALUE" settings
and its "> note". Each example is run through `ATTNVIZ --dump` with its
settings (preset=, weights=, d_model=, heads=, pe=, mask=) and every claim
its note makes is checked against weights.npy (H, n, n) and heads.txt: which
token a head sends a token to, the per cents it says, the mask, the order.
A note is matched to its checks by its claims, word for word; a note whose
claims match no check is a failure, so a new or edited note needs its
check (and the claims written here updated). Prints "ok - ..." / "not ok - ..." lines; exits 1 on any
failure. With --tops: for each example the top key of its token under its
head and its per cent, one "k head token top pct" line each, for the
screen to be compared with.
"""
import os
import subprocess
import sys
import tempfile

import numpy as np

BIN, SENTENCES = sys.argv[1], sys.argv[2]
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
CROSS = "Le chat est assis sur le tapis"  # C's second sentence (APP_CROSS_DEFAULT)
fail = 0
where = ""  # the example being checked, "example 3 (The cat that ...)"


def report(ok, name):
    global fail
    print(("ok - " if ok else "not ok - ") + where + name)
    fail |= not ok


def examples():
    items = []
    for line in open(SENTENCES, encoding="utf-8").read().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        if line.startswith("@ "):
            items[-1]["set"] = dict(kv.split("=", 1) for kv in line[2:].split())
        elif line.startswith("> "):
            items[-1]["note"] = line[2:]
        else:
            items.append({"text": line, "set": {}, "note": ""})
    return items


def args_of(s, pe=None):
    a = []
    if "preset" in s:
        a += ["--preset", s["preset"]]
    if "weights" in s:
        a += ["--weights", os.path.join(ROOT, "assets", s["weights"])]
    if "d_model" in s:
        a += ["-d", s["d_model"]]
    if "heads" in s:
        a += ["-H", s["heads"]]
    if (pe if pe is not None else s.get("pe", "on")) == "off":
        a += ["--no-pe"]
    if s.get("mask") == "on":
        a += ["-c"]
    return a


class Run:
    """One --dump of a text with settings: weights, tokens, head labels."""

    def __init__(self, text, args):
        d = tempfile.mkdtemp()
        subprocess.run([BIN, *args, "--dump", d, text], check=True, stdout=subprocess.DEVNULL)
        self.w = np.load(d + "/weights.npy")
        self.tok = open(d + "/tokens.txt", encoding="utf-8").read().splitlines()
        keys = d + "/key_tokens.txt"
        self.keys = (open(keys, encoding="utf-8").read().splitlines()
                     if os.path.exists(keys) else self.tok)
        self.heads = open(d + "/heads.txt", encoding="utf-8").read().splitlines()

    def row(self, head, tok):
        return self.w[head - 1, self.tok.index(tok)]

    def top(self, head, tok):
        return self.keys[int(np.argmax(self.row(head, tok)))]

    def weight(self, head, tok, key):
        return float(self.row(head, tok)[self.keys.index(key)])


def pronoun_it(ex, r, h):
    report(r.heads[h - 1] == "pronoun -> noun", "head %d is pronoun -> noun" % h)
    report(r.top(h, "it") == "cat" and r.weight(h, "it", "cat") > r.weight(h, "it", "mat"),
           "\"it\" finds the cat, not the mat (%.1f%% vs %.1f%%)"
           % (100 * r.weight(h, "it", "cat"), 100 * r.weight(h, "it", "mat")))


def previous_token(ex, r, h):
    report(r.heads[0] == "previous token", "head 1 is the previous token")
    back = all(int(np.argmax(r.w[0, i])) == i - 1 for i in range(1, len(r.tok)))
    report(back, "head 1: each word looks one back")
    c = Run(ex["text"], args_of(ex["set"]) + ["--cross", CROSS])
    report(c.top(1, "cat") == "Le" and c.weight(1, "cat", "Le") > c.weight(1, "cat", "chat"),
           "after C, head 1 sends cat to \"Le\" (%.0f%%), not \"chat\""
           % (100 * c.weight(1, "cat", "Le")))


def verb_subject(ex, r, h):
    report(r.heads[h - 1] == "verb -> subject", "head %d is verb -> subject" % h)
    report(r.top(h, "was") == "mat", "\"was\" takes \"mat\" (%.0f%%), not \"cat\""
           % (100 * r.weight(h, "was", "mat")))


def trophy(ex, r, h):
    top2 = sorted(r.keys[j] for j in np.argsort(-r.row(h, "it"))[:2])
    both = min(r.weight(h, "it", "trophy"), r.weight(h, "it", "suitcase"))
    report(top2 == ["suitcase", "trophy"] and both > 0.3,
           "head %d splits \"it\" between trophy and suitcase (%.0f%% / %.0f%%)"
           % (h, 100 * r.weight(h, "it", "trophy"), 100 * r.weight(h, "it", "suitcase")))


def seed001(ex, r, h):
    got = [round(100 * r.weight(h, "Cat", k)) for k in ("Cat", "eats", "fish")]
    report(got == [38, 30, 32], "Cat attends 38%% / 30%% / 32%% to Cat, eats, fish (%s)"
           % got)


def bank(ex, r, h):
    tops = [r.top(k, "bank") for k in range(1, len(r.heads) + 1)]
    report(not {"river", "old"} & set(tops),
           "no designed head sends bank to river or old (tops: %s)" % ", ".join(tops))


def anna(ex, r, h):
    report(r.top(h, "she") == "Anna" and r.top(h, "it") == "dog",
           "head %d: she -> Anna (%.0f%%), it -> dog (%.0f%%)"
           % (h, 100 * r.weight(h, "she", "Anna"), 100 * r.weight(h, "it", "dog")))
    report(r.heads[:4] == ["previous token", "self", "first token", "same word"],
           "the other heads are previous token, self, first token, same word")


def order(ex, r, h, first):
    report(r.top(h, "bites") == first, "head %d finds the biter \"%s\" before bites" % (h, first))
    # PE off: "Dog bites man" and "Man bites dog" give the same weights,
    # only shuffled (tokens 1 and 3 swap places)
    a = Run("Dog bites man", args_of(ex["set"], pe="off")).w
    b = Run("Man bites dog", args_of(ex["set"], pe="off")).w
    p = [2, 1, 0]
    report(np.abs(a[:, p][:, :, p] - b).max() == 0.0,
           "with p (PE off) both orders give the same weights, shuffled")
    same = Run("Dog bites man", args_of(ex["set"])).w
    other = Run("Man bites dog", args_of(ex["set"])).w
    report(np.abs(same[:, p][:, :, p] - other).max() > 0.01,
           "... and with PE on they differ: order is seen")


def causal(ex, r, h):
    n = len(r.tok)
    hidden = all(r.w[k, i, j] == 0.0 for k in range(r.w.shape[0])
                 for i in range(n) for j in range(i + 1, n))
    seen = all(r.w[k, i, :i + 1].sum() > 0.999 for k in range(r.w.shape[0]) for i in range(n))
    report(hidden and seen, "under the mask each token sees itself and the tokens before it "
           "(later keys exactly 0)")


def last_sees_all(ex, r, h):
    causal(ex, r, h)
    last = r.w[h - 1, len(r.tok) - 1]
    report(bool((last > 0).all()), "the last token sees the whole prompt (%s)"
           % " ".join("%.3f" % v for v in last))


# (the claims, word for word as the note says them; the check of them)
CHECKS = [
    (['so "it" finds the cat, not the mat'], pronoun_it),
    (["head 1 (previous token): each word looks one back",
      'so cat finds "Le", not "chat"'], previous_token),
    (['Head 6 (verb -> subject) looks just before the verb and takes "mat"'], verb_subject),
    (["both are things: it takes knowledge of the world, so head 5 splits"], trophy),
    (["Cat attends 38% to itself, 30% to eats, 32% to fish"], seed001),
    (["No designed head knows meaning"], bank),
    (['Head 5: "she" -> Anna, "it" -> dog, by agreement',
      "Tab through the others: previous token, self, first token, same word"], anna),
    (['Head 6 finds the biter before "bites"',
      'attention alone cannot tell "Dog bites man" from "Man bites dog"'],
     lambda ex, r, h: order(ex, r, h, "Dog")),
    (['head 6 now finds "Man". With p (PE off) both sentences give the same weights, '
      "only shuffled"], lambda ex, r, h: order(ex, r, h, "Man")),
    (["each token sees itself and the tokens before it (hatched cells are masked)"], causal),
    (["under the causal mask the last token sees the whole prompt"], last_sees_all),
]

if len(sys.argv) > 3 and sys.argv[3] == "--tops":
    # what the screen should show on opening each example: its token's top
    # key under its head, "k head token top per-cent"
    for k, ex in enumerate(examples()):
        r, h, t = Run(ex["text"], args_of(ex["set"])), int(ex["set"]["head"]), ex["set"]["token"]
        print(k + 1, h, t, r.top(h, t), "%.1f" % (100 * r.row(h, t).max()))
    sys.exit(0)

for k, ex in enumerate(examples()):
    where = "example %d (%s): " % (k + 1, " ".join(ex["text"].split()[:4]))
    found = [f for claims, f in CHECKS if all(c in ex["note"] for c in claims)]
    if not found:
        report(False, "its note has no check: %s" % ex["note"][:60])
        continue
    r = Run(ex["text"], args_of(ex["set"]))
    for f in found:
        f(ex, r, int(ex["set"].get("head", "1")))
sys.exit(fail)

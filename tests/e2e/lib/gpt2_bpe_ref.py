"""gpt2_bpe_ref.py - GPT-2's tokenizer in Python, for the tests: the exact
pattern run by Python's regex module (Debian's python3-regex), GPT-2's byte
alphabet and the merges by rank as GPT-2's encoder.py does them, written here
again; the literal <|endoftext|> is its token (as Hugging Face's tokenizer
treats it). Also random test strings (random_text) for the comparisons.
"""
import json
import random
import unicodedata

import regex

PAT = regex.compile(r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+""")
EOT = "<|endoftext|>"


def byte_alphabet():
    keep = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100))
    out, extra = {}, 0
    for b in range(256):
        if b in keep:
            out[b] = chr(b)
        else:
            out[b] = chr(256 + extra)
            extra += 1
    return out


class Gpt2Bpe:
    def __init__(self, vocab_path, merges_path):
        with open(vocab_path, encoding="utf-8") as f:
            self.encoder = json.load(f)
        with open(merges_path, encoding="utf-8") as f:
            lines = f.read().split("\n")
        if lines and lines[0].startswith("#version"):
            lines = lines[1:]
        merges = [tuple(l.split(" ")) for l in lines if l]
        self.ranks = {m: r for r, m in enumerate(merges)}
        self.alpha = byte_alphabet()
        self.cache = {}

    def merges(self, word):
        """The parts of word after each merge by rank, the letters first."""
        parts = list(word)
        yield parts
        while len(parts) > 1:
            pairs = set(zip(parts, parts[1:]))
            best = min(pairs, key=lambda p: self.ranks.get(p, float("inf")))
            if best not in self.ranks:
                break
            merged, i = [], 0
            while i < len(parts):
                if i + 1 < len(parts) and (parts[i], parts[i + 1]) == best:
                    merged.append(parts[i] + parts[i + 1])
                    i += 2
                else:
                    merged.append(parts[i])
                    i += 1
            parts = merged
            yield parts

    def bpe(self, word):
        if word in self.cache:
            return self.cache[word]
        for parts in self.merges(word):
            pass
        ids = [self.encoder[p] for p in parts]
        self.cache[word] = ids
        return ids

    def encode_plain(self, text):
        ids = []
        for piece in PAT.findall(text):
            ids += self.bpe("".join(self.alpha[b] for b in piece.encode("utf-8")))
        return ids

    def encode(self, text):
        ids = []
        for k, seg in enumerate(text.split(EOT)):
            if k:
                ids.append(self.encoder[EOT])
            ids += self.encode_plain(seg)
        return ids


# Pieces random texts are made of: (weight, maker).
def _chars(lo, hi):
    return lambda r: "".join(chr(r.randint(lo, hi)) for _ in range(r.randint(1, 6)))


ZWJ_SEQS = ["\U0001F468\u200D\U0001F469\u200D\U0001F467", "\U0001F3F3\uFE0F\u200D\U0001F308",
            "\U0001F469\U0001F3FD\u200D\U0001F4BB", "\u2764\uFE0F", "\U0001F1EB\U0001F1F7",
            "\U0001F44D\U0001F3FF"]
WORDS = ["the", "The", "cat", "don", "won", "naïve", "café", "hello", "world", "GPT", "I",
         "it", "we", "they", "Über", "straße", "1024", "3.14", "2,000", "œuvre"]
PIECES = [
    (6, lambda r: r.choice(WORDS)),
    (4, lambda r: " " * r.randint(1, 4)),
    (2, lambda r: r.choice(["\t", "\n", "\r\n", "\n\n", " \n", "\t\t", "\u00A0", " \u00A0"])),
    (2, lambda r: r.choice(["'s", "'t", "'re", "'ve", "'m", "'ll", "'d", "'S", "'", "''", "’s"])),
    (3, _chars(0x21, 0x7E)),
    (2, _chars(0x30, 0x39)),
    (2, _chars(0xC0, 0x24F)),
    (2, _chars(0x370, 0x3FF)),
    (2, _chars(0x400, 0x4FF)),
    (2, _chars(0x4E00, 0x9FFF)),
    (2, _chars(0x1F300, 0x1FAFF)),
    (1, lambda r: r.choice(ZWJ_SEQS)),
    (2, lambda r: r.choice("aeoun") + "".join(chr(r.randint(0x300, 0x36F))
                                               for _ in range(r.randint(1, 3)))),
    (1, _chars(0x660, 0x669)),
    (1, _chars(0xFF10, 0xFF5A)),
    (1, lambda r: r.choice(["\u2000", "\u2009", "\u200A", "\u3000", "\u2028", "\u202F",
                            "\u205F", "\u1680", "\u000B", "\u000C", "\u001C", "\u200B"])),
    (1, _chars(0x80, 0xFFFF)),
]
EXTRA = [(1, lambda r: r.choice(["\u0085", "\uFEFF", " \u0085", "\u0085 x", EOT, " " + EOT])),
         (1, _chars(0x10000, 0x10FFFF))]


def random_text(r, extra=False):
    table = PIECES + (EXTRA if extra else [])
    total = sum(w for w, _ in table)
    out = []
    for _ in range(r.randint(1, 12)):
        x = r.uniform(0, total)
        for w, make in table:
            x -= w
            if x <= 0:
                out.append(make(r))
                break
    s = "".join(out)
    # surrogates cannot be encoded in UTF-8. For the node comparison:
    # JavaScript's \s differs from Python's on U+0085 and U+FEFF, and node's
    # Unicode is newer than the regex module's 15.0 (U+A7DA is a letter in
    # 16.0), so only code points assigned in unicodedata's 14.0 are kept
    drop = lambda c: 0xD800 <= ord(c) <= 0xDFFF or (
        not extra and (c in "\u0085\uFEFF" or unicodedata.category(c) == "Cn"))
    return "".join(c for c in s if not drop(c))

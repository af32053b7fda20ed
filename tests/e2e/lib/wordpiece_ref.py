"""wordpiece_ref.py - BERT's WordPiece tokenizer in plain Python, the oracle of
src/core/wordpiece*.c in tests/e2e/wordpiece.sh. Written from the algorithm
(BERT's basic tokenizer, then greedy longest-match-first WordPiece) with
Python's own Unicode answers: unicodedata for categories and NFD, str.lower()
for lower case, str.split() for whitespace. Typed special tokens are split out
first, and a word that spells one after cleaning is that token, as Hugging
Face's BertTokenizer does.

Also: fixture_vocab(), the vocabulary of the tests (written to
tests/data/wordpiece/vocab.txt by `python3 wordpiece_ref.py --fixture`), and
random_text(r), the random texts of the comparison.
"""
import functools
import sys
import unicodedata

SPECIALS = ["[CLS]", "[SEP]", "[MASK]", "[UNK]", "[PAD]"]
CJK = [(0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2A6DF), (0x2A700, 0x2B73F),
       (0x2B740, 0x2B81F), (0x2B820, 0x2CEAF), (0xF900, 0xFAFF), (0x2F800, 0x2FA1F)]


@functools.lru_cache(maxsize=None)
def is_control(ch):
    if ch in "\t\n\r":
        return False
    return unicodedata.category(ch) in ("Cc", "Cf")


@functools.lru_cache(maxsize=None)
def is_whitespace(ch):
    return ch in " \t\n\r" or unicodedata.category(ch) == "Zs"


@functools.lru_cache(maxsize=None)
def is_punctuation(ch):
    cp = ord(ch)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


@functools.lru_cache(maxsize=None)
def is_cjk(ch):
    cp = ord(ch)
    return any(a <= cp <= b for a, b in CJK)


class WordPieceRef:
    def __init__(self, tokens, lower=True, unk="[UNK]", prefix="##", max_chars=100, strip=None):
        self.vocab = {}
        for i, t in enumerate(tokens):
            self.vocab[t] = i  # a repeated token: the later id
        self.lower, self.unk, self.prefix, self.max_chars = lower, unk, prefix, max_chars
        self.strip = lower if strip is None else strip  # strip_accents, as BertTokenizer
        names = [unk if s == "[UNK]" else s for s in SPECIALS]
        self.specials = [s for s in names if s in self.vocab]
        self.cache = {}  # word -> ids (the cut depends on the word alone)
        self.word_cache = {}  # likewise a word's basic tokens

    def clean(self, text):
        out = []
        for ch in text:
            if ch == "\0" or ch == "\ufffd" or is_control(ch):
                continue
            if is_whitespace(ch):
                out.append(" ")
            elif is_cjk(ch):
                out.append(" " + ch + " ")
            else:
                out.append(ch)
        return "".join(out)

    def basic(self, text):
        words = []
        for word in self.clean(text).split():
            if word not in self.word_cache:
                self.word_cache[word] = self.split_word(word)
            words.extend(self.word_cache[word])
        return words

    def split_word(self, word):
        """One whitespace-separated word: lower-cased and stripped of accents
        when lower-casing, then split at punctuation."""
        if word in self.specials:
            return [word]
        if self.lower:
            word = word.lower()
        if self.strip:
            word = unicodedata.normalize("NFD", word)
            word = "".join(c for c in word if unicodedata.category(c) != "Mn")
        words, cur = [], ""
        for ch in word:
            if is_punctuation(ch):
                if cur:
                    words.append(cur)
                words.append(ch)
                cur = ""
            else:
                cur += ch
        if cur:
            words.append(cur)
        return words

    def wordpiece(self, word):
        if word in self.cache:
            return self.cache[word]
        ids = self.cut(word)
        self.cache[word] = ids
        return ids

    def cut(self, word):
        if len(word) > self.max_chars:
            return [self.vocab[self.unk]]
        out, start = [], 0
        while start < len(word):
            end, found = len(word), None
            while end > start:
                piece = (self.prefix if start else "") + word[start:end]
                if piece in self.vocab:
                    found = self.vocab[piece]
                    break
                end -= 1
            if found is None:
                return [self.vocab[self.unk]]
            out.append(found)
            start = end
        return out

    def split_specials(self, text):
        """The text as [(is_special, str)], typed special tokens cut out."""
        out, at = [], 0
        while True:
            best = None
            for s in self.specials:
                k = text.find(s, at)
                if k >= 0 and (best is None or k < best[0]):
                    best = (k, s)
            if best is None:
                out.append((False, text[at:]))
                return out
            out.append((False, text[at:best[0]]))
            out.append((True, best[1]))
            at = best[0] + len(best[1])

    def encode(self, text):
        """(ids with [CLS] and [SEP], index of the first token of type 1 or -1)."""
        ids, second = [self.vocab["[CLS]"]], -1
        for special, part in self.split_specials(text):
            words = [part] if special else self.basic(part)
            for w in words:
                if w in self.specials:
                    ids.append(self.vocab[w])
                    if w == "[SEP]" and second < 0:
                        second = len(ids)
                else:
                    ids.extend(self.wordpiece(w))
        ids.append(self.vocab["[SEP]"])
        return ids, second


WORDS = """the of and to in is was for on that with as by at from his her it an are
were be this which or had not but have they one all their has been its who more
also new would first can after two other into time only when some than many
most over years such may these where then about made between world used them
people during later could under both city like three well while known through
state each part name same before however film war being school because series
national number called use since did including high until although those
university several second year often life early any local without area work
long music group several season another team own best team set played against
hello play player playing played plays able table run running
runner runs fast faster fastest slow slowly quick quickly token tokens tokenizer
attention head heads model models mask masked masking sentence sentences word
words piece pieces bert gpt transformer layer layers cafe naive resume uber
francais facade creme brulee senor nino jalapeno angstrom kelvin ohm zurich
munchen koln sao paulo dusseldorf strasse fiancee cliche deja vu pinata
""".split()
PIECES = ("un aff able ing ed er est ly s es tion ment ness ful less re pre dis ize "
          "ise al ic ous ive ant ent ity er or ist ism y ies").split()
GREEK = "αλφα βητα γαμμα λογος οδος σοφια ας ος σ ς α ο ε ι η υ ω".split()
CYRILLIC = "привет мир слово да нет и в на я он".split()
ACCENTED = "café naïve résumé über français façade crème Zürich São".split()
CASED = "Hello World WORLD The BERT GPT Paris London Ångström Café Über".split()
PUNCT = list("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~") + list("¿¡«»—–…。、・·‧‘’“”")


def fixture_vocab():
    """The tests' vocabulary: specials (BERT's order), punctuation, letters,
    words and pieces, accented and cased forms, Greek, Cyrillic, CJK
    ideographs, Hangul jamo, a few emoji; every id's token distinct."""
    v = ["[PAD]"] + ["[unused%d]" % k for k in range(5)] + ["[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    chars = PUNCT + list("abcdefghijklmnopqrstuvwxyz0123456789")
    v += chars + ["##" + c for c in chars]
    v += WORDS + ["##" + p for p in PIECES] + PIECES + ["##" + w for w in WORDS[:200]]
    v += GREEK + ["##" + g for g in GREEK] + CYRILLIC + ["##" + c for c in CYRILLIC]
    v += ACCENTED + CASED + ["##" + c for c in ACCENTED]
    v += [chr(c) for c in range(0x4E00, 0x4E00 + 1200, 2)]
    v += [chr(c) for c in range(0x3400, 0x3400 + 100)]
    jamo = list(range(0x1100, 0x1113)) + list(range(0x1161, 0x1176)) + list(range(0x11A8, 0x11C3))
    v += [chr(c) for c in jamo] + ["##" + chr(c) for c in jamo]
    v += ["😀", "##😀", "👍", "🏽", "##🏽", "ı", "i̇", "k", "å", "##å", "ω"]
    v += ["%d" % k for k in range(100)] + ["##%d" % k for k in range(100)]
    v += [a + b for a in "bcdfghklmnprst" for b in "aeiou"]
    v += ["##" + a + b for a in "bcdfghklmnprst" for b in "aeiou"]
    # two spacing marks (Mc) of classes 216 and 226, in canonical order: only
    # NFD's reordering makes the text's 226-then-216 match them
    v += ["\U0001D165\U0001D16D", "##\U0001D165\U0001D16D"]
    out, seen = [], set()
    for t in v:
        if t not in seen:
            seen.add(t)
            out.append(t)
    return out


SPACES = [" ", " ", " ", "\t", "\n", "\r", "\u00a0", "\u3000", "\u2003", "\u2028", "\u2029",
          "\x0b", "\x0c", "\x1c", "\u1680", "\u202f", "\x85"]
CONTROLS = ["\x00", "\x01", "\x7f", "\x85", "\u200b", "\u200d", "\ufeff", "\ufffd", "\u00ad",
            "\x1b", "\u2060", "\U000E0001"]
MARKS = ["\u0301", "\u0300", "\u0308", "\u0323", "\u0302", "\u0327", "\u0345", "\u0f71",
         "\U0001D165", "\U0001D16D", "\u093f", "\ufe0f", "\u20dd"]
OTHERS = ["é", "É", "ñ", "Ü", "ü", "Å", "ç", "ệ", "ǘ", "ἄ", "ᾂ", "ΐ", "İ", "ß", "ﬁ", "\u212a",
          "\u212b", "\u2126", "Σ", "ΟΔΟΣ", "ΑΣ.", "Σ'Σ", "ﬀ", "Ǆ", "ǅ", "ő", "ÿ", "Ÿ", "ĳ", "Ĳ",
          "한국어", "가", "각", "힣", "ひらがな", "カタカナ", "𠀀", "𪜀", "丂", "龥", "豈", "😀", "👍🏽",
          "👨\u200d👩\u200d👧", "🇫🇷", "❤\ufe0f", "١٢٣", "ℌ", "①", "½", "x²",
          "\U0001D16D\U0001D165", "x\U0001D16D\U0001D165", "\U0001D16D\u0301\U0001D165"]
SPECIAL_TEXTS = ["[MASK]", "[SEP]", "[CLS]", "[UNK]", "[PAD]", "[mask]", "[MASK", "MASK]",
                 "[MA\u200bSK]", "[[MASK]]", "[unused0]", "[SE\x00P]"]


def random_word(r):
    k = r.random()
    if k < 0.35:
        w = r.choice(WORDS)
    elif k < 0.5:
        w = r.choice(WORDS) + r.choice(PIECES) + (r.choice(PIECES) if r.random() < 0.3 else "")
    elif k < 0.6:
        w = "".join(r.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(r.randint(1, 12)))
    elif k < 0.7:
        w = r.choice(GREEK + CYRILLIC + ACCENTED + CASED)
    else:
        w = r.choice(OTHERS)
    m = r.random()
    if m < 0.15:
        w = w.upper()
    elif m < 0.3:
        w = w.capitalize()
    elif m < 0.4:
        w = unicodedata.normalize("NFD", w)
    return w


def random_piece(r, wild):
    k = r.random()
    if k < 0.45:
        return random_word(r)
    if k < 0.58:
        return r.choice(PUNCT)
    if k < 0.66:
        return r.choice(SPACES)
    if k < 0.71:
        return r.choice(CONTROLS)
    if k < 0.77:
        return r.choice(MARKS)
    if k < 0.82:
        return r.choice(SPECIAL_TEXTS)
    if k < 0.88:
        return "".join(chr(r.randint(0x4E00, 0x4E00 + 1300)) for _ in range(r.randint(1, 4)))
    if k < 0.89:
        base = r.choice(["a", "é", "un", "Σ", "가", "aff"])
        return base * r.randint(95, 110)
    if k < 0.93:
        return "".join(chr(r.randint(0x1100, 0x11FF)) for _ in range(r.randint(1, 4)))
    return wild(r)


def random_text(r, wild):
    """A random text of up to 12 pieces; wild(r) gives one character from
    anywhere (the caller leaves out those its Unicode versions disagree on)."""
    parts = []
    for _ in range(r.randint(0, 12)):
        parts.append(random_piece(r, wild))
        if r.random() < 0.6:
            parts.append(" ")
    return "".join(parts)


if __name__ == "__main__":
    if sys.argv[1:] == ["--fixture"]:
        sys.stdout.write("".join(t + "\n" for t in fixture_vocab()))

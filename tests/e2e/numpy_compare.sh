#!/bin/bash
# numpy_compare.sh - attnviz --weights DIR --dump OUT against an independent NumPy
# implementation of seed 000's MultiHeadAttention, on fresh random weights.
#
# Each run draws a new seed (printed; set NUMPY_COMPARE_SEED=N to repeat one),
# saves Wq Wk Wv Wo (d_model x d_model) and X (n x d_model) as float32 .npy,
# runs attnviz with and without --causal and --no-pe (and one --no-scale run and
# one run on the toy embeddings, checked from the dumped X), and compares every
# dump file - X after PE, Q, K, V, scores (-inf where masked), weights, output,
# tokens.txt - with NumPy within 1e-5. Prints "ok - name" / "not ok - name (why)".
# Needs Debian's python3-numpy for /usr/bin/python3; without it: one "skip"
# line, counted apart from the passes. Run from the repository root; $ATTNVIZ is the binary.
# tier: test
# asan: yes
set -u
ATTNVIZ=${ATTNVIZ:-$PWD/attnviz}
PY=/usr/bin/python3
if ! [ -x "$PY" ] || ! "$PY" -c 'import numpy' 2>/dev/null; then
    echo "skip - numpy not installed"
    exit 0
fi
seed=${NUMPY_COMPARE_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
echo "# numpy_compare seed $seed (repeat with NUMPY_COMPARE_SEED=$seed)"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/attnviz-npc.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
export ATTNVIZ
"$PY" - "$seed" "$tmp" <<'PYEOF'
import os
import subprocess
import sys

import numpy as np

seed, tmp = int(sys.argv[1]), sys.argv[2]
attnviz = os.environ["ATTNVIZ"]
TOL = 1e-5
failed = 0


def report(ok, name, why=""):
    global failed
    if ok:
        print("ok - " + name)
    else:
        failed += 1
        print("not ok - %s (%s)" % (name, why))


# --- the reference: seed 000's code, written again here, in float64 ---------
def softmax(x, axis=-1):
    exp_x = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return exp_x / np.sum(exp_x, axis=axis, keepdims=True)


def positional_encoding(n, d_model):
    position = np.arange(n)[:, np.newaxis]
    two_i = np.arange(0, d_model, 2)
    angle = position / np.power(10000.0, two_i / d_model)
    pe = np.zeros((n, d_model))
    pe[:, 0::2] = np.sin(angle)
    pe[:, 1::2] = np.cos(angle)[:, : d_model // 2]
    return pe


def mha(Xp, W, H, causal, scale=True):
    """Xp (n, d) float32 input after PE; W = (Wq, Wk, Wv, Wo)."""
    n, d = Xp.shape
    d_k = d // H
    X = Xp.astype(np.float64)[np.newaxis]
    Wq, Wk, Wv, Wo = (w.astype(np.float64) for w in W)
    Q, K, V = X @ Wq, X @ Wk, X @ Wv

    def split_heads(x):
        return x.reshape(1, n, H, d_k).transpose(0, 2, 1, 3)

    Qh, Kh, Vh = split_heads(Q), split_heads(K), split_heads(V)
    scores = Qh @ Kh.transpose(0, 1, 3, 2)
    if scale:
        scores = scores / np.sqrt(d_k)
    if causal:
        mask = np.tril(np.ones((n, n)))
        scores = np.where(mask == 0, -np.inf, scores)
    weights = softmax(scores, axis=-1)
    combined = (weights @ Vh).transpose(0, 2, 1, 3).reshape(1, n, d)
    out = combined @ Wo
    return {"Q": Q[0], "K": K[0], "V": V[0], "scores": scores[0], "weights": weights[0],
            "output": out[0]}


# --- comparison helpers --------------------------------------------------------
def compare(name, path, expect):
    try:
        got = np.load(path)
    except Exception as e:  # missing or unreadable dump file
        report(False, name, "cannot load %s: %s" % (os.path.basename(path), e))
        return
    if got.dtype != np.float32:
        report(False, name, "dtype %s, not float32" % got.dtype)
        return
    if got.shape != expect.shape:
        report(False, name, "shape %s, expected %s" % (got.shape, expect.shape))
        return
    g = got.astype(np.float64)
    ginf, einf = np.isneginf(g), np.isneginf(expect)
    if not np.array_equal(ginf, einf):
        idx = np.argwhere(ginf != einf)[0]
        report(False, name, "-inf pattern differs at %s: %r vs %r"
               % (tuple(idx), g[tuple(idx)], expect[tuple(idx)]))
        return
    if not np.all(np.isfinite(g[~ginf])):
        report(False, name, "NaN or +inf in the dump")
        return
    diff = np.abs(g[~ginf] - expect[~einf])
    md = float(diff.max()) if diff.size else 0.0
    if md > TOL:
        flat = np.argmax(np.where(~ginf, np.abs(g - np.where(einf, 0, expect)), -1))
        idx = np.unravel_index(flat, g.shape)
        report(False, name, "max |diff| %.3g > %g at %s: %.9g vs %.9g"
               % (md, TOL, tuple(int(i) for i in idx), g[idx], expect[idx]))
        return
    report(True, name)


rng = np.random.RandomState(seed)


def make_case(dirname, n, d):
    std = np.sqrt(2.0 / d)
    W = [(rng.randn(d, d) * std).astype(np.float32) for _ in range(4)]
    X = rng.randn(n, d).astype(np.float32)
    os.makedirs(dirname)
    for name, w in zip(("Wq", "Wk", "Wv", "Wo"), W):
        np.save(os.path.join(dirname, name + ".npy"), w)
    np.save(os.path.join(dirname, "X.npy"), X)
    return W, X


WORDS = ["the", "cat", "sat", "on", "mat", "because", "it", "was", "tired", "dog"]


def run_case(label, wdir, W, X, n, H, d, causal, pe, scale=True, use_x=True):
    text = " ".join(WORDS[rng.randint(len(WORDS))] for _ in range(n))
    out = os.path.join(tmp, "dump-" + label.replace(" ", "-").replace(",", ""))
    cmd = [attnviz, "--weights", wdir, "--dump", out, "-H", str(H), "-d", str(d)]
    cmd += ["--causal"] if causal else []
    cmd += [] if pe else ["--no-pe"]
    cmd += [] if scale else ["--no-scale"]
    cmd.append(text)
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    err = p.stderr.decode("utf-8", "replace").strip()
    report(p.returncode == 0 and err == "", "%s: attnviz --dump exits 0 silently" % label,
           "status %d, stderr %r, command %s" % (p.returncode, err, " ".join(cmd)))
    if p.returncode != 0:
        return
    try:
        with open(os.path.join(out, "tokens.txt"), encoding="utf-8") as f:
            toks = f.read().split("\n")
        report(toks[:-1] == text.split(" ") and toks[-1] == "", "%s: tokens.txt" % label,
               "got %r for text %r" % (toks, text))
    except OSError as e:
        report(False, "%s: tokens.txt" % label, str(e))
    if use_x:
        Xp = X.copy()
        if pe:
            Xp = (Xp + positional_encoding(n, d).astype(np.float32)).astype(np.float32)
    else:
        # toy embeddings: take the dumped X (checked for PE separately) as the input
        try:
            Xp = np.load(os.path.join(out, "X.npy"))
        except Exception as e:
            report(False, "%s: X.npy" % label, str(e))
            return
    ref = mha(Xp, W, H, causal, scale)
    compare("%s: X.npy (after PE)" % label, os.path.join(out, "X.npy"),
            Xp.astype(np.float64))
    for key in ("Q", "K", "V", "scores", "weights", "output"):
        compare("%s: %s.npy" % (label, key), os.path.join(out, key + ".npy"), ref[key])
    # the contract's exact properties, beyond 1e-5
    try:
        w = np.load(os.path.join(out, "weights.npy"))
        rows = np.abs(w.astype(np.float64).sum(axis=-1) - 1).max()
        report(rows <= TOL, "%s: weight rows sum to 1" % label, "max |sum-1| %.3g" % rows)
        if causal:
            iu = np.triu_indices(n, 1)
            upper = w[:, iu[0], iu[1]]
            report(np.all(upper == 0.0), "%s: masked weights exactly 0" % label,
                   "max masked weight %r" % float(np.abs(upper).max()))
    except Exception as e:
        report(False, "%s: weights.npy properties" % label, str(e))


# n and d for the main cases: 4 heads, d_model 16, n between 3 and 9
n = int(rng.randint(3, 10))
print("# main cases: n=%d tokens, H=4, d_model=16" % n)
wdir = os.path.join(tmp, "w16")
W, X = make_case(wdir, n, 16)
for causal in (False, True):
    for pe in (True, False):
        label = "H4 d16 %s %s" % ("causal" if causal else "full", "pe" if pe else "no-pe")
        run_case(label, wdir, W, X, n, 4, 16, causal, pe)
run_case("H4 d16 causal pe no-scale", wdir, W, X, n, 4, 16, True, True, scale=False)

# other shapes: 2 heads of d_k 6 with a longer text, 8 heads of d_k 4
n2 = int(rng.randint(10, 20))
w12 = os.path.join(tmp, "w12")
W2, X2 = make_case(w12, n2, 12)
run_case("H2 d12 n%d causal pe" % n2, w12, W2, X2, n2, 2, 12, True, True)
w32 = os.path.join(tmp, "w32")
W3, X3 = make_case(w32, n, 32)
run_case("H8 d32 full pe" , w32, W3, X3, n, 8, 32, False, True)

# toy embeddings (no X.npy): attention over the dumped X
wtoy = os.path.join(tmp, "wtoy")
W4, _ = make_case(wtoy, n, 16)
os.remove(os.path.join(wtoy, "X.npy"))
run_case("H4 d16 causal toy-embeddings", wtoy, W4, None, n, 4, 16, True, True, use_x=False)

# X after PE of the toy run = X before PE (dumped with --no-pe) + PE
text = "the cat sat on the mat"
outs = []
for extra in (["--no-pe"], []):
    o = os.path.join(tmp, "pe-check%d" % len(outs))
    subprocess.run([attnviz, "--dump", o, "-H", "4", "-d", "16"] + extra + [text],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    outs.append(o)
try:
    x0 = np.load(os.path.join(outs[0], "X.npy"))
    compare("toy embeddings: X.npy = X (no PE) + PE(pos, dim)", os.path.join(outs[1], "X.npy"),
            (x0 + positional_encoding(6, 16).astype(np.float32)).astype(np.float64))
except Exception as e:
    report(False, "toy embeddings: X.npy = X (no PE) + PE(pos, dim)", str(e))

sys.exit(1 if failed else 0)
PYEOF

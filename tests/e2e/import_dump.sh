#!/bin/bash
# import_dump.sh - the combined views that --dump writes for attnviz's own runs
# (issue 14): attention.npy is (L, H, n_q, n_k) and bit for bit every layer's
# weights.npy; rollout.npy equals NumPy's rollout of those weights
# (A_hat = 0.5 mean_h A + 0.5 I, rows renormalised, A_hat_L ... A_hat_1) within
# 1e-6; cross-attention has attention.npy but no rollout.npy; the files
# existing before issue 14 are still there. Options used exist today; the
# --attention/--tokens import and norms.npy are checked once the command line
# has them. Prints "ok - name" / "not ok - name (why)". Needs Debian's
# python3-numpy for /usr/bin/python3 (else one "skip" line).
# Run from the repository root; $ATTNVIZ is the binary.
# tier: quick
# asan: yes
set -u
ATTNVIZ=${ATTNVIZ:-$PWD/attnviz}
PY=/usr/bin/python3
if ! [ -x "$PY" ] || ! "$PY" -c 'import numpy' 2>/dev/null; then
    echo "skip - numpy not installed"
    exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/attnviz-impdump.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
export ATTNVIZ LC_ALL=C.UTF-8
"$PY" - "$tmp" <<'PYEOF'
import os
import subprocess
import sys

import numpy as np

tmp = sys.argv[1]
attnviz = os.environ["ATTNVIZ"]
failed = 0


def report(ok, name, why=""):
    global failed
    if ok:
        print("ok - " + name)
    else:
        failed += 1
        print("not ok - %s (%s)" % (name, why))


def rollout(A):
    A = A.astype(np.float64)
    L, _, n, _ = A.shape
    R = None
    for l in range(L):
        hat = 0.5 * A[l].mean(axis=0) + 0.5 * np.eye(n)
        hat /= hat.sum(axis=1, keepdims=True)
        R = hat if R is None else hat @ R
    return R


def dump(label, args):
    out = os.path.join(tmp, label.replace(" ", "-"))
    p = subprocess.run([attnviz, "--dump", out] + args, capture_output=True, text=True)
    report(p.returncode == 0 and p.stderr == "", "%s: --dump exits 0 silently" % label,
           "status %d, stderr %r" % (p.returncode, p.stderr[:200]))
    return out


def same_bits(a, b):
    return a.shape == b.shape and np.array_equal(a.view(np.uint32), b.view(np.uint32))


TEXT = "The trophy didn't fit in the suitcase because it was too big ."
for label, args in [("one layer", ["-H", "4", "-d", "16"]),
                    ("three layers causal", ["--layers", "3", "-c", "-H", "2", "-d", "8"]),
                    ("designed", ["--preset", "designed"])]:
    out = dump(label, args + [TEXT])
    try:
        A = np.load(os.path.join(out, "attention.npy"))
        R = np.load(os.path.join(out, "rollout.npy"))
    except Exception as e:
        report(False, "%s: attention.npy and rollout.npy load" % label, str(e))
        continue
    L = A.shape[0]
    n = len(open(os.path.join(out, "tokens.txt"), encoding="utf-8").read().splitlines())
    report(A.dtype == np.float32 and A.ndim == 4 and A.shape[2:] == (n, n),
           "%s: attention.npy is float32 (L, H, n, n)" % label, "%s %s" % (A.dtype, A.shape))
    layers = [os.path.join(out, "layer%d" % (l + 1), "weights.npy") for l in range(L)] \
        if L > 1 else [os.path.join(out, "weights.npy")]
    ok = all(same_bits(A[l], np.load(f)) for l, f in enumerate(layers))
    report(ok, "%s: attention.npy is every layer's weights.npy bit for bit" % label)
    report(same_bits(A[0], np.load(os.path.join(out, "weights.npy"))),
           "%s: layer 1 of attention.npy is the top-level weights.npy" % label)
    d = np.abs(R - rollout(A)).max()
    report(R.shape == (n, n) and d <= 1e-6, "%s: rollout.npy equals NumPy's" % label,
           "shape %s, max diff %.3g" % (R.shape, d))
    report(np.allclose(R.sum(axis=1), 1, atol=1e-5), "%s: rollout rows sum to 1" % label)
    if "-c" in args:
        report(np.all(np.triu(R, 1) == 0), "%s: causal rollout is 0 above the diagonal" % label)
    need = ["tokens.txt", "heads.txt", "X.npy", "Q.npy", "K.npy", "V.npy", "scores.npy",
            "weights.npy", "output.npy"]
    missing = [f for f in need if not os.path.exists(os.path.join(out, f))]
    report(not missing, "%s: the earlier dump files are all there" % label, str(missing))
    hidden = [f for f in os.listdir(out) if f.startswith(".")]
    report(not hidden, "%s: no temporary file left" % label, str(hidden))

out = dump("cross", ["-H", "2", "-d", "8", "--cross", "le chat s'est assis", "the cat sat"])
A = np.load(os.path.join(out, "attention.npy"))
W = np.load(os.path.join(out, "weights.npy"))
report(A.shape == (1,) + W.shape and same_bits(A[0], W),
       "cross: attention.npy is (1, H, n_q, n_k), the weights bit for bit", str(A.shape))
report(not os.path.exists(os.path.join(out, "rollout.npy")),
       "cross: no rollout.npy (rollout needs square attention)")
sys.exit(1 if failed else 0)
PYEOF

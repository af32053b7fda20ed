#!/usr/bin/python3
"""make_import_ref.py - the NumPy references of tests/core/test_combine.c and
tests/io/test_attnfile.c (issue 14: imported attention, rollout, norms).

Run from the repository root with Debian's NumPy:
    /usr/bin/python3 tests/data/import/make_import_ref.py
It rewrites the .npy and token files beside it; the seed is fixed, so the
output is the same on every run. Everything here is computed independently of
attnviz, in float64, from the formulas of DESIGN.md "Imported attention":

  rollout: A_hat_l = 0.5 * mean_h(A_l) + 0.5 * I, rows renormalised,
           rollout = A_hat_L ... A_hat_2 A_hat_1  (Abnar and Zuidema 2020)
  norms:   ||alpha_hij * V_j,h W_O,h|| with V_j,h = V[j, h*d_k:(h+1)*d_k] and
           W_O,h = W_O[h*d_k:(h+1)*d_k, :]     (Kobayashi et al. 2020)
"""
import json
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(20261123)


def save(name, a):
    np.save(os.path.join(HERE, name), a)


def softmax(s, axis=-1):
    e = np.exp(s - s.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def attention(L, H, nq, nk, causal=False):
    s = rng.normal(0.0, 2.0, size=(L, H, nq, nk))
    if causal:
        s = np.where(np.tril(np.ones((nq, nk), bool)), s, -np.inf)
    return softmax(s)


def rollout(A):
    """A (L, H, n, n) float64 -> (L, n, n): the rollout after each layer."""
    L, _, n, _ = A.shape
    out, R = [], None
    for l in range(L):
        hat = 0.5 * A[l].mean(axis=0) + 0.5 * np.eye(n)
        hat = hat / hat.sum(axis=1, keepdims=True)
        R = hat if R is None else hat @ R
        out.append(R)
    return np.stack(out)


def norms(alpha, V, Wo):
    """alpha (H, n, n), V (n, d), Wo (d, d) -> (H, n, n), vector by vector."""
    H, nq, nk = alpha.shape
    d = V.shape[1]
    dk = d // H
    out = np.zeros((H, nq, nk))
    for h in range(H):
        for j in range(nk):
            f = V[j, h * dk:(h + 1) * dk] @ Wo[h * dk:(h + 1) * dk, :]
            for i in range(nq):
                out[h, i, j] = np.linalg.norm(alpha[h, i, j] * f)
    return out


# (3, 2, 7, 7) random attention, float32 as a model would export it; the
# references are computed from exactly those float32 values, in float64.
A = attention(3, 2, 7, 7).astype(np.float32)
save("attn_l3h2n7.npy", A)
R = rollout(A.astype(np.float64))
save("rollout_l3h2n7.npy", R[-1].astype(np.float32))        # after all 3 layers
save("rollout_l3h2n7_after2.npy", R[1].astype(np.float32))  # after layers 1 and 2
A64 = A.astype(np.float64)
save("heads_mean_l2.npy", A64[1].mean(axis=0).astype(np.float32))
save("heads_max_l2.npy", A64[1].max(axis=0).astype(np.float32))
save("heads_sum_l2.npy", A64[1].sum(axis=0).astype(np.float32))
# query tokens 1, 4 and 6 (0-based) of layer 3 head 2, rows summed
save("rows_sum_l3h2_146.npy", A64[2, 1, [1, 4, 6]].sum(axis=0).astype(np.float32))

# causal (2, 3, 6, 6) in float64: the importer converts; rollout stays lower-triangular
C = attention(2, 3, 6, 6, causal=True)
save("attn_causal_f64.npy", C)
save("rollout_causal_f64.npy", rollout(C.astype(np.float32).astype(np.float64))[-1]
     .astype(np.float32))

# cross-attention (2, 2, 3, 5) float32 with query and key tokens
X = attention(2, 2, 3, 5).astype(np.float32)
save("attn_cross.npy", X)

# value-weighted norms: one layer, H = 4 heads, n = 6, d_model = 8
H, n, d = 4, 6, 8
V = rng.normal(0.0, 1.0, size=(n, d)).astype(np.float32)
Wo = rng.normal(0.0, np.sqrt(2.0 / d), size=(d, d)).astype(np.float32)
alpha = attention(1, H, n, n, causal=True)[0].astype(np.float32)
save("norms_V.npy", V)
save("norms_Wo.npy", Wo)
save("norms_alpha.npy", alpha)
save("norms_expected.npy", norms(alpha.astype(np.float64), V.astype(np.float64),
                                 Wo.astype(np.float64)).astype(np.float32))
fn = np.array([[np.linalg.norm(V[j, h * 2:(h + 1) * 2].astype(np.float64)
                               @ Wo[h * 2:(h + 1) * 2, :].astype(np.float64))
                for j in range(n)] for h in range(H)])
save("norms_fnorm.npy", fn.astype(np.float32))

# tokens: 7 one a line (with a space inside one), and the same 7 as a JSON
# list with escapes, \u00e9, a surrogate pair (U+1F600) and a tab
lines = ["The", "caf\u00e9", "[CLS]", "two words", "\U0001F600", "\u0120it", "."]
with open(os.path.join(HERE, "tokens7.txt"), "w", encoding="utf-8") as f:
    f.write("\n".join(lines) + "\n")
with open(os.path.join(HERE, "tokens7.json"), "w", encoding="ascii") as f:
    f.write('["The", "caf\\u00e9", "[CLS]", "two words", "\\ud83d\\ude00", "\\u0120it",'
            ' "\\u002e"]\n')
assert json.load(open(os.path.join(HERE, "tokens7.json"))) == lines
with open(os.path.join(HERE, "tokens6.txt"), "w", encoding="utf-8") as f:
    f.write("\n".join("a b c d e f".split()) + "\n")
with open(os.path.join(HERE, "tokens3.txt"), "w", encoding="utf-8") as f:
    f.write("the cat sat\n".replace(" ", "\n"))
with open(os.path.join(HERE, "keys5.json"), "w", encoding="utf-8") as f:
    json.dump(["le", "chat", "s'est", "assis", "\t"], f)

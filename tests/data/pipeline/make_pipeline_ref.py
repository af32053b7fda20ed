#!/usr/bin/python3
"""make_pipeline_ref.py - the reference of tests/render/test_pipeline.c: every
stage of one head, computed in NumPy independently of attnviz's C code.

Regenerate from the repository root (Debian's python3-numpy):

    /usr/bin/python3 tests/data/pipeline/make_pipeline_ref.py

The output is a pure function of SEED, so running it again rewrites the same
bytes; commit tests/data/pipeline/ whenever this script changes.

Inputs (float32, read by the C test with weights_load, as --weights does):
    Wq.npy Wk.npy Wv.npy Wo.npy   (8, 8)  randn * sqrt(2 / d_model)
    X.npy                         (5, 8)  randn: the text "a b c d e"

Settings: d_model 8, 2 heads (d_k 4), no positional encoding, the causal mask,
scaling on, temperature 2. For head 2 (columns 4-7), after seed 000's
scaled_dot_product_attention with the temperature as a further divisor:
    Q.npy K.npy V.npy   (5, 4)   X @ W[:, 4:8]
    raw.npy             (5, 5)   Q K^T
    scaled.npy          (5, 5)   raw / sqrt(4) / 2
    (the masked scores are scaled with -inf above the diagonal, np.tril; .npy
    files attnviz reads hold finite numbers only, so the C test checks that
    rule against scaled.npy instead of reading a file of infinities)
    weights.npy         (5, 5)   softmax of masked (row max subtracted)
    output.npy          (5, 4)   weights @ V
"""
import os
import numpy as np

SEED = 1207
D, H, N, T = 8, 2, 5, 2.0
out = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(SEED)
W = {k: (rng.standard_normal((D, D)) * np.sqrt(2.0 / D)).astype(np.float32)
     for k in ("Wq", "Wk", "Wv", "Wo")}
X = rng.standard_normal((N, D)).astype(np.float32)
for k, v in W.items():
    np.save(os.path.join(out, k + ".npy"), v)
np.save(os.path.join(out, "X.npy"), X)

d_k = D // H
cols = slice(1 * d_k, 2 * d_k)               # head 2
X64 = X.astype(np.float64)
Q = X64 @ W["Wq"].astype(np.float64)[:, cols]
K = X64 @ W["Wk"].astype(np.float64)[:, cols]
V = X64 @ W["Wv"].astype(np.float64)[:, cols]
raw = Q @ K.T
scaled = raw / np.sqrt(d_k) / T
mask = np.tril(np.ones((N, N)))
masked = np.where(mask == 0, -np.inf, scaled)
e = np.exp(masked - masked.max(axis=-1, keepdims=True))
weights = e / e.sum(axis=-1, keepdims=True)
output = weights @ V
for name, a in (("Q", Q), ("K", K), ("V", V), ("raw", raw), ("scaled", scaled),
                ("weights", weights), ("output", output)):
    np.save(os.path.join(out, name + ".npy"), a.astype(np.float32))

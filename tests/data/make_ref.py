#!/usr/bin/python3
"""make_ref.py - the reference .npy files of tests/test_reference.c.

Regenerate (from the repository root, with Debian's python3-numpy):

    /usr/bin/python3 tests/data/make_ref.py            # writes tests/data/ref/
    /usr/bin/python3 tests/data/make_ref.py OUTDIR     # elsewhere

The output is a pure function of SEED below, so running it again rewrites the
same bytes; commit tests/data/ref/ whenever this script changes.

Inputs (float32, saved as the C program reads them with --weights):
    Wq.npy Wk.npy Wv.npy Wo.npy   (16, 16)  randn * sqrt(2 / d_model), as the
                                            article's MultiHeadAttention
    X.npy                         (6, 16)   randn: the embeddings of 6 tokens
                                            (the C test uses the text "a b c d e f")

Expected results, for PE in {nope, pe} x mask in {full, causal}:
    expected_X_<pe>.npy                  (6, 16)    X (+ PE): the attention's input
    expected_weights_<pe>_<mask>.npy     (4, 6, 6)  attention weights per head
    expected_output_<pe>_<mask>.npy      (6, 16)    concat(heads) @ W_o

The reference is written here independently of attnviz's C code, after seed
000's NumPy `MultiHeadAttention` and `scaled_dot_product_attention`: row vectors,
Q = X @ W_q, heads from reshape(n, H, d_k) (head h = columns h*d_k .. h*d_k+d_k-1),
scores / sqrt(d_k), the causal mask np.tril(ones) (masked scores -inf, so their
weights are exactly 0), the article's numerically stable softmax, and
output = combine_heads(weights @ V) @ W_o. PE(pos, 2i) = sin(pos / 10000^(2i/d)),
PE(pos, 2i+1) = cos(pos / 10000^(2i/d)), pos from 0, rounded to float32 and added
to X in float32 (as attnviz does); everything after that runs in float64 on the
float32 inputs and is saved as float32.
"""
import os
import sys

import numpy as np

SEED = 20240601
D_MODEL = 16
HEADS = 4
N = 6


def softmax(x, axis=-1):
    """Numerically stable softmax (seed 000)."""
    exp_x = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return exp_x / np.sum(exp_x, axis=axis, keepdims=True)


def create_causal_mask(seq_len):
    """Position i sees positions j <= i (seed 000)."""
    return np.tril(np.ones((seq_len, seq_len)))


def positional_encoding(n, d_model):
    """PE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = cos(...), in float64."""
    pe = np.zeros((n, d_model))
    for pos in range(n):
        for dim in range(d_model):
            two_i = dim - (dim % 2)
            angle = pos / 10000.0 ** (two_i / d_model)
            pe[pos, dim] = np.sin(angle) if dim % 2 == 0 else np.cos(angle)
    return pe


def attention_input(X, pe):
    """X (float32) plus PE rounded to float32, summed in float32."""
    X = X.astype(np.float32)
    if pe:
        X = X + positional_encoding(X.shape[0], X.shape[1]).astype(np.float32)
    return X.astype(np.float32)


class MultiHeadAttention:
    """Seed 000's MultiHeadAttention with given weights (batch of one)."""

    def __init__(self, W_q, W_k, W_v, W_o, num_heads):
        self.d_model = W_q.shape[0]
        assert self.d_model % num_heads == 0
        self.num_heads = num_heads
        self.d_k = self.d_model // num_heads
        self.W_q, self.W_k, self.W_v, self.W_o = (np.asarray(w, np.float64)
                                                  for w in (W_q, W_k, W_v, W_o))

    def split_heads(self, x):
        batch_size, seq_len, _ = x.shape
        x = x.reshape(batch_size, seq_len, self.num_heads, self.d_k)
        return x.transpose(0, 2, 1, 3)  # (batch, heads, seq, d_k)

    def combine_heads(self, x):
        batch_size, _, seq_len, _ = x.shape
        return x.transpose(0, 2, 1, 3).reshape(batch_size, seq_len, self.d_model)

    def forward(self, X, mask=None):
        """X (n, d_model). Returns a dict of every intermediate, float64."""
        X = np.asarray(X, np.float64)[np.newaxis]
        Q = np.matmul(X, self.W_q)
        K = np.matmul(X, self.W_k)
        V = np.matmul(X, self.W_v)
        Qh, Kh, Vh = self.split_heads(Q), self.split_heads(K), self.split_heads(V)
        scores = np.matmul(Qh, Kh.transpose(0, 1, 3, 2)) / np.sqrt(self.d_k)
        if mask is not None:
            scores = np.where(mask == 0, -np.inf, scores)
        weights = softmax(scores, axis=-1)
        combined = self.combine_heads(np.matmul(weights, Vh))
        output = np.matmul(combined, self.W_o)
        return {"Q": Q[0], "K": K[0], "V": V[0], "scores": scores[0],
                "weights": weights[0], "output": output[0]}


def reference(Ws, X, heads, pe, causal):
    """Every intermediate of one run; X is the raw (pre-PE) float32 input."""
    Xp = attention_input(X, pe)
    mha = MultiHeadAttention(*Ws, num_heads=heads)
    mask = create_causal_mask(Xp.shape[0]) if causal else None
    res = mha.forward(Xp, mask)
    res["X"] = Xp
    return res


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(
        os.path.abspath(__file__)), "ref")
    os.makedirs(out, exist_ok=True)
    rng = np.random.RandomState(SEED)
    std = np.sqrt(2.0 / D_MODEL)
    Ws = [(rng.randn(D_MODEL, D_MODEL) * std).astype(np.float32) for _ in range(4)]
    X = rng.randn(N, D_MODEL).astype(np.float32)
    for name, w in zip(("Wq", "Wk", "Wv", "Wo"), Ws):
        np.save(os.path.join(out, name + ".npy"), w)
    np.save(os.path.join(out, "X.npy"), X)
    for pe in (False, True):
        ptag = "pe" if pe else "nope"
        for causal in (False, True):
            mtag = "causal" if causal else "full"
            r = reference(Ws, X, HEADS, pe, causal)
            w = r["weights"]
            assert np.allclose(w.sum(axis=-1), 1.0)
            if causal:
                assert np.all(w[:, np.triu_indices(N, 1)[0], np.triu_indices(N, 1)[1]] == 0)
            np.save(os.path.join(out, "expected_X_%s.npy" % ptag), r["X"].astype(np.float32))
            np.save(os.path.join(out, "expected_weights_%s_%s.npy" % (ptag, mtag)),
                    w.astype(np.float32))
            np.save(os.path.join(out, "expected_output_%s_%s.npy" % (ptag, mtag)),
                    r["output"].astype(np.float32))
    print("wrote reference files to %s (seed %d)" % (out, SEED))


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""make_ref.py - the float64 NumPy reference of GPT-2's forward for tests/io/test_gpt2.c.

Regenerate (from the repository root, with Debian's python3-numpy):

    /usr/bin/python3 tests/data/gpt2/make_ref.py           # writes tests/data/gpt2/
    /usr/bin/python3 tests/data/gpt2/make_ref.py OUTDIR    # elsewhere

The model is small and GPT-2-shaped: L = 3 layers, D = 48, H = 4 heads (d_k 12),
F = 192, V = 300, n_ctx = 64, LayerNorm eps 1e-5, lm_head tied to wte. Its weights
are not committed: both this script and the C test draw them from attnviz's
core/rng.h stream (SplitMix64, floats from the top 24 bits, rng_symmetric's
(2u - 1) * std * sqrt(3) in float32), seed SEED, tensor after tensor in the order
of TENSORS below, so they are the same float32 numbers on every machine. The Q
and K weights are wide (std 0.35) so that heads are peaked, as trained heads are.

Written (float32, C order):
    ids.npy         (N,)          the token ids (exact integers) of the sequence
    attention.npy   (L, H, N, N)  every layer's every head's attention weights
    logits.npy      (N, V)        the next-token logits of every position

The forward follows GPT-2 (DESIGN.md "A Hugging Face GPT-2 folder"), written here
independently of attnviz's C code, every operation in float64 on the float32
weights: x = wte[ids] + wpe[:N]; per layer a = LN1(x), qkv = a @ W_attn + b_attn
(columns [0, D) Q, [D, 2D) K, [2D, 3D) V; head h the columns h*d_k ...),
softmax(Q_h K_h^T / sqrt(d_k)) under the causal mask (masked scores -inf),
x += (concat @ W_proj + b_proj), x += gelu_tanh(LN2(x) @ W_fc + b_fc) @ W_fcproj
+ b_fcproj; logits = LN_f(x) @ wte^T. The output is a pure function of SEED.
"""
import os
import sys

import numpy as np

SEED = 2024
L, D, H, F, V, T, EPS = 3, 48, 4, 192, 300, 64, 1e-5
N = 20

GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def stream(state, count):
    """The next count draws of rng_next from state; returns (draws, state)."""
    steps = np.arange(1, count + 1, dtype=np.uint64)
    with np.errstate(over="ignore"):
        x = np.uint64(state) + steps * GOLDEN
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        x = x ^ (x >> np.uint64(31))
        state = np.uint64(state) + np.uint64(count) * GOLDEN
    return x, state


def symmetric(state, count, std):
    """count draws of rng_symmetric(std), float32 as C computes them."""
    bits, state = stream(state, count)
    u = (bits >> np.uint64(40)).astype(np.float32) * np.float32(1.0 / 16777216.0)
    v = (np.float32(2.0) * u - np.float32(1.0)) * np.float32(std)
    return v * np.float32(1.7320508075688772), state


# name, shape, offset, std: the order of the draws (tests/io/test_gpt2.c has the same table)
def tensors():
    yield "wte", (V, D), 0.0, 0.5
    yield "wpe", (T, D), 0.0, 0.2
    for l in range(L):
        yield f"{l}.ln1_g", (D,), 1.0, 0.2
        yield f"{l}.ln1_b", (D,), 0.0, 0.1
        yield f"{l}.attn_w", (D, 3 * D), 0.0, 0.35
        yield f"{l}.attn_b", (3 * D,), 0.0, 0.1
        yield f"{l}.proj_w", (D, D), 0.0, 0.15
        yield f"{l}.proj_b", (D,), 0.0, 0.05
        yield f"{l}.ln2_g", (D,), 1.0, 0.2
        yield f"{l}.ln2_b", (D,), 0.0, 0.1
        yield f"{l}.fc_w", (D, F), 0.0, 0.15
        yield f"{l}.fc_b", (F,), 0.0, 0.1
        yield f"{l}.fcproj_w", (F, D), 0.0, 0.08
        yield f"{l}.fcproj_b", (D,), 0.0, 0.05
    yield "lnf_g", (D,), 1.0, 0.2
    yield "lnf_b", (D,), 0.0, 0.1


def weights():
    state, w = np.uint64(SEED), {}
    for name, shape, offset, std in tensors():
        v, state = symmetric(state, int(np.prod(shape)), std)
        w[name] = (np.float32(offset) + v).reshape(shape).astype(np.float64)
    ids_bits, state = stream(state, N)
    ids = (ids_bits >> np.uint64(33)) % np.uint64(V)
    return w, ids.astype(np.int64)


def layer_norm(x, g, b):
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + EPS) * g + b


def gelu_tanh(x):
    return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x**3)))


def softmax(s):
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def forward(w, ids):
    n, d_k = len(ids), D // H
    x = w["wte"][ids] + w["wpe"][:n]
    mask = np.tril(np.ones((n, n), dtype=bool))
    att = np.zeros((L, H, n, n))
    for l in range(L):
        a = layer_norm(x, w[f"{l}.ln1_g"], w[f"{l}.ln1_b"])
        qkv = a @ w[f"{l}.attn_w"] + w[f"{l}.attn_b"]
        q, k, v = (qkv[:, c * D:(c + 1) * D].reshape(n, H, d_k).transpose(1, 0, 2)
                   for c in range(3))
        s = np.where(mask, q @ k.transpose(0, 2, 1) / np.sqrt(d_k), -np.inf)
        att[l] = softmax(s)
        concat = (att[l] @ v).transpose(1, 0, 2).reshape(n, D)
        x = x + concat @ w[f"{l}.proj_w"] + w[f"{l}.proj_b"]
        m = layer_norm(x, w[f"{l}.ln2_g"], w[f"{l}.ln2_b"])
        x = x + gelu_tanh(m @ w[f"{l}.fc_w"] + w[f"{l}.fc_b"]) @ w[f"{l}.fcproj_w"] \
            + w[f"{l}.fcproj_b"]
    logits = layer_norm(x, w["lnf_g"], w["lnf_b"]) @ w["wte"].T
    return att, logits


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    os.makedirs(out, exist_ok=True)
    w, ids = weights()
    att, logits = forward(w, ids)
    top = att.max(axis=-1).mean(axis=-1)  # (L, H) mean largest weight of a row
    print(f"mean largest weight per head: min {top.min():.2f} max {top.max():.2f}")
    np.save(os.path.join(out, "ids.npy"), ids.astype(np.float32))
    np.save(os.path.join(out, "attention.npy"), att.astype(np.float32))
    np.save(os.path.join(out, "logits.npy"), logits.astype(np.float32))


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""model_forward.py MODEL_DIR DUMP_DIR TEXT - a saved attnviz model run forward
in NumPy (float64) from the format alone (DESIGN.md "A trained model folder"),
compared with what `attnviz --model MODEL_DIR --dump DUMP_DIR TEXT` wrote.

Reads model.json and the .npy tensors, tokenizes TEXT with the model's
tokenizer (chars: one code point each; words: split at whitespace), and
computes x = embed[tok] + PE; per layer x = x + MHA(LN1(x)) (+ MLP(LN2(x))),
the attention causal and scaled by 1/sqrt(d_k), heads as column slices.
Compares X, and for every layer Q, K, V, the weights and the layer's output
(the residual stream) with the dump: the largest absolute difference must be
at most 1e-5. Prints "ok ..." or "FAIL ..." and exits 0 or 1.
"""
import json
import math
import os
import sys

import numpy as np


def load(d, name):
    return np.load(os.path.join(d, name + ".npy")).astype(np.float64)


def layer_norm(x, g, b):
    mu = x.mean(axis=1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=1, keepdims=True)
    return (x - mu) / np.sqrt(var + 1e-5) * g + b


def activation(h, kind):
    if kind == "relu":
        return np.maximum(h, 0.0)
    return 0.5 * h * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (h + 0.044715 * h ** 3)))


def sinusoidal(n, d):
    pe = np.zeros((n, d))
    for pos in range(n):
        for i in range(0, d, 2):
            angle = pos / 10000 ** (i / d)
            pe[pos, i] = math.sin(angle)
            if i + 1 < d:
                pe[pos, i + 1] = math.cos(angle)
    return pe


def tokens(spec, text):
    vocab = {v: k for k, v in enumerate(spec["vocab"])}
    pieces = text.split() if spec["tokenizer"] == "words" else list(text)
    return [vocab[p] for p in pieces]


def forward(d, spec, ids):
    D, H, L = spec["d_model"], spec["heads"], spec["layers"]
    dk = D // H
    n = len(ids)
    ln = spec.get("layernorm") == "pre"
    x = load(d, "embed")[ids]
    if spec["pe"] == "sinusoidal":
        x = x + sinusoidal(n, D)
    elif spec["pe"] == "learned":
        x = x + load(d, "pe")[:n]
    out = {"X": x.copy()}
    mask = np.triu(np.ones((n, n), dtype=bool), k=1)
    for l in range(1, L + 1):
        p = lambda name: load(d, "layer%d/%s" % (l, name))
        a = layer_norm(x, p("ln1_g"), p("ln1_b")) if ln else x
        Q, K, V = a @ p("Wq"), a @ p("Wk"), a @ p("Wv")
        P = np.zeros((H, n, n))
        cat = np.zeros((n, D))
        for h in range(H):
            cols = slice(h * dk, (h + 1) * dk)
            s = Q[:, cols] @ K[:, cols].T / math.sqrt(dk)
            s[mask] = -np.inf
            e = np.exp(s - s.max(axis=1, keepdims=True))
            P[h] = e / e.sum(axis=1, keepdims=True)
            cat[:, cols] = P[h] @ V[:, cols]
        x = x + cat @ p("Wo")
        if spec.get("mlp", 0):
            m = layer_norm(x, p("ln2_g"), p("ln2_b")) if ln else x
            x = x + activation(m @ p("W1") + p("b1"), spec.get("activation", "gelu")) @ p("W2") \
                + p("b2")
        out[l] = {"Q": Q, "K": K, "V": V, "weights": P, "output": x.copy()}
    return out


def main():
    model, dump, text = sys.argv[1], sys.argv[2], sys.argv[3]
    with open(os.path.join(model, "model.json"), encoding="utf-8") as f:
        spec = json.load(f)
    if spec.get("format") != "attnviz-model":
        print("FAIL: not an attnviz model")
        return 1
    ids = tokens(spec, text)[-spec["context"]:]
    ref = forward(model, spec, ids)
    L = spec["layers"]
    worst, where = 0.0, ""
    pairs = [("X.npy", ref["X"])]
    for l in range(1, L + 1):
        sub = "layer%d/" % l if L > 1 else ""
        for name in ("Q", "K", "V", "weights"):
            pairs.append((sub + name + ".npy", ref[l][name]))
        if L > 1:
            pairs.append((sub + "layer_output.npy", ref[l]["output"]))
    pairs.append(("output.npy", ref[L]["output"]))
    for name, want in pairs:
        got = np.load(os.path.join(dump, name)).astype(np.float64)
        if got.shape != want.shape:
            print("FAIL: %s has shape %s, NumPy %s" % (name, got.shape, want.shape))
            return 1
        diff = float(np.max(np.abs(got - want)))
        if diff > worst:
            worst, where = diff, name
    if worst > 1e-5:
        print("FAIL: %s differs by %.3g" % (where, worst))
        return 1
    print("ok: %d tensors of %d layers, largest difference %.2g (%s)" %
          (len(pairs), L, worst, where or "-"))
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""torch_ref.py DIR - check attnviz's loss and gradients against PyTorch autograd.

DIR is what `attnviz train ... --dump-grads DIR` writes: a model folder (the
format of DESIGN.md), tokens.npy / targets.npy / mask.npy (B, n), loss.txt,
and grads/ (a model folder whose tensors are d loss / d parameter). The
forward pass is written here again FROM THE FORMAT, independently of the C
code, in float64; the loss is the mask-weighted mean cross-entropy.
Prints one line: "ok ..." or "FAIL ..." with the largest relative difference
(per tensor: max |c - torch| / max |torch|), and exits 1 on failure.
"""
import json
import math
import os
import sys

import numpy as np
import torch

TOL = 1e-4


def load(d, name):
    return np.load(os.path.join(d, name + ".npy"))


def sinusoid(n, d):
    pe = np.zeros((n, d))
    for pos in range(n):
        for i in range(0, d, 2):
            angle = pos / 10000 ** (i / d)
            pe[pos, i] = math.sin(angle)
            if i + 1 < d:
                pe[pos, i + 1] = math.cos(angle)
    return torch.tensor(pe)


def layernorm(x, g, b):
    m = x.mean(-1, keepdim=True)
    v = ((x - m) ** 2).mean(-1, keepdim=True)
    return (x - m) / torch.sqrt(v + 1e-5) * g + b


def gelu_tanh(x):
    return 0.5 * x * (1 + torch.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))


def forward(cfg, p, tok):
    B, n = tok.shape
    D, H = cfg["d_model"], cfg["heads"]
    dk = D // H
    x = p["embed"][tok]
    if cfg["pe"] == "sinusoidal":
        x = x + sinusoid(n, D)
    elif cfg["pe"] == "learned":
        x = x + p["pe"][:n]
    mask = torch.tril(torch.ones(n, n, dtype=torch.bool))
    for l in range(1, cfg["layers"] + 1):
        w = lambda k: p["layer%d/%s" % (l, k)]
        a = layernorm(x, w("ln1_g"), w("ln1_b")) if cfg["layernorm"] == "pre" else x
        q = (a @ w("Wq")).view(B, n, H, dk).transpose(1, 2)
        k = (a @ w("Wk")).view(B, n, H, dk).transpose(1, 2)
        v = (a @ w("Wv")).view(B, n, H, dk).transpose(1, 2)
        s = q @ k.transpose(-1, -2) / math.sqrt(dk)
        s = s.masked_fill(~mask, float("-inf"))
        att = torch.softmax(s, -1) @ v
        x = x + att.transpose(1, 2).reshape(B, n, D) @ w("Wo")
        if cfg["mlp"]:
            m = layernorm(x, w("ln2_g"), w("ln2_b")) if cfg["layernorm"] == "pre" else x
            h = m @ w("W1") + w("b1")
            h = torch.relu(h) if cfg["activation"] == "relu" else gelu_tanh(h)
            x = x + h @ w("W2") + w("b2")
    if cfg["layernorm"] == "pre":
        x = layernorm(x, p["ln_f_g"], p["ln_f_b"])
    return x @ p["unembed"]


def main():
    d = sys.argv[1]
    with open(os.path.join(d, "model.json"), encoding="utf-8") as f:
        cfg = json.load(f)
    names = [n[:-4] for n in os.listdir(d) if n.endswith(".npy")
             and n[:-4] not in ("tokens", "targets", "mask")]
    for l in range(1, cfg["layers"] + 1):
        names += ["layer%d/%s" % (l, n[:-4]) for n in os.listdir(os.path.join(d, "layer%d" % l))]
    p = {n: torch.tensor(load(d, n).astype(np.float64), requires_grad=True) for n in names}
    tok = torch.tensor(load(d, "tokens").astype(np.int64))
    tgt = torch.tensor(load(d, "targets").astype(np.int64))
    msk = torch.tensor(load(d, "mask").astype(np.float64))
    logits = forward(cfg, p, tok)
    V = logits.shape[-1]
    ce = torch.nn.functional.cross_entropy(logits.reshape(-1, V), tgt.reshape(-1),
                                           reduction="none")
    loss = (ce * msk.reshape(-1)).sum() / msk.sum()
    loss.backward()
    c_loss = float(open(os.path.join(d, "loss.txt")).read())
    worst, where = abs(c_loss - loss.item()) / abs(loss.item()), "loss"
    for n in sorted(names):
        g = p[n].grad.numpy()
        c = load(os.path.join(d, "grads"), n).astype(np.float64)
        if c.shape != g.shape:
            print("FAIL %s: gradient shape %s, torch %s" % (n, c.shape, g.shape))
            return 1
        rel = np.abs(c - g).max() / max(np.abs(g).max(), 1e-30)
        if rel > worst:
            worst, where = rel, n
    ok = worst <= TOL
    print("%s %d tensors, loss %.6f (torch %.6f), largest relative difference %.2e (%s)"
          % ("ok" if ok else "FAIL", len(names), c_loss, loss.item(), worst, where))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

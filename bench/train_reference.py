#!/usr/bin/env python3
"""train_reference.py - PyTorch training steps per second on the models and
batches of bench/train_bench.c, for `make bench-ref` beside `make bench`.

The models are DESIGN.md's (the same as tests/data/train/torch_ref.py, in
float32 here): the induction model (2 layers, d_model 32, 2 heads, context
32, batch 16, no MLP or LayerNorm, sinusoidal PE, vocabulary 26) and the
character model (4 layers, d_model 64, 4 heads, context 64, MLP 256 GELU,
pre-LayerNorm, batch 16, vocabulary: the distinct characters of README.md +
attnviz.1, counted here as train_bench counts them).
Each step: forward, cross-entropy, backward, gradient clipping to norm 1,
AdamW. Random token batches (the speed does not depend on the data).
Each figure is the best of WINDOWS windows, with the mean, as train_bench
prints its own. Threads: PyTorch's default and 1, both printed (on the
2-core bench machine the default is 1, and 2 threads measured 4x slower).

With --bench PATH (`make bench-ref` passes build/bench/train_bench), the
trainer's own steps per second (`train_bench --speed`) are measured just
before and just after PyTorch, and a closing table gives both beside
PyTorch's best figure (of its default threads and 1) and the ratios: the
machine's speed drifts from minute to minute, so the two sides of a ratio
come from the same few minutes.
"""
import argparse
import math
import os
import re
import subprocess
import sys
import time

import torch

WINDOWS = 5


class Net(torch.nn.Module):
    def __init__(s, V, D, H, L, T, W, ln):
        super().__init__()
        s.D, s.H, s.L, s.W, s.ln = D, H, L, W, ln
        std = 1 / math.sqrt(D)
        p = lambda *shape, std=std: torch.nn.Parameter(torch.empty(*shape).uniform_(-std * 3 ** .5, std * 3 ** .5))
        s.embed, s.unembed = p(V, D), p(D, V)
        s.Wq = torch.nn.ParameterList([p(D, D) for _ in range(L)])
        s.Wk = torch.nn.ParameterList([p(D, D) for _ in range(L)])
        s.Wv = torch.nn.ParameterList([p(D, D) for _ in range(L)])
        s.Wo = torch.nn.ParameterList([p(D, D) for _ in range(L)])
        if W:
            s.W1 = torch.nn.ParameterList([p(D, W) for _ in range(L)])
            s.b1 = torch.nn.ParameterList([torch.nn.Parameter(torch.zeros(W)) for _ in range(L)])
            s.W2 = torch.nn.ParameterList([p(W, D, std=1 / math.sqrt(W)) for _ in range(L)])
            s.b2 = torch.nn.ParameterList([torch.nn.Parameter(torch.zeros(D)) for _ in range(L)])
        if ln:
            s.ln1 = torch.nn.ModuleList([torch.nn.LayerNorm(D) for _ in range(L)])
            s.ln2 = torch.nn.ModuleList([torch.nn.LayerNorm(D) for _ in range(L)])
            s.lnf = torch.nn.LayerNorm(D)
        pe = torch.zeros(T, D)
        pos = torch.arange(T).unsqueeze(1).double()
        div = 10000 ** (torch.arange(0, D, 2).double() / D)
        pe[:, 0::2] = torch.sin(pos / div).float()
        pe[:, 1::2] = torch.cos(pos / div).float()
        s.register_buffer("pe", pe)
        s.register_buffer("mask", torch.tril(torch.ones(T, T, dtype=torch.bool)))

    def forward(s, tok):
        B, n = tok.shape
        D, H = s.D, s.H
        dk = D // H
        x = s.embed[tok] + s.pe[:n]
        for l in range(s.L):
            a = s.ln1[l](x) if s.ln else x
            q = (a @ s.Wq[l]).view(B, n, H, dk).transpose(1, 2)
            k = (a @ s.Wk[l]).view(B, n, H, dk).transpose(1, 2)
            v = (a @ s.Wv[l]).view(B, n, H, dk).transpose(1, 2)
            w = (q @ k.transpose(-1, -2) / math.sqrt(dk)).masked_fill(~s.mask[:n, :n], float("-inf"))
            x = x + (torch.softmax(w, -1) @ v).transpose(1, 2).reshape(B, n, D) @ s.Wo[l]
            if s.W:
                m = s.ln2[l](x) if s.ln else x
                x = x + torch.nn.functional.gelu(m @ s.W1[l] + s.b1[l], approximate="tanh") @ s.W2[l] + s.b2[l]
        if s.ln:
            x = s.lnf(x)
        return x @ s.unembed


def bench(name, V, D, H, L, T, W, ln, B, lr, steps):
    torch.manual_seed(1)
    net = Net(V, D, H, L, T, W, ln)
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=0.0)
    g = torch.Generator().manual_seed(2)
    data = [torch.randint(0, V, (B, T + 1), generator=g) for _ in range(8)]

    def step(i):
        b = data[i % 8]
        logits = net(b[:, :-1])
        loss = torch.nn.functional.cross_entropy(logits.reshape(-1, V), b[:, 1:].reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
        opt.step()

    for i in range(5):
        step(i)
    # WINDOWS windows as in train_bench.c: the best (least disturbed on a
    # shared machine) and the mean
    times = []
    for w in range(WINDOWS):
        t0 = time.perf_counter()
        for i in range(steps):
            step(i)
        times.append(time.perf_counter() - t0)
    print("pytorch %-10s %2d thread(s): %8.1f steps/s (best of %d windows of %d steps; "
          "mean %.1f)" % (name, torch.get_num_threads(), steps / min(times), WINDOWS, steps,
                          steps * WINDOWS / sum(times)), flush=True)
    return steps / min(times)


def attnviz_speed(path):
    """train_bench --speed's best steps/s: {(model, threads): steps/s}."""
    out = subprocess.run([path, "--speed"], capture_output=True, text=True)
    got = {}
    for line in out.stdout.splitlines():
        print(line, flush=True)
        m = re.match(r"train (\w+)\s+(\d+) threads?\s*:\s*([\d.]+) steps/s wall", line)
        if m:
            got[(m.group(1), int(m.group(2)))] = float(m.group(3))
    return got


def table(runs, torch_best):
    """attnviz's runs (before and after PyTorch) beside PyTorch's best."""
    print("\n| model | attnviz steps/s, 2 threads (1 thread) | PyTorch steps/s, best | "
          "attnviz faster |\n|---|---|---|---|")
    for model in ("induction", "chars"):
        ours = [r.get((model, 2)) or r.get((model, 1)) for r in runs]
        ones = [r.get((model, 1)) for r in runs]
        if None in ours or model not in torch_best:
            continue
        ratios = ["%.1fx" % (o / torch_best[model]) for o in ours]
        print("| %s | %s | %.1f | %s (target 3x) |" % (
            model, " then ".join("%.1f (%.1f)" % (o, t or 0) for o, t in zip(ours, ones)),
            torch_best[model], " then ".join(ratios)))


def text_vocab(files=("README.md", "attnviz.1")):
    """The character model's vocabulary size: train_bench's default text."""
    chars = set()
    for name in files:
        with open(name, encoding="utf-8") as f:
            chars |= set(f.read())
    return len(chars)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bench", help="train_bench, run before and after PyTorch")
    args = ap.parse_args()
    runs = []
    if args.bench and os.access(args.bench, os.X_OK):
        runs.append(attnviz_speed(args.bench))
    print("PyTorch %s, float32, CPU" % torch.__version__)
    V = text_vocab()
    best = {}
    for threads in (torch.get_num_threads(), 1):
        torch.set_num_threads(threads)
        for model, sizes in (("induction", (26, 32, 2, 2, 32, 0, False, 16, 1e-2, 100)),
                             ("chars", (V, 64, 4, 4, 64, 256, True, 16, 3e-3, 10))):
            best[model] = max(best.get(model, 0), bench(model, *sizes))
    if runs:
        runs.append(attnviz_speed(args.bench))
        table(runs, best)
    return 0


if __name__ == "__main__":
    sys.exit(main())

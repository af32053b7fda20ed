#!/usr/bin/env python3
"""bench/reference.py - the articles' MultiHeadAttention timed at the sizes of
`make bench`, for the side-by-side table in README.md "Performance".

NumPy: seed 000's softmax and MultiHeadAttention as printed (float64, weights
kept), d_model 512, 8 heads, batch 1, mask off and on. PyTorch, when it can be
imported: the same class written with torch tensors (float32, torch's default),
two threads like attnviz. Each line is `reference LIB n=N mask=M ms=T`, the
median of several runs; `reference LIB_pipeline` times the same forward for
the 10-token sentence of `bench pipeline` (d_model 32, 4 heads) in
microseconds, and `reference LIB_rss` gives the peak resident memory of a
child process doing one forward at n = 4096 beside its weight matrices.

Usage: python3 bench/reference.py [--max-n N] [--libs numpy,torch]
Nothing here is part of `make test`; run it by hand (`make bench-ref`).
"""
import argparse
import resource
import statistics
import subprocess
import sys
import time

D_MODEL, HEADS = 512, 8


# ---- seed 000's code, as printed -------------------------------------------

def numpy_model(np, d_model, heads):
    def softmax(x, axis=-1):
        exp_x = np.exp(x - np.max(x, axis=axis, keepdims=True))
        return exp_x / np.sum(exp_x, axis=axis, keepdims=True)

    class MultiHeadAttention:
        def __init__(self, d_model, num_heads):
            self.d_model = d_model
            self.num_heads = num_heads
            self.d_k = d_model // num_heads
            self.W_q = np.random.randn(d_model, d_model) * np.sqrt(2.0 / d_model)
            self.W_k = np.random.randn(d_model, d_model) * np.sqrt(2.0 / d_model)
            self.W_v = np.random.randn(d_model, d_model) * np.sqrt(2.0 / d_model)
            self.W_o = np.random.randn(d_model, d_model) * np.sqrt(2.0 / d_model)

        def split_heads(self, x):
            batch_size, seq_len, _ = x.shape
            x = x.reshape(batch_size, seq_len, self.num_heads, self.d_k)
            return x.transpose(0, 2, 1, 3)

        def combine_heads(self, x):
            batch_size, _, seq_len, _ = x.shape
            x = x.transpose(0, 2, 1, 3)
            return x.reshape(batch_size, seq_len, self.d_model)

        def forward(self, X, mask=None):
            Q = np.matmul(X, self.W_q)
            K = np.matmul(X, self.W_k)
            V = np.matmul(X, self.W_v)
            Q = self.split_heads(Q)
            K = self.split_heads(K)
            V = self.split_heads(V)
            d_k = Q.shape[-1]
            scores = np.matmul(Q, K.transpose(0, 1, 3, 2)) / np.sqrt(d_k)
            if mask is not None:
                scores = np.where(mask == 0, -1e9, scores)
            attention_weights = softmax(scores, axis=-1)
            attention_output = np.matmul(attention_weights, V)
            combined = self.combine_heads(attention_output)
            output = np.matmul(combined, self.W_o)
            return output, attention_weights

    np.random.seed(42)
    mha = MultiHeadAttention(d_model, heads)

    def run(n, masked):
        X = np.random.randn(1, n, d_model)
        mask = np.tril(np.ones((n, n))) if masked else None
        return lambda: mha.forward(X, mask)

    return run


# ---- the same class in PyTorch ----------------------------------------------

def torch_model(torch, d_model, heads):
    torch.set_num_threads(2)
    torch.manual_seed(42)
    std = (2.0 / d_model) ** 0.5
    W = [torch.randn(d_model, d_model) * std for _ in range(4)]
    d_k = d_model // heads

    def forward(X, mask):
        b, n, _ = X.shape
        Q, K, V = (torch.matmul(X, w).reshape(b, n, heads, d_k).transpose(1, 2) for w in W[:3])
        scores = torch.matmul(Q, K.transpose(-2, -1)) / d_k ** 0.5
        if mask is not None:
            scores = scores.masked_fill(mask == 0, -1e9)
        weights = torch.softmax(scores, dim=-1)
        out = torch.matmul(weights, V).transpose(1, 2).reshape(b, n, d_model)
        return torch.matmul(out, W[3]), weights

    def run(n, masked):
        X = torch.randn(1, n, d_model)
        mask = torch.tril(torch.ones(n, n)) if masked else None

        def call():
            with torch.no_grad():
                return forward(X, mask)
        return call

    return run


def load(lib, d_model, heads):
    try:
        if lib == "numpy":
            import numpy
            return numpy_model(numpy, d_model, heads)
        import torch
        return torch_model(torch, d_model, heads)
    except ImportError:
        return None


def time_ms(call, n):
    call()  # warm-up
    reps = 5 if n >= 1024 else 20 if n >= 256 else 200
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        call()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def child_rss(lib, n):
    """Peak RSS in MiB of a fresh process doing one forward at n."""
    code = ("import resource, sys; sys.path.insert(0, %r); import reference as r; "
            "r.load(%r, r.D_MODEL, r.HEADS)(%d, False)(); "
            "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)") % (
                sys.path[0], lib, n)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    return float(out.stdout.strip()) if out.returncode == 0 else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max-n", type=int, default=4096)
    ap.add_argument("--libs", default="numpy,torch")
    args = ap.parse_args()
    libs = args.libs.split(",")
    # Peak memory first, while this process is small: a child's ru_maxrss
    # starts from the size of the process it was forked from.
    rss = {lib: child_rss(lib, 4096) if args.max_n >= 4096 else None for lib in libs}
    for lib in libs:
        run = load(lib, D_MODEL, HEADS)
        if run is None:
            print("reference %s skipped reason=not_installed" % lib, flush=True)
            continue
        small = load(lib, 32, 4)(10, False)
        small()
        us = statistics.median(time_ms(small, 10) for _ in range(5)) * 1e3
        print("reference %s_pipeline n=10 d_model=32 heads=4 us=%.1f" % (lib, us), flush=True)
        for n in (10, 64, 256, 1024, 4096):
            if n > args.max_n:
                break
            for masked in (False, True):
                ms = time_ms(run(n, masked), n)
                print("reference %s n=%d mask=%s ms=%.3f" % (lib, n, "on" if masked else "off", ms),
                      flush=True)
        if rss[lib]:
            print("reference %s_rss n=4096 peak_mib=%.0f weights_mib=%.0f" %
                  (lib, rss[lib], HEADS * 4096 * 4096 * (8 if lib == "numpy" else 4) / 2**20),
                  flush=True)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""bench/reference.py - the articles' MultiHeadAttention timed at the sizes of
`make bench`, for the side-by-side table in README.md "Performance".

NumPy: seed 000's softmax and MultiHeadAttention as printed (float64, weights
kept), d_model 512, 8 heads, batch 1, mask off and on. PyTorch, when it can be
imported: the same class written with torch tensors (float32, torch's default),
two threads like attnviz. Each line is `reference LIB n=N mask=M ms=T`, the
median of several runs; `reference LIB_pipeline` times the same forward for
the 10-token sentence of `bench pipeline_whole` (d_model 32, 4 heads) in
microseconds, and `reference LIB_rss` gives the peak resident memory of a
child process doing one forward at n = 4096 beside its weight matrices.

With --bench PATH (`make bench-ref` passes build/bench/bench), attnviz's own
figures are measured first in the same run (`bench --model`: the machine, its
2-thread sgemm peak, the pipeline and the forward passes), and everything ends
in one table: attnviz beside NumPy and PyTorch, with how many times faster
attnviz is (target: at least 3x from n = 256 on), and the machine's limit
for each forward (its roofline time), so a row where 3x would need a time
under that limit says so instead of counting as a plain miss.

Usage: python3 bench/reference.py [--bench PATH] [--max-n N] [--libs numpy,torch]
Nothing here is part of `make test`; run it by hand (`make bench-ref`).
"""
import os
import re
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


def run_bench(path):
    """attnviz's figures from `bench --model`: {'machine': str, 'peak': str,
    'pipeline': us, (n, mask): (ms, roof_ratio)}."""
    if not path or not os.access(path, os.X_OK):
        print("reference attnviz skipped reason=no_bench_binary path=%s" % path, flush=True)
        return {}
    out = subprocess.run([path, "--model"], capture_output=True, text=True)
    got = {}
    for line in out.stdout.splitlines():
        print(line, flush=True)
        kv = dict(re.findall(r'(\w+)=("[^"]*"|\S+)', line))
        if line.startswith("bench machine"):
            got["machine"] = "%s, %s kernel %s (chosen by %s)" % (
                kv.get("cpu", "?").strip('"'), kv.get("blas", "?").strip('"'),
                kv.get("kernel", "?"), kv.get("chosen_by", "?"))
        elif line.startswith("bench peak_used") and "gflops" in kv:
            got["peak"] = "2-thread sgemm peak %s GFLOP/s" % kv["gflops"]
        elif line.startswith("bench pipeline_whole ") and "us" in kv:
            # the libraries' forward makes the outputs too: held to the
            # whole run, not to the keystroke's run of the weights alone
            got["pipeline"] = float(kv["us"])
        elif line.startswith("bench forward") and "ms" in kv:
            ms, roof = float(kv["ms"]), float(kv.get("roof_ratio", 0))
            roof_ms = float(kv["roof_ms"]) if "roof_ms" in kv else (ms / roof if roof else 0)
            got[(int(kv["n"]), kv["mask"])] = (ms, roof, roof_ms)
    return got


def table(ours, theirs, libs):
    """One Markdown table: attnviz beside each library, and the speed-up.

    The roofline column is the machine's limit for that forward: its
    floating-point operations at the 2-thread sgemm peak of the same run. A
    library whose time is under three times that limit cannot be beaten 3x on
    this machine by any program, and the row says so (notes after the table).
    """
    head = "| n | mask | attnviz ms | roofline ms | roofline ratio |"
    rule = "|---|---|---|---|---|"
    for lib in libs:
        head += " %s ms | attnviz faster |" % lib
        rule += "---|---|"
    print("\n%s; %s" % (ours.get("machine", "machine unknown"), ours.get("peak", "no peak")))
    print(head + "\n" + rule)
    if "pipeline" in ours:
        row = "| 10 (d_model 32, 4 heads) | off | %.1f us (text to grid, with outputs) | | |" % \
            ours["pipeline"]
        for lib in libs:
            us = theirs.get((lib, "pipeline"))
            row += (" %.1f us | %.1fx |" % (us, us / ours["pipeline"])) if us else " | |"
        print(row)
    notes = []
    for key in sorted(k for k in ours if isinstance(k, tuple)):
        n, mask = key
        ms, roof, roof_ms = ours[key]
        row = "| %d | %s | %.2f | %.2f | %.2f |" % (n, mask, ms, roof_ms, roof)
        for lib in libs:
            t = theirs.get((lib, n, mask))
            if not t:
                row += " | |"
                continue
            flag = ""
            if n >= 256 and t < 3 * ms:
                flag = " (< 3x)"
                if roof_ms and t < 3 * roof_ms:
                    flag = " (< 3x; 3x is past the roofline)"
                    notes.append("n=%d mask=%s: 3x faster than %s would take %.2f ms, under "
                                 "this machine's limit of %.2f ms for that forward" %
                                 (n, mask, lib, t / 3, roof_ms))
            row += " %.2f | %.1fx%s |" % (t, t / ms, flag)
        print(row)
    for note in notes:
        print("reference beyond_roofline " + note)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bench", default="build/bench/bench")
    ap.add_argument("--max-n", type=int, default=4096)
    ap.add_argument("--libs", default="numpy,torch")
    args = ap.parse_args()
    libs = args.libs.split(",")
    theirs = {}
    # Peak memory first, while this process is small: a child's ru_maxrss
    # starts from the size of the process it was forked from.
    rss = {lib: child_rss(lib, 4096) if args.max_n >= 4096 else None for lib in libs}
    ours = run_bench(args.bench)
    for lib in libs:
        run = load(lib, D_MODEL, HEADS)
        if run is None:
            print("reference %s skipped reason=not_installed" % lib, flush=True)
            continue
        small = load(lib, 32, 4)(10, False)
        small()
        us = statistics.median(time_ms(small, 10) for _ in range(5)) * 1e3
        theirs[(lib, "pipeline")] = us
        print("reference %s_pipeline n=10 d_model=32 heads=4 us=%.1f" % (lib, us), flush=True)
        for n in (10, 64, 256, 1024, 4096):
            if n > args.max_n:
                break
            for masked in (False, True):
                ms = time_ms(run(n, masked), n)
                theirs[(lib, n, "on" if masked else "off")] = ms
                print("reference %s n=%d mask=%s ms=%.3f" % (lib, n, "on" if masked else "off", ms),
                      flush=True)
        if rss[lib]:
            print("reference %s_rss n=4096 peak_mib=%.0f weights_mib=%.0f" %
                  (lib, rss[lib], HEADS * 4096 * 4096 * (8 if lib == "numpy" else 4) / 2**20),
                  flush=True)
    if ours:
        table(ours, theirs, libs)


if __name__ == "__main__":
    main()

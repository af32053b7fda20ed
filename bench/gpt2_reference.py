#!/usr/bin/env python3
"""bench/gpt2_reference.py - PyTorch's GPT-2 forward on the checkpoint `make
bench` measures, in the same run as attnviz's, for README.md "Performance".

First `bench --gpt2` (the machine, its 2-thread sgemm peak and attnviz's GPT-2
figures on the full-size random gpt2-shaped checkpoint, which it makes when
missing), then the same checkpoint read with scripts/gpt2-checkpoint.py's
reader and run by a plain PyTorch GPT-2 forward written here (no transformers
library): learned positions, pre-LayerNorm, the Conv1D products with their
biases, causal softmax attention (its weights kept, as attnviz keeps them),
GELU in its tanh form, final LayerNorm; no logits, as attnviz's whole forward.
Same lengths (n = 8, 32, 128, 512, 1,024), PyTorch on one thread and on two
(--threads: attnviz's forward takes both cores of a 2-core machine). Each line is
`reference torch_gpt2 n=N threads=T ms=W cpu_ms=C`, medians; the table gives
attnviz's speed-up by the wall clock and by processor time (the figure to read
when other programs share the cores). Target: at least 2x at n <= 128 and not
slower above.

Usage: python3 bench/gpt2_reference.py [--bench PATH] [--threads 1[,2]]
Nothing here is part of `make test`; run it by hand (`make bench-ref`).
"""
import argparse
import importlib.util
import os
import re
import statistics
import subprocess
import sys
import time

LENGTHS = (8, 32, 128, 512, 1024)
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_bench(path):
    """attnviz's figures from `bench --gpt2`: {'machine', 'peak', 'dir',
    'skipped', n: (ms, cpu_ms, roof_ms)}."""
    got = {}
    if not path or not os.access(path, os.X_OK):
        print("reference attnviz skipped reason=no_bench_binary path=%s" % path, flush=True)
        return got
    out = subprocess.run([path, "--gpt2"], capture_output=True, text=True, cwd=ROOT)
    for line in out.stdout.splitlines():
        print(line, flush=True)
        kv = dict(re.findall(r'(\w+)=("[^"]*"|\S+)', line))
        if line.startswith("bench machine"):
            got["machine"] = "%s, %s kernel %s (chosen by %s)" % (
                kv.get("cpu", "?").strip('"'), kv.get("blas", "?").strip('"'),
                kv.get("kernel", "?"), kv.get("chosen_by", "?"))
        elif line.startswith("bench peak ") and "gflops" in kv:
            got["peak"] = "2-thread sgemm peak %s GFLOP/s" % kv["gflops"]
        elif line.startswith("bench gpt2_model") and "dir" in kv:
            got["dir"] = kv["dir"]
        elif line.startswith("bench gpt2 skipped") or line.startswith("bench gpt2_checkpoint skipped"):
            got["skipped"] = line
        elif line.startswith("bench gpt2_forward") and "ms" in kv:
            got[int(kv["n"])] = (float(kv["ms"]), float(kv["cpu_ms"]), float(kv["roof_ms"]))
    return got


def load_reader():
    spec = importlib.util.spec_from_file_location(
        "gpt2_checkpoint", os.path.join(ROOT, "scripts", "gpt2-checkpoint.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def torch_gpt2(torch, w, cfg):
    """A plain GPT-2 forward over the float32 tensors w (names without the
    "transformer." prefix): ids (n,) -> the last layer's output after ln_f."""
    F = torch.nn.functional
    t = {k: torch.from_numpy(v) for k, v in w.items()}
    D, H, L = cfg["n_embd"], cfg["n_head"], cfg["n_layer"]
    eps, dk = cfg.get("layer_norm_epsilon", 1e-5), D // H

    def forward(ids):
        n = ids.shape[0]
        x = t["wte.weight"][ids] + t["wpe.weight"][:n]
        mask = torch.ones(n, n, dtype=torch.bool).tril()
        for l in range(L):
            p = "h.%d." % l
            a = F.layer_norm(x, (D,), t[p + "ln_1.weight"], t[p + "ln_1.bias"], eps)
            qkv = torch.addmm(t[p + "attn.c_attn.bias"], a, t[p + "attn.c_attn.weight"])
            q, k, v = (z.reshape(n, H, dk).transpose(0, 1) for z in qkv.split(D, dim=1))
            s = torch.matmul(q, k.transpose(1, 2)) / dk ** 0.5
            P = torch.softmax(s.masked_fill(~mask, float("-inf")), dim=-1)
            y = torch.matmul(P, v).transpose(0, 1).reshape(n, D)
            x = x + torch.addmm(t[p + "attn.c_proj.bias"], y, t[p + "attn.c_proj.weight"])
            m = F.layer_norm(x, (D,), t[p + "ln_2.weight"], t[p + "ln_2.bias"], eps)
            h = F.gelu(torch.addmm(t[p + "mlp.c_fc.bias"], m, t[p + "mlp.c_fc.weight"]),
                       approximate="tanh")
            x = x + torch.addmm(t[p + "mlp.c_proj.bias"], h, t[p + "mlp.c_proj.weight"])
        return F.layer_norm(x, (D,), t["ln_f.weight"], t["ln_f.bias"], eps)

    return forward


def time_torch(torch, forward, n, vocab):
    ids = torch.randint(0, vocab, (n,), generator=torch.Generator().manual_seed(5))
    reps = 3 if n >= 512 else 5
    with torch.no_grad():
        forward(ids)  # warm-up
        wall, cpu = [], []
        for _ in range(reps):
            t0, c0 = time.perf_counter(), time.process_time()
            forward(ids)
            wall.append((time.perf_counter() - t0) * 1e3)
            cpu.append((time.process_time() - c0) * 1e3)
    return statistics.median(wall), statistics.median(cpu)


def table(ours, theirs, threads):
    print("\n%s; %s; load average %s" % (ours.get("machine", "machine unknown"),
                                         ours.get("peak", "no peak"), load_average()))
    head = "| n | attnviz ms (cpu ms) | roofline ms |"
    rule = "|---|---|---|"
    for th in threads:
        head += " PyTorch %d-thread ms (cpu ms) | attnviz faster: wall (cpu) |" % th
        rule += "---|---|"
    print(head + "\n" + rule)
    for n in LENGTHS:
        if n not in ours:
            continue
        ms, cms, roof = ours[n]
        row = "| %d | %.1f (%.1f) | %.1f |" % (n, ms, cms, roof)
        for th in threads:
            got = theirs.get((n, th))
            if not got:
                row += " | |"
                continue
            want = 2.0 if n <= 128 else 1.0
            fast, cfast = got[0] / ms, got[1] / cms
            flag = "" if fast >= want else " (< %gx)" % want
            row += " %.1f (%.1f) | %.2fx (%.2fx)%s |" % (got[0], got[1], fast, cfast, flag)
        print(row)


def load_average():
    try:
        return " ".join(open("/proc/loadavg").read().split()[:3])
    except OSError:
        return "?"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bench", default="build/bench/bench")
    ap.add_argument("--threads", default="1,2")
    args = ap.parse_args()
    threads = [int(x) for x in args.threads.split(",")]
    print("reference load_average before=%s" % load_average(), flush=True)
    ours = run_bench(os.path.abspath(args.bench) if os.path.exists(args.bench) else args.bench)
    if "dir" not in ours:
        print("reference torch_gpt2 skipped reason=%s" %
              ("attnviz_skipped" if "skipped" in ours else "no_checkpoint"), flush=True)
        return
    try:
        import torch
    except ImportError:
        print("reference torch_gpt2 skipped reason=not_installed", flush=True)
        return
    w, cfg = load_reader().read_folder(ours["dir"])
    forward = torch_gpt2(torch, w, cfg)
    theirs = {}
    for th in threads:
        torch.set_num_threads(th)
        for n in LENGTHS:
            ms, cms = time_torch(torch, forward, n, cfg["vocab_size"])
            theirs[(n, th)] = (ms, cms)
            print("reference torch_gpt2 n=%d threads=%d ms=%.1f cpu_ms=%.1f torch=%s" %
                  (n, th, ms, cms, torch.__version__), flush=True)
    print("reference load_average after=%s" % load_average(), flush=True)
    table(ours, theirs, threads)


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""gpt2_ref.py DIR DUMP - a Hugging Face GPT-2 folder's forward in float64
NumPy, against what `attnviz --model DIR --dump DUMP TEXT` wrote.

The ids are attnviz's own (DUMP/ids.npy: the tokenizer is checked on its
own, against GPT-2's, by bpe_gpt2.sh); the weights are read back from the
folder's safetensors by scripts/gpt2-checkpoint.py's reader (F16 and BF16
widened exactly as attnviz does). Checks every layer's every head's weights
within 1e-5, the last position's logits within 1e-4 (relative to the logits'
spread), rows summing to 1 and masked weights exactly 0, and the value-
weighted norms within 1e-4 relative, and the logit lens (lib/lens_ref.py:
every cell within 1e-4; row L's ids those of logits.npy). Prints "ok - ..." / "not ok - ..."
lines; exit status 0 when all are ok.
"""
import importlib.util
import os
import sys

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "ckpt", os.path.join(here, "..", "..", "..", "scripts", "gpt2-checkpoint.py"))
ckpt = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ckpt)
sys.path.insert(0, here)
import lens_ref  # noqa: E402


def layer_norm(x, g, b, eps):
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * g + b


def gelu_tanh(x):
    return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x ** 3)))


def forward(w, cfg, ids):
    """Attention (L, H, n, n), norms (L, H, n, n), the last logits and the
    lens's logits (L+1, n, V): LN_f of every layer's residual stream."""
    L, D, H = cfg["n_layer"], cfg["n_embd"], cfg["n_head"]
    eps = cfg.get("layer_norm_epsilon", 1e-5)
    n, d_k = len(ids), D // H
    f = {k: v.astype(np.float64) for k, v in w.items()}
    x = f["wte.weight"][ids] + f["wpe.weight"][:n]
    mask = np.tril(np.ones((n, n), dtype=bool))
    att = np.zeros((L, H, n, n))
    norms = np.zeros((L, H, n, n))
    streams = []
    for l in range(L):
        streams.append(x)
        p = "h.%d." % l
        a = layer_norm(x, f[p + "ln_1.weight"], f[p + "ln_1.bias"], eps)
        qkv = a @ f[p + "attn.c_attn.weight"] + f[p + "attn.c_attn.bias"]
        q, k, v = (qkv[:, c * D:(c + 1) * D].reshape(n, H, d_k).transpose(1, 0, 2)
                   for c in range(3))
        s = np.where(mask, q @ k.transpose(0, 2, 1) / np.sqrt(d_k), -np.inf)
        e = np.exp(s - s.max(axis=-1, keepdims=True))
        att[l] = e / e.sum(axis=-1, keepdims=True)
        wo = f[p + "attn.c_proj.weight"]
        for h in range(H):
            vo = v[h] @ wo[h * d_k:(h + 1) * d_k]  # (n, D): row j is V_j,h W_O,h
            norms[l, h] = att[l, h] * np.linalg.norm(vo, axis=-1)[None, :]
        concat = (att[l] @ v).transpose(1, 0, 2).reshape(n, D)
        x = x + concat @ wo + f[p + "attn.c_proj.bias"]
        m = layer_norm(x, f[p + "ln_2.weight"], f[p + "ln_2.bias"], eps)
        x = x + gelu_tanh(m @ f[p + "mlp.c_fc.weight"] + f[p + "mlp.c_fc.bias"]) \
            @ f[p + "mlp.c_proj.weight"] + f[p + "mlp.c_proj.bias"]
    streams.append(x)
    unembed = f["lm_head.weight"].T
    lens = np.stack([layer_norm(s, f["ln_f.weight"], f["ln_f.bias"], eps) @ unembed
                     for s in streams])
    last = layer_norm(x[-1], f["ln_f.weight"], f["ln_f.bias"], eps)
    return att, norms, last @ unembed, lens


def main():
    folder, dump = sys.argv[1], sys.argv[2]
    w, cfg = ckpt.read_folder(folder)
    ids = np.load(os.path.join(dump, "ids.npy"))
    att, norms, logits, lens = forward(w, cfg, ids)
    got = np.load(os.path.join(dump, "attention.npy")).astype(np.float64)
    got_logits = np.load(os.path.join(dump, "logits.npy")).astype(np.float64)
    got_norms = np.load(os.path.join(dump, "norms.npy")).astype(np.float64)
    n = len(ids)
    bad = 0

    def check(ok, what):
        nonlocal bad
        bad += not ok
        print(("ok - " if ok else "not ok - ") + what)

    check(got.shape == att.shape, "attention.npy has shape %s (want %s)" % (got.shape, att.shape))
    if got.shape != att.shape:
        return 1
    err = np.abs(got - att).max()
    check(err <= 1e-5, "every head's weights within 1e-5 of float64 NumPy (largest %.2g)" % err)
    upper = got[..., np.triu_indices(n, 1)[0], np.triu_indices(n, 1)[1]]
    check(not upper.any(), "masked weights exactly 0")
    rows = np.abs(got.sum(-1) - 1).max()
    check(rows <= 1e-5, "rows sum to 1 (largest error %.2g)" % rows)
    spread = max(1.0, float(np.abs(logits).max()))
    lerr = np.abs(got_logits - logits).max() / spread
    check(got_logits.shape == logits.shape and lerr <= 1e-4,
          "the last position's %d logits within 1e-4 (largest %.2g of their scale)"
          % (logits.shape[0], lerr))
    nerr = np.abs(got_norms - norms).max() / max(1e-12, np.abs(norms).max())
    check(nerr <= 1e-4, "value-weighted norms within 1e-4 relative (largest %.2g)" % nerr)
    for ok, what in lens_ref.check(lens, dump):
        check(ok, "lens: " + what)
    # row L at the last position is the distribution of logits.npy, the same ids
    own = np.argsort(-got_logits, kind="stable")[:lens_ref.K]
    last_ids = np.load(os.path.join(dump, "lens_ids.npy"))[-1, -1]
    check(bool((own == last_ids).all()), "lens: row L's ids at the last position are "
          "logits.npy's ten largest")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

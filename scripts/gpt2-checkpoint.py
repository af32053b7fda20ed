#!/usr/bin/python3
"""gpt2-checkpoint.py - write a random GPT-2-shaped Hugging Face folder.

    gpt2-checkpoint.py OUT [--size small|gpt2] [--layers L --d-model D --heads H
                        --vocab V --ctx T --inner F] [--seed S]
                        [--dtype f32|f16|bf16] [--no-prefix] [--misalign]
                        [--untied] [--shards K] [--shuffle] [--buffers]
                        [--malformed KIND] [--tokenizer DIR]

OUT gets config.json, model.safetensors (or K shards and
model.safetensors.index.json) and a tokenizer, so that `attnviz --model OUT`
opens it as it is. The tokenizer is DIR's vocab.json and merges.txt (or its
tokenizer.json) with --tokenizer DIR (GPT-2's own, from a copy of gpt2);
otherwise a small byte-level BPE of GPT-2's form learned from a paragraph of
English (256 byte tokens, up to 500 merges, <|endoftext|>; fewer merges when
--vocab is smaller), not GPT-2's ids. The weights have the real tensor names of a
GPT2LMHeadModel save ("transformer.h.0.attn.c_attn.weight", ... and, with
--untied, "lm_head.weight"). Weights are drawn wide enough that attention heads
are peaked (scores of standard deviation about 4). --size small (the default)
is 3 layers, d_model 48, 4 heads, vocab 50257, 1024 positions; --size gpt2 is
the real gpt2's 124M parameters (about 500 MB in float32: write it under /tmp,
never in the repository). --misalign pads the header so that the data begins
at an offset that is 3 modulo 4 (as the real gpt2 file's 14,291). --shuffle
writes the data in another order than the header's. --buffers adds the
attention buffers older saves hold (h.N.attn.bias, (1, 1, T, T) float32, and
h.N.attn.masked_bias), as the hub's gpt2 file does. --malformed KIND writes a
broken variant (KINDS below) for the refusal tests.

Python users: read_safetensors(path) gives {name: float32 array} (F16 and BF16
converted), and read_folder(dir) the whole checkpoint with the prefix stripped
and lm_head tied when absent or tied by config.json: what attnviz's reader
should produce.
Needs only NumPy (Debian's python3-numpy).
"""
import argparse
import json
import os
import struct
import sys

import numpy as np

KINDS = ["nan", "inf", "missing", "shape", "dtype", "past-end", "hole", "overlap", "json",
         "utf8", "pytorch", "scale-attn", "no-scale", "cross-attn", "activation", "mixed-prefix",
         "indivisible", "extra-layer", "index-wrong-shard", "huge", "untied-no-head"]

SIZES = {"small": dict(layers=3, d_model=48, heads=4, vocab=50257, ctx=1024),
         "gpt2": dict(layers=12, d_model=768, heads=12, vocab=50257, ctx=1024)}

DTYPES = {"f32": "F32", "f16": "F16", "bf16": "BF16"}


def to_bf16_bits(a):
    """float32 to bfloat16 bits, rounding to nearest even."""
    u = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
    u = (u + 0x7FFF + ((u >> 16) & 1)) >> 16
    return u.astype(np.uint16)


def bf16_bits_to_f32(b):
    return (b.astype(np.uint32) << 16).view(np.float32)


def encode(a, dtype):
    """The little-endian bytes of float32 array a in dtype F32, F16 or BF16."""
    if dtype == "F32":
        return np.ascontiguousarray(a, dtype="<f4").tobytes()
    if dtype == "F16":
        return np.ascontiguousarray(a, dtype="<f2").tobytes()
    if dtype == "BF16":
        return to_bf16_bits(a).astype("<u2").tobytes()
    raise ValueError(dtype)


def write_safetensors(path, tensors, misalign=False, shuffle=False, metadata=None):
    """tensors: list of (name, float32 array, dtype). Data in list order (or
    reversed with shuffle); the header padded with spaces so that the data
    begins at a multiple of 8, or at 3 modulo 4 with misalign."""
    order = list(reversed(tensors)) if shuffle else list(tensors)
    blobs, offsets, at = [], {}, 0
    for name, a, dt in order:
        b = encode(a, dt)
        offsets[name] = (at, at + len(b))
        blobs.append(b)
        at += len(b)
    header = {"__metadata__": metadata or {"format": "pt"}}
    for name, a, dt in tensors:
        header[name] = {"dtype": dt, "shape": list(a.shape), "data_offsets": list(offsets[name])}
    text = json.dumps(header, separators=(",", ":")).encode()
    want = 3 if misalign else 0
    mod = 4 if misalign else 8
    text += b" " * ((want - (8 + len(text))) % mod)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for b in blobs:
            f.write(b)
    return 8 + len(text)


def read_safetensors(path):
    """{name: float32 array} of a safetensors file (F32, F16, BF16)."""
    with open(path, "rb") as f:
        raw = f.read()
    n = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8:8 + n])
    base = 8 + n
    out = {}
    for name, t in header.items():
        if name == "__metadata__":
            continue
        b, e = t["data_offsets"]
        buf = raw[base + b:base + e]
        if t["dtype"] == "F32":
            a = np.frombuffer(buf, dtype="<f4").astype(np.float32)
        elif t["dtype"] == "F16":
            a = np.frombuffer(buf, dtype="<f2").astype(np.float32)
        elif t["dtype"] == "BF16":
            a = bf16_bits_to_f32(np.frombuffer(buf, dtype="<u2"))
        else:
            raise ValueError("%s: dtype %s" % (name, t["dtype"]))
        out[name] = a.reshape(t["shape"])
    return out


def read_folder(d):
    """The checkpoint in DIR as attnviz reads it: {name without "transformer.":
    float32 array}, with "lm_head.weight" equal to wte when absent or when
    config.json ties them (transformers' default), and the config."""
    with open(os.path.join(d, "config.json")) as f:
        cfg = json.load(f)
    files = ["model.safetensors"]
    idx = os.path.join(d, "model.safetensors.index.json")
    if not os.path.exists(os.path.join(d, files[0])):
        with open(idx) as f:
            files = sorted(set(json.load(f)["weight_map"].values()))
    w = {}
    for name in files:
        for k, a in read_safetensors(os.path.join(d, name)).items():
            w[k[len("transformer."):] if k.startswith("transformer.") else k] = a
    if cfg.get("tie_word_embeddings", True):
        w["lm_head.weight"] = w["wte.weight"]
    w.setdefault("lm_head.weight", w["wte.weight"])
    return w, cfg


def make_weights(L, D, H, V, T, F, rng):
    """GPT-2's tensors (names without prefix) as float32, in HF's order."""
    def n(*shape, std=1.0, mean=0.0):
        return (mean + std * rng.standard_normal(shape, dtype=np.float32)).astype(np.float32)
    w = [("wte.weight", n(V, D, std=0.5)), ("wpe.weight", n(T, D, std=0.3))]
    for l in range(L):
        p = "h.%d." % l
        w += [(p + "ln_1.weight", n(D, std=0.1, mean=1.0)), (p + "ln_1.bias", n(D, std=0.1)),
              # scores Q K^T / sqrt(d_k) of standard deviation about 4: peaked heads
              (p + "attn.c_attn.weight", n(D, 3 * D, std=2.0 / np.sqrt(D))),
              (p + "attn.c_attn.bias", n(3 * D, std=0.1)),
              (p + "attn.c_proj.weight", n(D, D, std=0.5 / np.sqrt(D))),
              (p + "attn.c_proj.bias", n(D, std=0.05)),
              (p + "ln_2.weight", n(D, std=0.1, mean=1.0)), (p + "ln_2.bias", n(D, std=0.1)),
              (p + "mlp.c_fc.weight", n(D, F, std=1.0 / np.sqrt(D))),
              (p + "mlp.c_fc.bias", n(F, std=0.1)),
              (p + "mlp.c_proj.weight", n(F, D, std=0.5 / np.sqrt(F))),
              (p + "mlp.c_proj.bias", n(D, std=0.05))]
    w += [("ln_f.weight", n(D, std=0.1, mean=1.0)), ("ln_f.bias", n(D, std=0.1))]
    return w


TEXT = """The cat sat on the mat because it was tired. Attention lets every token look
at the tokens before it and decide which of them matter. A transformer stacks layers of
attention heads; each head has its own queries, keys and values. The teacher typed a
sentence and the students watched the weights move as the words changed. When the model
reads the word it, one head looks back at the animal the sentence is about. Language
models predict the next token from the ones they have seen, one step at a time."""


def bytes_to_unicode():
    """GPT-2's printable alphabet for the 256 bytes."""
    bs = list(range(33, 127)) + list(range(161, 173)) + list(range(174, 256))
    cs, n = bs[:], 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, map(chr, cs)))


def small_tokenizer(vocab_size):
    """(vocab dict, merges list): a byte-level BPE learned greedily on TEXT."""
    import re
    b2u = bytes_to_unicode()
    vocab = {b2u[b]: i for i, b in enumerate(sorted(b2u, key=lambda b: ord(b2u[b])))}
    words = [tuple(b2u[b] for b in w.encode()) for w in
             re.findall(r" ?[A-Za-z]+| ?[0-9]+| ?[^\sA-Za-z0-9]+|\s+", " ".join(TEXT.split()))]
    merges, budget = [], min(500, vocab_size - 257)
    while len(merges) < budget:
        pairs = {}
        for w in words:
            for p in zip(w, w[1:]):
                pairs[p] = pairs.get(p, 0) + 1
        if not pairs:
            break
        best = max(pairs, key=lambda p: (pairs[p], p))
        if pairs[best] < 2:
            break
        merges.append(best)
        vocab[best[0] + best[1]] = len(vocab)
        out = []
        for w in words:
            k, m = 0, []
            while k < len(w):
                if k + 1 < len(w) and (w[k], w[k + 1]) == best:
                    m.append(w[k] + w[k + 1])
                    k += 2
                else:
                    m.append(w[k])
                    k += 1
            out.append(tuple(m))
        words = out
    vocab["<|endoftext|>"] = len(vocab)
    return vocab, merges


def write_tokenizer(out, vocab_size, source):
    """OUT's tokenizer: source's files copied, or small_tokenizer's."""
    import shutil
    if source:
        names = ["vocab.json", "merges.txt"]
        if not all(os.path.exists(os.path.join(source, n)) for n in names):
            names = ["tokenizer.json"]
        for n in names:
            shutil.copyfile(os.path.join(source, n), os.path.join(out, n))
        return
    if vocab_size < 257:
        sys.exit("gpt2-checkpoint.py: --vocab %d is below the 257 tokens of a byte-level "
                 "tokenizer: give --tokenizer DIR" % vocab_size)
    vocab, merges = small_tokenizer(vocab_size)
    with open(os.path.join(out, "vocab.json"), "w", encoding="utf-8") as f:
        json.dump(vocab, f, ensure_ascii=False)
    with open(os.path.join(out, "merges.txt"), "w", encoding="utf-8") as f:
        f.write("#version: 0.2\n" + "".join("%s %s\n" % m for m in merges))


def config(a):
    return {"architectures": ["GPT2LMHeadModel"], "activation_function": "gelu_new",
            "attn_pdrop": 0.1, "bos_token_id": 50256, "embd_pdrop": 0.1,
            "eos_token_id": 50256, "initializer_range": 0.02, "layer_norm_epsilon": 1e-05,
            "model_type": "gpt2", "n_ctx": a.ctx, "n_embd": a.d_model, "n_head": a.heads,
            "n_inner": a.inner, "n_layer": a.layers, "n_positions": a.ctx,
            "resid_pdrop": 0.1, "scale_attn_weights": True, "summary_activation": None,
            "task_specific_params": {"text-generation": {"do_sample": True, "max_length": 50}},
            "tie_word_embeddings": not a.untied, "vocab_size": a.vocab}


def break_config(cfg, kind):
    if kind == "scale-attn":
        cfg["scale_attn_by_inverse_layer_idx"] = True
    elif kind == "no-scale":
        cfg["scale_attn_weights"] = False
    elif kind == "cross-attn":
        cfg["add_cross_attention"] = True
    elif kind == "activation":
        cfg["activation_function"] = "relu"
    elif kind == "indivisible":
        cfg["n_head"] = 5
    elif kind == "untied-no-head":  # untied, yet no lm_head.weight written
        cfg["tie_word_embeddings"] = False


def break_tensors(w, kind, a, rng):
    """Malformed tensor lists (names already prefixed)."""
    names = [n for n, _ in w]
    if kind in ("nan", "inf"):
        k = names.index(pre(a, "h.1.mlp.c_fc.weight"))
        arr = w[k][1].copy()
        arr.flat[rng.integers(arr.size)] = np.nan if kind == "nan" else -np.inf
        w[k] = (w[k][0], arr)
    elif kind == "huge":  # finite, but far past what the attention's floats hold
        k = names.index(pre(a, "h.1.attn.c_attn.weight"))
        arr = w[k][1].copy()
        arr.flat[7] = -3e38
        w[k] = (w[k][0], arr)
    elif kind == "missing":
        del w[names.index(pre(a, "h.2.ln_2.bias"))]
    elif kind == "shape":
        k = names.index(pre(a, "h.0.attn.c_proj.weight"))
        w[k] = (w[k][0], w[k][1][:, :-1].copy())
    elif kind == "mixed-prefix":
        k = names.index(pre(a, "ln_f.bias"))
        w[k] = ("ln_f.bias" if a.prefix else "transformer.ln_f.bias", w[k][1])
    elif kind == "extra-layer":
        w.append((pre(a, "h.%d.ln_1.weight" % a.layers), w[2][1]))
    return w


def corrupt_file(path, kind, rng):
    """Byte-level damage of a written safetensors file."""
    with open(path, "rb") as f:
        raw = bytearray(f.read())
    n = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8:8 + n])
    if kind == "past-end":
        raw[:8] = struct.pack("<Q", len(raw))
    elif kind == "json":
        raw[8:8 + n] = raw[8:8 + n].replace(b'"shape":', b'"shape" ', 1)
    elif kind == "utf8":
        k = raw.index(b"wte.weight")
        raw[k] = 0xFF
    elif kind in ("hole", "overlap", "dtype"):
        names = sorted((t["data_offsets"][0], nm) for nm, t in header.items()
                       if nm != "__metadata__")
        nm = names[len(names) // 2][1]
        t = header[nm]
        if kind == "dtype":
            t["dtype"] = "F31"
        else:
            d = 4 if kind == "hole" else -4
            t["data_offsets"] = [t["data_offsets"][0] + d, t["data_offsets"][1] + d]
        text = json.dumps(header, separators=(",", ":")).encode()
        text += b" " * max(0, n - len(text))
        raw = raw[:8] + text[:n] + raw[8 + n:] if len(text) <= n else \
            bytearray(struct.pack("<Q", len(text))) + text + raw[8 + n:]
    with open(path, "wb") as f:
        f.write(raw)


def pre(a, name):
    return "transformer." + name if a.prefix else name


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("--size", choices=SIZES, default="small")
    for k in ("layers", "d-model", "heads", "vocab", "ctx", "inner", "seed"):
        ap.add_argument("--" + k, type=int)
    ap.add_argument("--dtype", choices=DTYPES, default="f32")
    ap.add_argument("--no-prefix", dest="prefix", action="store_false")
    ap.add_argument("--misalign", action="store_true")
    ap.add_argument("--untied", action="store_true")
    ap.add_argument("--shuffle", action="store_true")
    ap.add_argument("--buffers", action="store_true")
    ap.add_argument("--shards", type=int, default=1)
    ap.add_argument("--malformed", choices=KINDS)
    ap.add_argument("--tokenizer", metavar="DIR")
    a = ap.parse_args(argv)
    for k, v in SIZES[a.size].items():
        if getattr(a, k) is None:
            setattr(a, k, v)
    F = a.inner or 4 * a.d_model
    rng = np.random.default_rng(a.seed if a.seed is not None else 1)
    os.makedirs(a.out, exist_ok=True)
    cfg = config(a)
    break_config(cfg, a.malformed)
    with open(os.path.join(a.out, "config.json"), "w") as f:
        json.dump(cfg, f, indent=2)
    write_tokenizer(a.out, a.vocab, a.tokenizer)
    w = [(pre(a, n), x) for n, x in make_weights(a.layers, a.d_model, a.heads, a.vocab, a.ctx,
                                                 F, rng)]
    if a.untied:
        w.append(("lm_head.weight", (0.5 * rng.standard_normal((a.vocab, a.d_model),
                                                              dtype=np.float32))))
    w = break_tensors(w, a.malformed, a, rng)
    dt = DTYPES[a.dtype]
    tensors = [(n, x, dt) for n, x in w]
    if a.buffers:  # float32 whatever the weights' dtype, as the hub's files
        mask = np.tril(np.ones((a.ctx, a.ctx), dtype=np.float32)).reshape(1, 1, a.ctx, a.ctx)
        for l in range(a.layers):
            tensors += [(pre(a, "h.%d.attn.bias" % l), mask, "F32"),
                        (pre(a, "h.%d.attn.masked_bias" % l), np.array(-1e4, np.float32), "F32")]
    if a.malformed == "pytorch":
        open(os.path.join(a.out, "pytorch_model.bin"), "wb").write(b"PK\x03\x04")
        return 0
    if a.shards <= 1:
        path = os.path.join(a.out, "model.safetensors")
        write_safetensors(path, tensors, a.misalign, a.shuffle)
        if a.malformed in ("past-end", "json", "utf8", "hole", "overlap", "dtype"):
            corrupt_file(path, a.malformed, rng)
        return 0
    per = -(-len(tensors) // a.shards)
    wmap, total = {}, 0
    for s in range(a.shards):
        name = "model-%05d-of-%05d.safetensors" % (s + 1, a.shards)
        part = tensors[s * per:(s + 1) * per]
        write_safetensors(os.path.join(a.out, name), part, a.misalign, a.shuffle)
        for n, x, _ in part:
            wmap[n] = name
            total += x.size * (4 if dt == "F32" else 2)
    if a.malformed == "index-wrong-shard":
        wmap[tensors[0][0]] = "model-%05d-of-%05d.safetensors" % (a.shards, a.shards)
    with open(os.path.join(a.out, "model.safetensors.index.json"), "w") as f:
        json.dump({"metadata": {"total_size": total}, "weight_map": wmap}, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/python3
"""bert-checkpoint.py - write a random BERT-family Hugging Face folder.

    bert-checkpoint.py OUT [--arch bert|distilbert] [--size tiny|minilm|base]
                       [--layers L --d-model D --heads H --d-ff F --vocab V
                        --pos T --types Y] [--seed S] [--dtype f32|f16|bf16]
                       [--no-prefix] [--no-mlm] [--pooler] [--gamma]
                       [--decoder] [--own-decoder] [--tie absent|true|false]
                       [--position-ids] [--st root|sub]
                       [--tokenizer-json] [--cased] [--malformed KIND]

OUT gets config.json, model.safetensors and a tokenizer (the fixture
vocabulary tests/data/wordpiece/vocab.txt, 1,862 tokens, as vocab.txt or
with --tokenizer-json as a tokenizer.json WordPiece model;
tokenizer_config.json with do_lower_case, false with --cased), so that
`attnviz --model OUT` opens it as it is. The tensors have the real names and
shapes of a BertForMaskedLM save ("bert.encoder.layer.0.attention.self.query.weight",
"cls.predictions.transform.dense.weight", ...) or a DistilBertForMaskedLM one
("distilbert.transformer.layer.0.attention.q_lin.weight", "vocab_transform.weight",
...): nn.Linear weights (out, in). The decoder is tied to the word embeddings
and not saved, as Hugging Face saves it, unless --decoder; --own-decoder saves
one of its own values, which transformers ignores while config.json ties it
("tie_word_embeddings" absent or true, --tie); --tie false unties it in
config.json and saves a decoder of its own (read in place of the word
embeddings). --no-prefix writes
a bare BertModel's names (the sentence-transformers save), --no-mlm leaves the
masked-LM head out, --pooler adds pooler.dense, --gamma names LayerNorm's
parameters gamma and beta (older checkpoints), --position-ids adds the int64
embeddings.position_ids buffer. --st root writes the sentence-transformers
layout (modules.json, 1_Pooling/config.json, the BERT in the root); --st sub
puts the BERT in 0_BERT/ as older sentence-transformers folders do.

Sizes: tiny (the default: 2 layers, d_model 32, 4 heads, d_ff 64, 64
positions, vocabulary 1,862), minilm (all-MiniLM-L6-v2's: 6 layers, 384, 12
heads, 1,536, 512 positions, 30,522), base (bert-base's or
distilbert-base's: 12 or 6 layers, 768, 12 heads, 3,072). Weights are drawn
so that the heads are peaked (scores of standard deviation about 4, as
gpt2-checkpoint.py's).

--malformed KIND writes a broken variant (KINDS below) for the refusal
tests. Python users: read_folder(dir) gives ({name without prefix: float32
array}, config) as attnviz should read it. Needs only NumPy.
"""
import argparse
import importlib.util
import json
import os
import shutil
import struct
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("gpt2ck", os.path.join(HERE, "gpt2-checkpoint.py"))
gpt2ck = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gpt2ck)

FIXTURE_VOCAB = os.path.join(HERE, "..", "tests", "data", "wordpiece", "vocab.txt")

KINDS = ["nan", "inf", "missing", "shape", "dtype", "mixed-prefix", "extra-layer", "json",
         "duplicate-key", "position-type", "activation", "is-decoder", "cross-attn",
         "sinusoidal", "indivisible", "types-zero", "pytorch", "no-config", "no-vocab",
         "vocab-too-big", "modules-json", "modules-none", "modules-escape", "half-head",
         "no-unk", "untied-no-decoder"]

SIZES = {"tiny": dict(layers=2, d_model=32, heads=4, d_ff=64, pos=64, vocab=1862),
         "minilm": dict(layers=6, d_model=384, heads=12, d_ff=1536, pos=512, vocab=30522),
         "base": dict(layers=12, d_model=768, heads=12, d_ff=3072, pos=512, vocab=30522)}
DTYPES = {"f32": "F32", "f16": "F16", "bf16": "BF16"}

BERT_LAYER = ["attention.self.query", "attention.self.key", "attention.self.value",
              "attention.output.dense", "attention.output.LayerNorm", "intermediate.dense",
              "output.dense", "output.LayerNorm"]
DISTIL_LAYER = ["attention.q_lin", "attention.k_lin", "attention.v_lin", "attention.out_lin",
                "sa_layer_norm", "ffn.lin1", "ffn.lin2", "output_layer_norm"]


def write_st(path, tensors):
    """tensors: list of (name, array, dtype) with dtype F32, F16, BF16 or I64."""
    blobs, header, at = [], {"__metadata__": {"format": "pt"}}, 0
    for name, a, dt in tensors:
        b = (np.ascontiguousarray(a, dtype="<i8").tobytes() if dt == "I64"
             else gpt2ck.encode(a, dt))
        header[name] = {"dtype": dt, "shape": list(a.shape), "data_offsets": [at, at + len(b)]}
        blobs.append(b)
        at += len(b)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((-(8 + len(text))) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text)
        for b in blobs:
            f.write(b)


def read_st(path):
    """{name: float32 array} of the float tensors of a safetensors file."""
    with open(path, "rb") as f:
        raw = f.read()
    n = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8:8 + n])
    out = {}
    for name, t in header.items():
        if name == "__metadata__" or t["dtype"] not in ("F32", "F16", "BF16"):
            continue
        b, e = t["data_offsets"]
        buf = raw[8 + n + b:8 + n + e]
        if t["dtype"] == "F32":
            a = np.frombuffer(buf, dtype="<f4").astype(np.float32)
        elif t["dtype"] == "F16":
            a = np.frombuffer(buf, dtype="<f2").astype(np.float32)
        else:
            a = gpt2ck.bf16_bits_to_f32(np.frombuffer(buf, dtype="<u2"))
        out[name] = a.reshape(t["shape"])
    return out


def model_dir(d):
    """The folder holding the model: modules.json's Transformer path, or d."""
    mj = os.path.join(d, "modules.json")
    if os.path.exists(mj):
        with open(mj) as f:
            for m in json.load(f):
                if m["type"].endswith("models.Transformer"):
                    return os.path.join(d, m["path"]) if m["path"] else d
    return d


def read_folder(d):
    """({name: float32} in BERT's names without prefix, DistilBERT's mapped to
    BERT's, the MLM decoder as transformers' BertForMaskedLM has it: the word
    embeddings unless config.json's "tie_word_embeddings" is false (a saved
    decoder ignored), else the saved one; config) of the folder d."""
    d = model_dir(d)
    with open(os.path.join(d, "config.json")) as f:
        cfg = json.load(f)
    raw = read_st(os.path.join(d, "model.safetensors"))
    distil = cfg["model_type"] == "distilbert"
    w = {}
    for k, a in raw.items():
        for p in ("bert.", "distilbert."):
            if k.startswith(p):
                k = k[len(p):]
        k = k.replace(".gamma", ".weight").replace(".beta", ".bias")
        if distil:
            k = k.replace("transformer.layer.", "encoder.layer.")
            for b, dn in zip(BERT_LAYER, DISTIL_LAYER):
                k = k.replace("." + dn + ".", "." + b + ".")
            for b, dn in (("cls.predictions.transform.dense", "vocab_transform"),
                          ("cls.predictions.transform.LayerNorm", "vocab_layer_norm"),
                          ("cls.predictions.decoder", "vocab_projector")):
                if k.startswith(dn + "."):
                    k = b + k[len(dn):]
            if k == "cls.predictions.decoder.bias":
                k = "cls.predictions.bias"
        w[k] = a
    if "cls.predictions.transform.dense.weight" in w and cfg.get("tie_word_embeddings", True):
        w["cls.predictions.decoder.weight"] = w["embeddings.word_embeddings.weight"]
    return w, cfg


def make(a, rng):
    """[(name, float32 array)] in BERT's or DistilBERT's names, prefixed."""
    L, D, F, V, T = a.layers, a.d_model, a.d_ff, a.vocab, a.pos
    distil = a.arch == "distilbert"
    pre = "" if a.no_prefix else ("distilbert." if distil else "bert.")
    # a decoder of its own values: asked for, or untied (unless the
    # malformed variant leaves it out)
    own = a.own_decoder or (a.tie == "false" and a.malformed != "untied-no-decoder")
    ln_w, ln_b = ("gamma", "beta") if a.gamma else ("weight", "bias")

    def n(*shape, std=1.0, mean=0.0):
        return (mean + std * rng.standard_normal(shape)).astype(np.float32)
    out = [(pre + "embeddings.word_embeddings.weight", n(V, D, std=0.5)),
           (pre + "embeddings.position_embeddings.weight", n(T, D, std=0.3))]
    if not distil:
        out.append((pre + "embeddings.token_type_embeddings.weight", n(a.types, D, std=0.3)))
    out += [(pre + "embeddings.LayerNorm." + ln_w, n(D, std=0.1, mean=1.0)),
            (pre + "embeddings.LayerNorm." + ln_b, n(D, std=0.1))]
    names = DISTIL_LAYER if distil else BERT_LAYER
    base = "transformer.layer." if distil else "encoder.layer."
    wide = (4.0 / D) ** 0.5  # q, k entries of variance 4: scores of standard deviation 4
    for l in range(L):
        p = pre + base + "%d." % l
        for k, nm in enumerate(names):
            if "LayerNorm" in nm or "layer_norm" in nm:
                w_, b_ = (ln_w, ln_b) if "LayerNorm" in nm else ("weight", "bias")
                out += [(p + nm + "." + w_, n(D, std=0.1, mean=1.0)), (p + nm + "." + b_, n(D, std=0.1))]
                continue
            rows, cols = (F, D) if k == 5 else (D, F) if k == 6 else (D, D)
            std = wide if k < 2 else 1.0 / cols ** 0.5
            out += [(p + nm + ".weight", n(rows, cols, std=std)), (p + nm + ".bias", n(rows, std=0.1))]
    if a.pooler and not distil:
        out += [(pre + "pooler.dense.weight", n(D, D, std=0.1)), (pre + "pooler.dense.bias", n(D, std=0.1))]
    if not a.no_mlm:
        if distil:
            out += [("vocab_transform.weight", n(D, D, std=1.0 / D ** 0.5)),
                    ("vocab_transform.bias", n(D, std=0.1)),
                    ("vocab_layer_norm.weight", n(D, std=0.1, mean=1.0)),
                    ("vocab_layer_norm.bias", n(D, std=0.1))]
            if a.decoder or own:
                out.append(("vocab_projector.weight", n(V, D, std=0.5) if own else out[0][1]))
            out.append(("vocab_projector.bias", n(V, std=0.1)))
        else:
            c = "cls.predictions."
            out += [(c + "bias", n(V, std=0.1)),
                    (c + "transform.dense.weight", n(D, D, std=1.0 / D ** 0.5)),
                    (c + "transform.dense.bias", n(D, std=0.1)),
                    (c + "transform.LayerNorm." + ln_w, n(D, std=0.1, mean=1.0)),
                    (c + "transform.LayerNorm." + ln_b, n(D, std=0.1))]
            if a.decoder or own:
                out += [(c + "decoder.weight", n(V, D, std=0.5) if own else out[0][1]),
                        (c + "decoder.bias", out[-5][1])]
    return out


def config(a):
    if a.arch == "distilbert":
        return {"architectures": ["DistilBertForMaskedLM"], "model_type": "distilbert",
                "activation": "gelu", "attention_dropout": 0.1, "dim": a.d_model,
                "dropout": 0.1, "hidden_dim": a.d_ff, "initializer_range": 0.02,
                "max_position_embeddings": a.pos, "n_heads": a.heads, "n_layers": a.layers,
                "pad_token_id": 0, "qa_dropout": 0.1, "seq_classif_dropout": 0.2,
                "sinusoidal_pos_embds": False, "tie_weights_": True, "vocab_size": a.vocab}
    return {"architectures": ["BertForMaskedLM"], "model_type": "bert",
            "attention_probs_dropout_prob": 0.1, "gradient_checkpointing": False,
            "hidden_act": "gelu", "hidden_dropout_prob": 0.1, "hidden_size": a.d_model,
            "initializer_range": 0.02, "intermediate_size": a.d_ff, "layer_norm_eps": 1e-12,
            "max_position_embeddings": a.pos, "num_attention_heads": a.heads,
            "num_hidden_layers": a.layers, "pad_token_id": 0,
            "position_embedding_type": "absolute", "transformers_version": "4.41.0",
            "type_vocab_size": a.types, "use_cache": True, "vocab_size": a.vocab}


def write_tokenizer(d, a):
    with open(FIXTURE_VOCAB, encoding="utf-8") as f:
        vocab = f.read().split("\n")
    if vocab and vocab[-1] == "":
        vocab.pop()
    if a.malformed == "no-unk":
        vocab = [t if t != "[UNK]" else "[UNK2]" for t in vocab]
    if a.malformed == "vocab-too-big":
        vocab += ["[extra%d]" % k for k in range(a.vocab - len(vocab) + 1)]
    if a.malformed != "no-vocab":
        if a.tokenizer_json:
            tj = {"version": "1.0", "model": {"type": "WordPiece", "unk_token": "[UNK]",
                                                "continuing_subword_prefix": "##",
                                                "max_input_chars_per_word": 100,
                                                "vocab": {t: i for i, t in enumerate(vocab)}}}
            with open(os.path.join(d, "tokenizer.json"), "w", encoding="utf-8") as f:
                json.dump(tj, f, ensure_ascii=False)
        else:
            with open(os.path.join(d, "vocab.txt"), "w", encoding="utf-8") as f:
                f.write("\n".join(vocab) + "\n")
    with open(os.path.join(d, "tokenizer_config.json"), "w") as f:
        json.dump({"do_lower_case": not a.cased, "model_max_length": a.pos}, f)


def break_tensors(t, a):
    """The --malformed variants that live in the weights."""
    k = a.malformed
    layer = [i for i, (nm, _, _) in enumerate(t) if ".layer.1." in nm or ".layer.0." in nm]
    if k in ("nan", "inf"):
        nm, x, dt = t[layer[3]]
        x = x.copy()
        x.flat[5] = np.nan if k == "nan" else np.inf
        t[layer[3]] = (nm, x, dt)
    elif k == "missing":
        del t[layer[-1]]
    elif k == "shape":
        nm, x, dt = t[layer[0]]
        t[layer[0]] = (nm, x[:, :-1].copy(), dt)
    elif k == "mixed-prefix":
        nm, x, dt = t[0]
        t[0] = (nm.split(".", 1)[1] if nm.startswith(("bert.", "distilbert.")) else "bert." + nm, x, dt)
    elif k == "extra-layer":
        t += [(nm.replace(".layer.0.", ".layer.%d." % a.layers), x, dt)
              for nm, x, dt in list(t) if ".layer.0." in nm]
    elif k == "half-head":
        t[:] = [e for e in t if "transform.LayerNorm" not in e[0] and "vocab_layer_norm" not in e[0]]


def break_config(cfg, a):
    k = a.malformed
    if k == "position-type":
        cfg["position_embedding_type"] = "relative_key_query"
    elif k == "activation":
        cfg["activation" if a.arch == "distilbert" else "hidden_act"] = "relu"
    elif k == "is-decoder":
        cfg["is_decoder"] = True
    elif k == "cross-attn":
        cfg["add_cross_attention"] = True
    elif k == "sinusoidal":
        cfg["sinusoidal_pos_embds"] = True
    elif k == "indivisible":
        cfg["n_heads" if a.arch == "distilbert" else "num_attention_heads"] = 5
    elif k == "types-zero":
        cfg["type_vocab_size"] = 0
    elif k == "untied-no-decoder":
        cfg["tie_word_embeddings"] = False


def write_st_layout(out, a):
    """modules.json and 1_Pooling/ around the BERT; its folder."""
    sub = "0_BERT" if a.st == "sub" else ""
    mods = [{"idx": 0, "name": "0", "path": sub, "type": "sentence_transformers.models.Transformer"},
            {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
            {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"}]
    if a.malformed == "modules-none":
        mods = mods[1:]
    if a.malformed == "modules-escape":
        mods[0]["path"] = "../elsewhere"
    os.makedirs(os.path.join(out, "1_Pooling"), exist_ok=True)
    os.makedirs(os.path.join(out, "2_Normalize"), exist_ok=True)
    with open(os.path.join(out, "1_Pooling", "config.json"), "w") as f:
        json.dump({"word_embedding_dimension": a.d_model, "pooling_mode_mean_tokens": True}, f)
    with open(os.path.join(out, "modules.json"), "w") as f:
        text = json.dumps(mods, indent=2)
        f.write(text[:-3] if a.malformed == "modules-json" else text)
    with open(os.path.join(out, "sentence_bert_config.json"), "w") as f:
        json.dump({"max_seq_length": 256, "do_lower_case": False}, f)
    d = os.path.join(out, sub) if sub else out
    os.makedirs(d, exist_ok=True)
    return d


def main():
    p = argparse.ArgumentParser()
    p.add_argument("out")
    p.add_argument("--arch", choices=["bert", "distilbert"], default="bert")
    p.add_argument("--size", choices=sorted(SIZES), default="tiny")
    for k in ("layers", "d_model", "heads", "d_ff", "vocab", "pos"):
        p.add_argument("--" + k.replace("_", "-"), type=int)
    p.add_argument("--types", type=int, default=2)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--dtype", choices=sorted(DTYPES), default="f32")
    for f in ("no-prefix", "no-mlm", "pooler", "gamma", "decoder", "own-decoder",
              "position-ids", "tokenizer-json", "cased"):
        p.add_argument("--" + f, action="store_true")
    p.add_argument("--tie", choices=["absent", "true", "false"], default="absent")
    p.add_argument("--st", choices=["root", "sub"])
    p.add_argument("--malformed", choices=KINDS)
    a = p.parse_args()
    size = dict(SIZES[a.size])
    if a.arch == "distilbert" and a.size == "base":
        size["layers"] = 6
    for k, v in size.items():
        if getattr(a, k) is None:
            setattr(a, k, v)
    if os.path.exists(a.out):
        shutil.rmtree(a.out)
    os.makedirs(a.out)
    d = write_st_layout(a.out, a) if a.st else a.out
    rng = np.random.default_rng(a.seed)
    dt = DTYPES[a.dtype]
    t = [(nm, x, dt) for nm, x in make(a, rng)]
    if a.position_ids:
        pre = "" if a.no_prefix else ("distilbert." if a.arch == "distilbert" else "bert.")
        t.insert(2, (pre + "embeddings.position_ids", np.arange(a.pos, dtype=np.int64)[None, :], "I64"))
    if a.malformed == "dtype":
        t[3] = (t[3][0], t[3][1].astype(np.float64).astype(np.int64), "I64")
    break_tensors(t, a)
    cfg = config(a)
    if a.tie != "absent":
        cfg["tie_word_embeddings"] = a.tie == "true"
    break_config(cfg, a)
    if a.malformed == "pytorch":
        open(os.path.join(d, "pytorch_model.bin"), "wb").write(b"PK\x03\x04")
    else:
        write_st(os.path.join(d, "model.safetensors"), t)
    if a.malformed != "no-config":
        text = json.dumps(cfg, indent=2)
        if a.malformed == "json":
            text = text[:-2]
        if a.malformed == "duplicate-key":
            text = text.replace("{", '{\n  "vocab_size": %d,' % a.vocab, 1)
        with open(os.path.join(d, "config.json"), "w") as f:
            f.write(text)
    write_tokenizer(d, a)


if __name__ == "__main__":
    main()

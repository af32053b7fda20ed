"""bert_ref.py - a BERT-family encoder's forward in float64 NumPy, the
reference of attnviz's BERT (src/core/bert/) in tests/e2e/bert.sh. Written
from Hugging Face's BertModel / BertForMaskedLM (and DistilBERT, whose
weights scripts/bert-checkpoint.py's read_folder maps to BERT's names):

    x = LN(word[ids] + pos[:n] + type[types])
    per layer: Q, K, V = x W^T + b; P_h = softmax(Q_h K_h^T / sqrt(d_k)) (no mask);
               a = LN(x + concat(P_h V_h) W_o^T + b_o)
               x = LN(a + gelu_erf(a W_1^T + b_1) W_2^T + b_2)
    mlm = LN(gelu_erf(x W_t^T + b_t)) decoder^T + bias

forward(w, cfg, ids, types, causal=False) -> dict(P=(L, H, n, n),
hidden=(L + 1, n, D), norms=(L, H, n, n) the value-weighted norms
P_hij ||V_j,h W_O,h|| (W_O = W_o^T), mlm=(n, V) or None).
"""
import math

import numpy as np

_erf = np.vectorize(math.erf)


def gelu(x):
    return 0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)))


def layer_norm(x, g, b, eps):
    m = x.mean(-1, keepdims=True)
    v = ((x - m) ** 2).mean(-1, keepdims=True)
    return (x - m) / np.sqrt(v + eps) * g + b


def forward(w, cfg, ids, types, causal=False):
    f = {k: v.astype(np.float64) for k, v in w.items()}
    distil = cfg["model_type"] == "distilbert"
    L = cfg["n_layers" if distil else "num_hidden_layers"]
    H = cfg["n_heads" if distil else "num_attention_heads"]
    eps = 1e-12 if distil else cfg.get("layer_norm_eps", 1e-12)
    ids = np.asarray(ids)
    n = len(ids)
    x = f["embeddings.word_embeddings.weight"][ids] + f["embeddings.position_embeddings.weight"][:n]
    if not distil:
        x = x + f["embeddings.token_type_embeddings.weight"][np.asarray(types)]
    x = layer_norm(x, f["embeddings.LayerNorm.weight"], f["embeddings.LayerNorm.bias"], eps)
    D = x.shape[1]
    dk = D // H
    hidden, Ps, norms = [x], [], []
    mask = np.triu(np.ones((n, n), dtype=bool), 1)
    for l in range(L):
        p = "encoder.layer.%d." % l

        def lin(name, v):
            return v @ f[p + name + ".weight"].T + f[p + name + ".bias"]
        q = lin("attention.self.query", x).reshape(n, H, dk).transpose(1, 0, 2)
        k = lin("attention.self.key", x).reshape(n, H, dk).transpose(1, 0, 2)
        v = lin("attention.self.value", x).reshape(n, H, dk).transpose(1, 0, 2)
        s = q @ k.transpose(0, 2, 1) / math.sqrt(dk)
        if causal:
            s = np.where(mask[None], -np.inf, s)
        s = s - s.max(-1, keepdims=True)
        e = np.exp(s)
        P = e / e.sum(-1, keepdims=True)
        Ps.append(P)
        Wo = f[p + "attention.output.dense.weight"].T  # (D, D), head h's rows at h dk
        vn = np.stack([np.linalg.norm(v[h] @ Wo[h * dk:(h + 1) * dk], axis=1) for h in range(H)])
        norms.append(P * vn[:, None, :])
        concat = (P @ v).transpose(1, 0, 2).reshape(n, D)
        a = layer_norm(x + lin("attention.output.dense", concat),
                       f[p + "attention.output.LayerNorm.weight"],
                       f[p + "attention.output.LayerNorm.bias"], eps)
        h = gelu(lin("intermediate.dense", a))
        x = layer_norm(a + lin("output.dense", h), f[p + "output.LayerNorm.weight"],
                       f[p + "output.LayerNorm.bias"], eps)
        hidden.append(x)
    mlm = None
    c = "cls.predictions."
    if c + "transform.dense.weight" in f:
        t = gelu(x @ f[c + "transform.dense.weight"].T + f[c + "transform.dense.bias"])
        t = layer_norm(t, f[c + "transform.LayerNorm.weight"], f[c + "transform.LayerNorm.bias"], eps)
        mlm = t @ f[c + "decoder.weight"].T + f[c + "bias"]
    return dict(P=np.stack(Ps), hidden=np.stack(hidden), norms=np.stack(norms), mlm=mlm)

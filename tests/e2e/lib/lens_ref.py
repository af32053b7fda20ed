"""lens_ref.py - the logit lens's float64 check, shared by gpt2_ref.py and
lens.sh's trained models (imported, not run).

check(ref_logits, dump) compares DUMP/lens_ids.npy (L+1, n, K) int32 and
DUMP/lens_probs.npy (L+1, n, K) float32 with ref_logits (L+1, n, V) float64,
the reference's LN_f(x_l) @ unembedding: every cell's K probabilities within
1e-4 of the reference's K largest, each id's probability within 1e-4 of the
reference's probability of that id, ids past a vocabulary smaller than K -1
with probability 0. Returns a list of (ok, message).
"""
import os

import numpy as np

K = 10
TOL = 1e-4


def softmax(z):
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def check(ref_logits, dump):
    ids = np.load(os.path.join(dump, "lens_ids.npy"))
    probs = np.load(os.path.join(dump, "lens_probs.npy"))
    rows, n, V = ref_logits.shape
    want = (rows, n, K)
    out = [(ids.shape == want and probs.shape == want and ids.dtype == np.int32 and
            probs.dtype == np.float32,
            "lens_ids.npy %s %s and lens_probs.npy %s %s (want %s int32 and float32)"
            % (ids.shape, ids.dtype, probs.shape, probs.dtype, want))]
    if not out[0][0]:
        return out
    kv = min(K, V)
    p = softmax(ref_logits)
    best = -np.sort(-p, axis=-1)[..., :kv]
    got = probs[..., :kv].astype(np.float64)
    err_best = float(np.abs(got - best).max())
    picked = np.take_along_axis(p, np.clip(ids[..., :kv], 0, V - 1).astype(np.int64), -1)
    err_ids = float(np.abs(got - picked).max())
    in_range = bool(((ids[..., :kv] >= 0) & (ids[..., :kv] < V)).all())
    order = np.argsort(-p, axis=-1, kind="stable")[..., :kv]
    same = float((order == ids[..., :kv]).mean())
    out.append((err_best <= TOL and err_ids <= TOL and in_range,
                "every cell of %d layers x %d positions within %g of float64 NumPy "
                "(top-%d probabilities %.2g, each id's %.2g; ids the same: %.4f)"
                % (rows, n, TOL, kv, err_best, err_ids, same)))
    if V < K:
        pad = bool((ids[..., V:] == -1).all() and (probs[..., V:] == 0).all())
        out.append((pad, "a vocabulary of %d: the %d places after it are id -1, probability 0"
                    % (V, K - V)))
    return out

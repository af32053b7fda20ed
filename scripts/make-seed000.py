#!/usr/bin/python3
"""Make assets/seed000/: seed 000's "attention in action" example as --weights
files. The article runs

    np.random.seed(42)
    X = [[1,0,1,0], [0,1,0,1], [1,1,0,0]]        # 3 tokens, d_model 4
    W_q, W_k, W_v = (np.random.randn(4, 2) * 0.1 for each, in that order)
    output, weights = scaled_dot_product_attention(X W_q, X W_k, X W_v)

attnviz's matrices are d_model x d_model, so each (4, 2) projection fills the
first two columns (head 1 of 2, d_k = 2) and head 2 is zero; W_o = I. Then

    attnviz --weights assets/seed000 -d 4 -H 2 --no-pe --export csv --head 1 'a b c'

gives the article's weights, which this script also saves, computed by the
article's own code, as tests/data/seed000_weights.npy for the tests."""
import os
import numpy as np

def softmax(x, axis=-1):
    exp_x = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return exp_x / np.sum(exp_x, axis=axis, keepdims=True)

def scaled_dot_product_attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = np.matmul(Q, K.transpose(0, 2, 1)) / np.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask == 0, -1e9, scores)
    attention_weights = softmax(scores, axis=-1)
    return np.matmul(attention_weights, V), attention_weights

np.random.seed(42)
X = np.array([[[1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 1.0], [1.0, 1.0, 0.0, 0.0]]])
d_model, d_k = 4, 2
W_q = np.random.randn(d_model, d_k) * 0.1
W_k = np.random.randn(d_model, d_k) * 0.1
W_v = np.random.randn(d_model, d_k) * 0.1
output, weights = scaled_dot_product_attention(X @ W_q, X @ W_k, X @ W_v)
print("Attention weights:\n", np.round(weights[0], 3))

root = os.path.join(os.path.dirname(__file__), "..")
out = os.path.join(root, "assets", "seed000")
os.makedirs(out, exist_ok=True)
for name, W in (("Wq", W_q), ("Wk", W_k), ("Wv", W_v)):
    full = np.zeros((d_model, d_model))
    full[:, :d_k] = W
    np.save(os.path.join(out, name + ".npy"), full.astype(np.float32))
np.save(os.path.join(out, "Wo.npy"), np.eye(d_model, dtype=np.float32))
np.save(os.path.join(out, "X.npy"), X[0].astype(np.float32))
np.save(os.path.join(root, "tests", "data", "seed000_weights.npy"), weights[0].astype(np.float32))

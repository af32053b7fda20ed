#!/usr/bin/python3
"""Make assets/seed001/: the worked example of seed 001 ("Cat eats fish") as
--weights files, so that

    attnviz --weights assets/seed001 -d 4 -H 2 --no-pe --export trace --token 1 \
        --head 1 "Cat eats fish"

shows the article's numbers: scores 0.74, 0.38, 0.50; scaled by sqrt(2) to
0.52, 0.27, 0.35; softmax 0.38, 0.30, 0.32; output [0.54, 0.46].

X holds the article's embeddings (d_model 4). Head 1 uses columns 0-1 of Q, K
and V: Q_cat = [0.8, 0.2] and K_cat = [0.9, 0.1] as printed, K_eats and K_fish
chosen to give the printed scores 0.38 and 0.50, V as printed. Each W is the
least-norm exact solution of X W = target (X has rank 3). Head 2 (columns 2-3)
is left at zero: a head with no preference, attending uniformly. W_o = I."""
import os
import numpy as np

X = np.array([[1, 0, 1, 0], [0, 1, 0, 1], [1, 1, 0, 0]], dtype=np.float64)
targets = {
    "Wq": [[0.8, 0.2], [0.1, 0.9], [0.5, 0.5]],
    "Wk": [[0.9, 0.1], [0.4, 0.3], [0.5, 0.5]],
    "Wv": [[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]],
}
out = os.path.join(os.path.dirname(__file__), "..", "assets", "seed001")
os.makedirs(out, exist_ok=True)
for name, t in targets.items():
    W = np.zeros((4, 4))
    W[:, :2] = np.linalg.pinv(X) @ np.array(t)
    assert np.allclose(X @ W[:, :2], t)
    np.save(os.path.join(out, name + ".npy"), W.astype(np.float32))
np.save(os.path.join(out, "Wo.npy"), np.eye(4, dtype=np.float32))
np.save(os.path.join(out, "X.npy"), X.astype(np.float32))

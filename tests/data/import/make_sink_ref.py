#!/usr/bin/python3
"""make_sink_ref.py - the float64 reference of the attention-sink what-if
(core/sink.h) for tests/core/test_combine.c.

sink_attn_chars.npy is the attention of a checkpoint of our own, the trained
character model assets/models/chars, on "The cat sat on the mat." (L 4, H 4,
n 23, causal), as attnviz dumps it:
    attnviz --model assets/models/chars --dump DIR 'The cat sat on the mat.'
    cp DIR/attention.npy tests/data/import/sink_attn_chars.npy
Run from the repository root with Debian's NumPy:
    /usr/bin/python3 tests/data/import/make_sink_ref.py
It writes sink_chars_f64.npy beside it, computed here in float64 from the
definition, independently of attnviz: each row with the first key's weight
set aside and the rest renormalised,
    out[0] = 0, out[j] = a[j] / sum(a[1:])   (j >= 1),
a row with nothing outside key 0 (the first query under the mask) left as
it is.
"""
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))

a = np.load(os.path.join(HERE, "sink_attn_chars.npy")).astype(np.float64)
rest = a[..., 1:].sum(axis=-1, keepdims=True)
out = a.copy()
has = rest[..., 0] > 0
out[..., 0] = np.where(has, 0.0, a[..., 0])
out[..., 1:] = np.where(has[..., None], a[..., 1:] / np.where(rest > 0, rest, 1.0), a[..., 1:])
np.save(os.path.join(HERE, "sink_chars_f64.npy"), out)

#!/usr/bin/python3
"""lens_model.py MODEL_DIR DUMP_DIR TEXT - the logit lens of a saved attnviz
model in float64 NumPy (model_forward.py's forward: every layer's residual
stream, through ln_f when model.json says "layernorm": "pre", then the
unembedding), against DUMP_DIR/lens_ids.npy and lens_probs.npy
(lib/lens_ref.py's check: every cell within 1e-4, row L being the float64
forward's own next-token distribution). Prints "ok - ..." / "not ok - ..."; exit 0 when all ok.
"""
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lens_ref  # noqa: E402
import model_forward as mf  # noqa: E402


def main():
    model, dump, text = sys.argv[1], sys.argv[2], sys.argv[3]
    with open(os.path.join(model, "model.json"), encoding="utf-8") as f:
        spec = json.load(f)
    ids = mf.tokens(spec, text)[-spec["context"]:]
    ref = mf.forward(model, spec, ids)
    L = spec["layers"]
    streams = [ref["X"]] + [ref[l]["output"] for l in range(1, L + 1)]
    if spec.get("layernorm") == "pre":
        g, b = mf.load(model, "ln_f_g"), mf.load(model, "ln_f_b")
        streams = [mf.layer_norm(x, g, b) for x in streams]
    unembed = mf.load(model, "unembed")
    logits = np.stack([x @ unembed for x in streams])
    bad = 0
    for ok, what in lens_ref.check(logits, dump):
        bad += not ok
        print(("ok - " if ok else "not ok - ") + what)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

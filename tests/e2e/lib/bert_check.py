"""bert_check.py DIR OUT TEXT [--causal] - hold `attnviz --model DIR --dump OUT
TEXT`'s files (ids.npy, attention.npy, X.npy and layerN/layer_output.npy,
norms.npy, mlm_logits.npy) to the float64 reference (bert_ref.py) of the
checkpoint DIR and to the WordPiece reference (wordpiece_ref.py) of TEXT.
Token types are checked through the numbers: a wrong type row changes every
weight. Prints one line of the largest differences; exits 1 with the first
fault. Tolerances: every head's weights 1e-5 (BERT_TOL_P), the residual
stream and the norms 1e-4, the masked-LM logits 1e-5 of their largest
magnitude.
"""
import importlib.util
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bert_ref  # noqa: E402
import wordpiece_ref  # noqa: E402

spec = importlib.util.spec_from_file_location(
    "bck", os.path.join(HERE, "..", "..", "..", "scripts", "bert-checkpoint.py"))
bck = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bck)


def fail(msg):
    print(msg)
    sys.exit(1)


def main():
    d, out, text = sys.argv[1], sys.argv[2], sys.argv[3]
    causal = "--causal" in sys.argv[4:]
    tol_p = float(os.environ.get("BERT_TOL_P", "1e-5"))
    w, cfg = bck.read_folder(d)
    md = bck.model_dir(d)
    if os.path.exists(os.path.join(md, "vocab.txt")):
        with open(os.path.join(md, "vocab.txt"), encoding="utf-8") as f:
            vocab = f.read().split("\n")[:-1]
    else:
        with open(os.path.join(md, "tokenizer.json"), encoding="utf-8") as f:
            v = json.load(f)["model"]["vocab"]
        vocab = sorted(v, key=v.get)
    lower = True
    if os.path.exists(os.path.join(md, "tokenizer_config.json")):
        with open(os.path.join(md, "tokenizer_config.json")) as f:
            lower = json.load(f).get("do_lower_case", True)
    want_ids, second = wordpiece_ref.WordPieceRef(vocab, lower=lower).encode(text)
    ids = np.load(os.path.join(out, "ids.npy"))
    if list(ids) != list(want_ids):
        fail("ids %s, the reference's %s" % (list(ids)[:12], list(want_ids)[:12]))
    distil = cfg["model_type"] == "distilbert"
    types = np.zeros(len(ids), dtype=int)
    if second >= 0 and not distil:
        types[second:] = 1
    r = bert_ref.forward(w, cfg, ids, types, causal=causal)
    P = np.load(os.path.join(out, "attention.npy"))
    if P.shape != r["P"].shape:
        fail("attention.npy has shape %s, the reference %s" % (P.shape, r["P"].shape))
    dp = np.abs(P - r["P"]).max()
    if not dp <= tol_p:
        l, h, i, j = np.unravel_index(np.abs(P - r["P"]).argmax(), P.shape)
        fail("layer %d head %d weight (%d, %d) differs by %.3g (tolerance %g)" % (l + 1, h + 1, i, j, dp, tol_p))
    if causal and np.any(P[:, :, np.triu_indices(len(ids), 1)[0], np.triu_indices(len(ids), 1)[1]] != 0):
        fail("a masked weight is not 0")
    msg = "weights %.2g" % dp
    hid = [np.load(os.path.join(out, "X.npy"))]
    hid += [np.load(os.path.join(out, "layer%d" % (l + 1), "layer_output.npy")) for l in range(P.shape[0])]
    dh = np.abs(np.stack(hid) - r["hidden"]).max()
    if not dh <= 1e-4:
        fail("the residual stream differs by %.3g" % dh)
    dn = np.abs(np.load(os.path.join(out, "norms.npy")) - r["norms"]).max()
    if not dn <= 1e-4 * max(1.0, np.abs(r["norms"]).max()):
        fail("the value-weighted norms differ by %.3g" % dn)
    msg += ", residual stream %.2g, norms %.2g" % (dh, dn)
    mp = os.path.join(out, "mlm_logits.npy")
    if (r["mlm"] is None) != (not os.path.exists(mp)):
        fail("mlm_logits.npy %s, the checkpoint %s the head" % (
            "written" if os.path.exists(mp) else "absent", "lacks" if r["mlm"] is None else "has"))
    if r["mlm"] is not None:
        m = np.load(mp)
        rel = np.abs(m - r["mlm"]).max() / np.abs(r["mlm"]).max()
        if m.shape != r["mlm"].shape or not rel <= 1e-5:
            fail("MLM logits differ by %.3g of their largest" % rel)
        msg += ", MLM logits %.2g of their largest" % rel
    print(msg)


main()

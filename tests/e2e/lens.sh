#!/bin/bash
# tier: test
# asan: yes
# lens.sh - the logit lens of attnviz's own trained models (issue 38 item 1):
#  - --dump's lens_ids.npy and lens_probs.npy against a float64 NumPy lens of
#    the model's forward (lib/lens_model.py): assets/models/chars (LayerNorm
#    "pre": ln_f before the unembedding) and assets/models/induction (none);
#  - --export lens-json holds the dump's numbers, and --export lens's grid
#    shows each cell's top token and percentage as the dump has them;
#  - the toy pipeline and imported attention refuse --export lens with one
#    line and exit 2, and their --dump writes no lens.
# GPT-2's lens is gpt2_model.sh's (lib/gpt2_ref.py). Prints "ok - ..." /
# "not ok - ..." / "skip - ..."; exits 1 when any failed. Run from the
# repository root.
set -u
A=${ATTNVIZ:-$PWD/attnviz}
export LC_ALL=${LC_ALL:-C.UTF-8}
PY=/usr/bin/python3
if ! "$PY" -c 'import numpy' 2>/dev/null; then
    echo "skip - lens: python3-numpy not installed"
    exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/attnviz-lens.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
failures=0
pass() { echo "ok - $1"; }
fail() { echo "not ok - $1${2:+ ($2)}"; failures=$((failures + 1)); }

for m in "chars:the cat sat on the mat" "induction:qwertyuqwertyu"; do
    name=${m%%:*} text=${m#*:}
    if ! out=$("$A" --model "assets/models/$name" --dump "$tmp/$name" "$text" 2>&1); then
        fail "$name: --dump" "$out"
        continue
    fi
    if res=$("$PY" tests/e2e/lib/lens_model.py "assets/models/$name" "$tmp/$name" "$text"); then
        pass "$name: $(echo "$res" | sed -n "s/^ok - every cell/every lens cell/p")"
    else
        fail "$name: $(echo "$res" | grep '^not ok' | head -2 | tr '\n' ' ')"
    fi
done

# lens-json and the text grid hold the dump's numbers
text="the cat sat on the mat"
"$A" --model assets/models/chars --export lens-json -o "$tmp/lens.json" "$text" &&
    "$A" --model assets/models/chars --export lens --width 400 --color never "$text" \
        >"$tmp/lens.txt"
res=$("$PY" - "$tmp/chars" "$tmp/lens.json" "$tmp/lens.txt" <<'PYEOF' 2>&1
import json, sys
import numpy as np
dump, js, txt = sys.argv[1:4]
ids = np.load(dump + "/lens_ids.npy"); probs = np.load(dump + "/lens_probs.npy")
d = json.load(open(js, encoding="utf-8"))
assert d["k"] == 10 and d["layers"] == ids.shape[0] - 1, (d["k"], d["layers"])
got_ids = np.array([[c["ids"] for c in row] for row in d["lens"]])
got_p = np.array([[c["probs"] for c in row] for row in d["lens"]])
assert (got_ids == ids).all(), "ids differ"
assert np.abs(got_p - probs).max() <= 1e-7, "probabilities differ"
lines = open(txt, encoding="utf-8").read().splitlines()
rows = [l for l in lines if l.startswith("layer ")]
assert len(rows) == ids.shape[0], len(rows)
for l, line in enumerate(rows):
    cells = line[9:]
    for i in range(ids.shape[1]):
        cell = cells[13 * i:13 * i + 12]
        want = "%3.0f%%" % (probs[l, i, 0] * 100)
        name = d["lens"][l][i]["tokens"][0]
        assert cell.endswith(want) and cell.startswith(name), (l, i, cell, name, want)
print("%d cells" % ids[..., 0].size)
PYEOF
)
if [ $? -eq 0 ]; then
    pass "--export lens-json equals the dump and --export lens shows its top cells ($res)"
else
    fail "--export lens and lens-json hold the dump's numbers" "$res"
fi

# a model that predicts no tokens
out=$("$A" --export lens "the cat" 2>&1)
rc=$?
[ $rc -eq 2 ] && [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] &&
    pass "the toy pipeline: --export lens exit 2, '$out'" ||
    fail "the toy pipeline refuses --export lens" "exit $rc: $out"
"$A" --dump "$tmp/toy" "the cat" 2>/dev/null
[ -f "$tmp/toy/weights.npy" ] && [ ! -e "$tmp/toy/lens_ids.npy" ] &&
    pass "the toy pipeline's --dump writes no lens" ||
    fail "the toy pipeline's --dump writes no lens"
out=$("$A" --attention "$tmp/chars/attention.npy" --tokens "$tmp/chars/tokens.txt" \
    --export lens 2>&1)
rc=$?
[ $rc -eq 2 ] && [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] &&
    pass "imported attention: --export lens exit 2, '$out'" ||
    fail "imported attention refuses --export lens" "exit $rc: $out"
out=$("$A" --model assets/models/chars --export lens "the Ω" 2>&1)
rc=$?
[ $rc -eq 2 ] && pass "a piece outside the vocabulary: exit 2, '$out'" ||
    fail "a piece outside the vocabulary" "exit $rc: $out"

exit $((failures > 0))

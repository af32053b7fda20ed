#!/bin/bash
# import.sh - imported attention from the command line to the screen (issue
# 14): attnviz's own --dump imported again bit for bit; the exports of an
# imported random (2, 3, 7, 7) array against NumPy (csv and json values equal
# the float32 array, md percentages, --head and --layer); causal structure
# shown as masked in -e csv and -e text; cross-attention with --key-tokens;
# every bad file one line and exit 2, unnormalised rows a warning and exit 0;
# trace and pipeline refused as needing vectors; a sparse 2.4 GB file opened
# with its peak RSS (VmHWM) under 800 MB and under a `ulimit -v` that leaves
# no room for a second, read copy; and the interface under tmux at 80x24 and
# 120x40 on a (2, 4, 12, 12) array: layer 2, rollout (row 1 against NumPy),
# heads combined, the views that need a model refused; on attnviz's own
# model the norms, heads combined and rollout against its --dump.
# Prints "ok - name" / "not ok - name"; exits 1 when any failed. Needs
# /usr/bin/python3 with numpy (else one "skip" line). Run from the root.
# tier: test
# asan: no
set -u
export LC_ALL=C.UTF-8
PY=/usr/bin/python3
if ! [ -x "$PY" ] || ! "$PY" -c 'import numpy' 2>/dev/null; then
    echo "skip - numpy not installed"
    exit 0
fi
. "$(dirname "$0")/lib/tui.sh"
tui_init import
T=$WORK
unset NO_COLOR
A() { "$BIN" "$@"; }
# tui_start gives each session a fresh tmux server (tui_session)
start() { tui_start "$@"; }

# The data: a random (2, 3, 7, 7) float32 array, a causal (2, 2, 5, 5) one, a
# float64 cross (3, 4, 6) one, a (2, 4, 12, 12) one for the interface, bad files.
"$PY" - "$T" <<'EOF'
import sys, numpy as np
d = sys.argv[1]; rng = np.random.default_rng(14)
def norm(a): return (a / a.sum(-1, keepdims=True))
a = norm(rng.random((2, 3, 7, 7))).astype(np.float32); np.save(d + '/rand.npy', a)
open(d + '/tok7.txt', 'w').write('\n'.join(['The', 'cat', 'sat', 'on', 'a,b', 'mat', '.']) + '\n')
c = norm(np.tril(rng.random((2, 2, 5, 5)) + 0.01)).astype(np.float32); np.save(d + '/causal.npy', c)
open(d + '/tok5.txt', 'w').write('["a", "b", "c", "d", "e"]')
x = norm(rng.random((3, 4, 6))); np.save(d + '/cross.npy', x)
open(d + '/q4.txt', 'w').write('w\nx\ny\nz\n')
open(d + '/k6.txt', 'w').write('k1\nk2\nk3\nk4\nk5\nk6\n')
u = norm(rng.random((2, 4, 12, 12)) ** 4).astype(np.float32); np.save(d + '/ui.npy', u)
np.save(d + '/uic.npy', norm(np.tril(u + 0.01)).astype(np.float32))
words = 'alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima'.split()
open(d + '/tok12.txt', 'w').write('\n'.join(words) + '\n')
# rollout after both layers (DESIGN.md): 0.5 mean_h(A) + 0.5 I, rows renormalised
def hat(l):
    m = 0.5 * u[l].astype(np.float64).mean(0) + 0.5 * np.eye(12)
    return m / m.sum(-1, keepdims=True)
r = hat(1) @ hat(0)
open(d + '/rollout_row1.txt', 'w').write(' '.join('%d' % round(100 * v) for v in r[0]))
m = u[1, 0, 0].astype(np.float64) + u[1, 0, 2]  # layer 2, head 1, queries 1 and 3 summed
# rows summed are a sum (0 to 2 for two rows), shown as one: "alpha  0.39"
open(d + '/multi_top.txt', 'w').write('%s +%.2f ' % (words[int(m.argmax())], m.max()))
np.save(d + '/bad_rank.npy', np.ones((7, 7), np.float32) / 7)
b = a.copy(); b[1, 2, 3, 4] = np.nan; np.save(d + '/bad_nan.npy', b)
b = a.copy(); b[0, 0, 0, 0] = np.inf; np.save(d + '/bad_inf.npy', b)
b = a.copy(); b[0, 1, 6, 2] = -0.25; np.save(d + '/bad_neg.npy', b)
np.save(d + '/bad_n.npy', a[:, :, :6, :6])
np.save(d + '/unnorm.npy', a * 2)
EOF

# 1. attnviz's own dump imported and dumped again: attention.npy bit for bit.
A --dump "$T/d1" --layers 2 'The cat sat on the mat.' >/dev/null 2>&1
A --attention "$T/d1/attention.npy" --tokens "$T/d1/tokens.txt" --dump "$T/d2" 2>"$T/err"
check "dump -> import -> dump: exit 0, nothing on stderr" test $? -eq 0 -a ! -s "$T/err"
check "dump -> import -> dump: attention.npy bit for bit" cmp -s "$T/d1/attention.npy" \
    "$T/d2/attention.npy"
check "dump -> import -> dump: rollout.npy bit for bit" cmp -s "$T/d1/rollout.npy" \
    "$T/d2/rollout.npy"
check "dump -> import -> dump: tokens.txt" cmp -s "$T/d1/tokens.txt" "$T/d2/tokens.txt"

# 2. Exports of the random array against NumPy.
A --attention "$T/rand.npy" --tokens "$T/tok7.txt" -e csv --layer 1 >"$T/l1.csv"
A --attention "$T/rand.npy" --tokens "$T/tok7.txt" -e csv >"$T/l2.csv"
A --attention "$T/rand.npy" --tokens "$T/tok7.txt" -e json --head 2 >"$T/h2.json"
A --attention "$T/rand.npy" --tokens "$T/tok7.txt" -e md --layer 1 --head 3 >"$T/h3.md"
A --attention "$T/rand.npy" --tokens "$T/tok7.txt" -e text --head 1 >"$T/h1.txt"
"$PY" - "$T" >"$T/checks" <<'EOF'
import sys, csv, json, re, numpy as np
d = sys.argv[1]; a = np.load(d + '/rand.npy'); toks = open(d + '/tok7.txt').read().split('\n')[:7]
def csv_ok(path, l):
    rows = list(csv.DictReader(open(path)))
    if len(rows) != 3 * 49: return False
    for r in rows:
        h, i, j = int(r['head']) - 1, int(r['query_index']), int(r['key_index'])
        if np.float32(r['weight']) != a[l, h, i, j] or r['masked'] != '0': return False
        if r['query'] != toks[i] or r['key'] != toks[j]: return False
    return True
print('csv layer 1 equals the array', csv_ok(d + '/l1.csv', 0))
print('csv without --layer is the last layer', csv_ok(d + '/l2.csv', 1))
j = json.load(open(d + '/h2.json'))
w = np.array(j['heads'][0]['weights'], np.float64).astype(np.float32)
print('json --head 2: the head of the last layer, equal', len(j['heads']) == 1 and
      j['heads'][0]['head'] == 2 and np.array_equal(w, a[1, 1]) and j['config']['imported'])
md = open(d + '/h3.md').read()
cells = [float(x) for x in re.findall(r' ([0-9.]+)% \|', md)]
print('md layer 1 head 3: percentages to 0.05', len(cells) == 49 and
      np.allclose(np.array(cells).reshape(7, 7), 100 * a[0, 2], atol=0.051))
txt = open(d + '/h1.txt').read()
print('text: imported head title', 'Head 1 of 3: imported, layer 2 of 2' in txt)
EOF
while read -r line; do
    name=${line% *}; [ "${line##* }" = True ] && ok "$name" || notok "$name"
done <"$T/checks"

# 3. Causal structure detected and shown as masked.
A --attention "$T/causal.npy" --tokens "$T/tok5.txt" -e csv --head 2 >"$T/c.csv"
masked=$(awk -F, 'NR > 1 && $7 == 1 { n++ } END { print n + 0 }' "$T/c.csv")
wrong=$(awk -F, 'NR > 1 && ($7 == 1) != ($4 > $2) { n++ } END { print n + 0 }' "$T/c.csv")
check "causal: csv marks the 10 keys past each query masked, and only those" \
    test "$masked" = 10 -a "$wrong" = 0
A --attention "$T/causal.npy" --tokens "$T/tok5.txt" -e text --head 1 >"$T/c.txt"
check "causal: text says the mask was detected" grep -q 'mask causal (detected)' "$T/c.txt"
row1=$(grep -E '^1 a ' "$T/c.txt" | grep -o '╳' | wc -l)
row5=$(grep -E '^5 e ' "$T/c.txt" | grep -o '╳' | wc -l)
check "causal: text draws row 1 with 4 masked cells, row 5 with none" \
    test "$row1" = 4 -a "$row5" = 0

# 4. Cross-attention (float64, 4 queries x 6 keys) with --key-tokens.
A --attention "$T/cross.npy" --tokens "$T/q4.txt" --key-tokens "$T/k6.txt" -e csv >"$T/x.csv"
check "cross: csv has 3 heads x 4 x 6 rows" test "$(($(wc -l <"$T/x.csv") - 1))" = 72
check "cross: key tokens from --key-tokens" grep -q '^1,3,z,5,k6,' "$T/x.csv"
"$PY" -c "
import sys, csv, numpy as np
x = np.load('$T/cross.npy'); r = list(csv.DictReader(open('$T/x.csv')))
sys.exit(0 if all(np.float32(e['weight']) == np.float32(x[int(e['head']) - 1,
    int(e['query_index']), int(e['key_index'])]) for e in r) else 1)"
check "cross: float64 weights exported as their float32 rounding" test $? -eq 0
A --attention "$T/cross.npy" --tokens "$T/q4.txt" --key-tokens "$T/k6.txt" --dump "$T/dx" \
    2>/dev/null
check "cross: --dump writes no rollout (not square)" test -f "$T/dx/attention.npy" -a \
    ! -e "$T/dx/rollout.npy"

# 5. Bad files: one line, exit 2; unnormalised rows: a warning, exit 0.
bad() {
    local name=$1 pat=$2; shift 2
    A "$@" -e csv >/dev/null 2>"$T/err"; local rc=$?
    if [ $rc -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -Eq "^attnviz: .*$pat" "$T/err"
    then ok "bad file: $name"; else notok "bad file: $name (rc $rc: $(head -c 200 "$T/err"))"; fi
}
bad "wrong rank" 'bad_rank.npy: shape \(7, 7\) has 2 dimensions' --attention "$T/bad_rank.npy" --tokens "$T/tok7.txt"
bad "n vs tokens" '6 rows per head but tok7.txt has 7' --attention "$T/bad_n.npy" \
    --tokens "$T/tok7.txt"
bad "NaN" 'layer 2, head 3, row 4, column 5' --attention "$T/bad_nan.npy" --tokens "$T/tok7.txt"
bad "Inf" 'NaN or Inf' --attention "$T/bad_inf.npy" --tokens "$T/tok7.txt"
bad "negative" 'negative weight' --attention "$T/bad_neg.npy" --tokens "$T/tok7.txt"
bad "--tokens without --attention" '--tokens goes with --attention' --tokens "$T/tok7.txt"
bad "--attention with TEXT" 'leave out TEXT' --attention "$T/rand.npy" --tokens "$T/tok7.txt" hi
bad "--head past the file's heads" 'has 3 heads' --attention "$T/rand.npy" \
    --tokens "$T/tok7.txt" --head 4
A --attention "$T/unnorm.npy" --tokens "$T/tok7.txt" -e csv >"$T/u.csv" 2>"$T/err"
rc=$?
check "unnormalised rows: exit 0, one line 'attnviz: warning: '" test $rc -eq 0 -a \
    "$(wc -l <"$T/err")" -eq 1 -a "$(grep -c '^attnviz: warning: .*do not sum to 1' "$T/err")" -eq 1
first=$(sed -n 2p "$T/l2.csv" | cut -d, -f1-5)
check "unnormalised rows: exported as they are" grep -q "$first" "$T/u.csv"
for f in trace pipeline; do
    A --attention "$T/rand.npy" --tokens "$T/tok7.txt" -e $f --token 1 >/dev/null 2>"$T/err"
    check "-e $f: needs a model's vectors, exit 2" test $? -eq 2 -a "$(grep -c \
        "needs a model's vectors (Q, K, V): imported attention has only weights" "$T/err")" -eq 1
done

# 6. A sparse (12, 12, 2048, 2048) float32 file, 2.4 GB: opened, validated and
# exported with a peak RSS under 800 MB, and under a virtual memory limit of
# 3.5 GB, which holds the map (2.4 GB) but not the map and a read copy.
"$PY" - "$T/big.npy" <<'EOF'
import sys, numpy as np
hdr = np.lib.format
with open(sys.argv[1], 'wb') as f:
    hdr.write_array_header_1_0(f, {'descr': '<f4', 'fortran_order': False,
                                   'shape': (12, 12, 2048, 2048)})
    off = f.tell()
    f.seek(off + 12 * 12 * 2048 * 2048 * 4 - 4); f.write(np.float32(0.5).tobytes())
EOF
"$PY" -c "print('\n'.join('t%d' % i for i in range(2048)))" >"$T/big.txt"
# (A sanitized build reserves terabytes of shadow address space and more
# resident memory: there only the result is checked.)
sanitized=${ATTNVIZ_SANITIZED:-}
(test -n "$sanitized" || ulimit -v 3500000
 /usr/bin/time -f '%M' -o "$T/rss" "$BIN" --attention "$T/big.npy" \
    --tokens "$T/big.txt" -e text --layer 12 --head 12 --width 80 >"$T/big.out" 2>"$T/err")
rc=$?
under=" under ulimit -v 3.5 GB"; [ -z "$sanitized" ] || under=" (sanitized build)"
check "2.4 GB sparse file: exit 0$under, a warning for its zero rows" \
    test $rc -eq 0 -a "$(grep -c '^attnviz: warning: ' "$T/err")" -eq 1
rss=$(tail -1 "$T/rss")
[ -n "$sanitized" ] ||
    check "2.4 GB sparse file: peak RSS ${rss} KiB < 800 MB" test "${rss:-999999999}" -lt 819200
check "2.4 GB sparse file: the last head drawn pooled" grep -q '2048 tokens pooled' "$T/big.out"
rm -f "$T/big.npy"

# 7. The interface at 80x24 and 120x40 on a (2, 4, 12, 12) array.
want=$(cat "$T/rollout_row1.txt")
for size in "80 24" "120 40"; do
    set -- $size
    start "TERM=xterm-256color" "$1" "$2" --attention "$T/ui.npy" --tokens "$T/tok12.txt"
    check "$1x$2: opens on layer 1 of the imported heads" wait_for 'layer 1 of 2: imported'
    check "$1x$2: the status line names the file" wait_for 'ui.npy: 2 layers x 4 heads'
    check "$1x$2: the top line offers no e (the text is the file's)" \
        eval "screen | head -1 | grep -q 'attnviz | Attention' && ! screen | head -1 | grep -q 'e: edit'"
    keys l
    check "$1x$2: l shows layer 2" wait_for 'layer 2 of 2: imported'
    keys O
    check "$1x$2: O shows the rollout of layers 1-2" wait_for 'rollout of layers 1-2'
    if [ "$1" = 120 ]; then
        got=$(screen | grep -E '^ *1 alpha ' | head -1 | sed 's/^ *1 alpha//' |
              grep -oE '[0-9]+' | head -12 | tr '\n' ' ' | sed 's/ $//')
        check "$1x$2: rollout row 1 is NumPy's ($want)" test "$got" = "$want"
    fi
    keys O A
    check "$1x$2: A combines the heads (mean)" wait_for 'heads combined: mean'
    keys A A A
    check "$1x$2: A cycles back to the weights" wait_for 'showing the weights'
    keys w
    check "$1x$2: the trace needs a model" wait_for "the trace needs a model's vectors"
    keys v
    check "$1x$2: the PE view needs a model" wait_for "PE view needs a model's vectors"
    keys M
    check "$1x$2: M sums the selected query row" wait_for '1 query summed:'
    keys j j M
    check "$1x$2: M again, 2 queries: their rows summed in the bars" \
        wait_for '2 queries summed \(M, head 1\):'
    check "$1x$2: the largest summed weight is NumPy's ($(cat "$T/multi_top.txt"))" \
        wait_for "$(cat "$T/multi_top.txt")"
    keys M k k M
    keys Right
    check "$1x$2: the cell inspector: weight, no raw score" wait_for 'no raw score(: these weights|: weights without Q, K| \(no Q, K\))'
    keys B
    check "$1x$2: B shows two heads side by side" wait_for 'Head 2: imported'
    keys B x
    check "$1x$2: x exports the focused head" wait_for 'wrote attnviz-head1-'
    keys q
    check "$1x$2: q quits with status 0" wait_for 'EXITED:0'
done

# A causal file is drawn masked on the screen too.
start "TERM=xterm-256color" 120 40 --attention "$T/uic.npy" --tokens "$T/tok12.txt"
check "causal import: the status line says the mask was detected" \
    wait_for 'mask causal \(detected\)'
check "causal import: row 1 draws 11 masked cells" \
    test "$(screen | grep -E '^ *1 alpha ' | head -1 | grep -o '╳' | wc -l)" = 11
keys Right Right # token 1 -> token 2: past the diagonal
check "causal import: a masked cell is the file's zero triangle, not a score of -inf" \
    eval "wait_for 'weight exactly 0: the file is causal' &&
          ! screen | grep -q 'score -inf'"
keys q

# 8. The combining views on attnviz's own model against its --dump (norms.npy,
# attention.npy, rollout.npy): V shows row 1 of head 1's value-weighted norms
# as shares of their sum, A the mean of the heads, O on layer 2 the rollout.
S='The cat sat on the mat because it was tired.'
A --dump "$T/own" --preset random --layers 2 "$S" 2>/dev/null
"$PY" - "$T/own" >"$T/own_rows" <<'EOF2'
import sys, numpy as np
d = sys.argv[1]; pct = lambda r: ' '.join('%d' % round(100 * v) for v in r)
n = np.load(d + '/norms.npy')[0, 0, 0].astype(np.float64)
print(pct(n / n.sum()))
print(pct(np.load(d + '/attention.npy')[0].astype(np.float64).mean(0)[0]))
print(pct(np.load(d + '/rollout.npy')[0]))
EOF2
row1() { screen | grep -E '^ *1 The ' | head -1 | sed 's/^ *1 The//' | grep -oE '[0-9]+' |
         head -11 | tr '\n' ' ' | sed 's/ $//'; }
start "TERM=xterm-256color" 120 40 --preset random --layers 2 "$S"
check "own model: --dump wrote norms.npy (L, H, n, n)" test -s "$T/own/norms.npy"
keys V
wait_for 'value-weighted norms' >/dev/null; settle
check "own model: V row 1 is norms.npy's row as shares" \
    test "$(row1)" = "$(sed -n 1p "$T/own_rows")"
keys V A
wait_for 'heads combined: mean' >/dev/null; settle
check "own model: A row 1 is the mean of the heads" test "$(row1)" = "$(sed -n 2p "$T/own_rows")"
keys A A A O l
wait_for 'rollout of layers 1-2' >/dev/null; settle
check "own model: O on layer 2 row 1 is rollout.npy's" test "$(row1)" = "$(sed -n 3p "$T/own_rows")"
keys w
check "own model: w leaves the rollout for the trace" wait_for 'Calculation trace: head 1 of 4'
settle
keys Escape
# q only once Escape has been taken: an Escape and a q read within ncurses'
# escape delay are one key, Alt-q, which does not quit
check "own model: Escape backs out of the trace" \
    wait_for '^ tokens 11 \| d_model 32 \| heads 4'
settle
keys q
check "own model: q quits with status 0" wait_for 'EXITED:0'
exit $fail

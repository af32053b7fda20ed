#!/bin/bash
# tier: test
# asan: yes
# hub.sh - hub ids and `attnviz get`, without the internet: a stand-in for the
# hub (tests/e2e/lib/fakehub.py) on 127.0.0.1 serves small random GPT-2
# checkpoints (scripts/gpt2-checkpoint.py, with its own small tokenizer) and
# fails on request; HF_ENDPOINT points at it, HF_HUB_CACHE at a fresh folder.
#  - a cache laid out by hand (refs, snapshots, links into blobs) opens with
#    --model ID, with the same numbers as the folder itself, also under the
#    other name of a short id; an ambiguous abbreviated commit is said;
#  - what `attnviz get` writes has that layout (refs/main, relative links to
#    blobs named by sha256 or git id, no temporary file) and opens with the
#    same numbers; a second get fetches nothing; a cut blob, or one of the
#    right size with a byte changed (sha256, git blob id), is fetched again;
#    shards, a renamed repo (307),
#    a commit as revision and an id as long as the hub allows too;
#  - downloads killed (SIGKILL) at random points leave the cache usable, and
#    the next get resumes with a Range request (seen in the server's log);
#  - beside a download of huggingface_hub's (tests/e2e/lib/hflock.py), get
#    takes the same lock (.locks/models--ORG--NAME/ETAG.lock), waits, says so;
#    so does a second attnviz get beside a first, and fetches nothing;
#  - a dropped or stalled connection is retried and resumed (a stall and a
#    HEAD with no answer are said, with the try), for as long as each try
#    adds bytes; an LFS redirect without
#    X-Linked-Etag is fetched, named by its ETag, with no false mismatch;
#    an announced size larger than the file keeps the file its sha256 names,
#    else says both sizes; one past the free space is said as such;
#  - each failure (404, 401, 403, no network, HF_HUB_OFFLINE, dropped every
#    time, a wrong checksum, a full disk, a Git LFS pointer, a snapshot
#    lacking a file, a name found nowhere) is one line and its exit status;
#  - the question on a terminal: yes downloads, no (or Ctrl-D) fetches
#    nothing; it says when the cache holds the repo but not the snapshot;
#  - a second hub whose CDN is another host (localhost) under a mirror's
#    path: the token never goes to the CDN, a renamed repo's relative
#    redirect stays under the path, the CDN's refusal, server error or
#    unknown name is said as its own;
#    a HEAD answered 503 (Retry-After) once is asked again, one answered 429
#    with Retry-After: 100 is said at once, one with an HTTP date waited
#    for; a mirror refusing HEAD (405) is read with a GET; a download the
#    hub refuses after its HEAD said yes is said as such; an HF_ENDPOINT
#    without a scheme is refused; the hub's 401 RepoNotFound is no such
#    model; the progress bar fits a narrow terminal, and so does the
#    "reading" line of a cached model, named by its hub id.
# Prints "ok - ..." / "not ok - ..." / "skip - ...". Run from the repository root.
set -u
PY=/usr/bin/python3
A=${ATTNVIZ:-$PWD/attnviz}
if ! "$PY" -c 'import numpy' 2>/dev/null; then
    echo "skip - hub: python3-numpy not installed (scripts/deps.sh test)"
    exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/attnviz-hub.XXXXXX") || exit 1
hubpid= hub2pid=
cleanup() {
    [ -n "$hubpid" ] && kill "$hubpid" 2>/dev/null
    [ -n "$hub2pid" ] && kill "$hub2pid" 2>/dev/null
    umount "$tmp/full" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
fail=0
ok() { echo "ok - $*"; }
notok() { echo "not ok - $*"; fail=1; }
check() { # check NAME CMD...: ok when CMD succeeds
    local name=$1; shift
    if "$@"; then ok "$name"; else notok "$name"; fi
}

# Nothing may reach the internet: until the server is up, a closed port.
export HF_ENDPOINT=http://127.0.0.1:9 HF_HUB_CACHE=$tmp/cache
unset HF_TOKEN HF_HUB_OFFLINE HF_HOME HUGGING_FACE_HUB_TOKEN HF_HUB_DISABLE_IMPLICIT_TOKEN
# no token from a login of the machine's user (HOME/.cache/huggingface/token)
export HF_TOKEN_PATH=$tmp/no-token
export HF_HUB_DOWNLOAD_TIMEOUT=2 LC_ALL=C.UTF-8
TEXT="The cat sat on the mat because it was tired."

M=$tmp/m1 S=$tmp/m2
"$PY" scripts/gpt2-checkpoint.py "$M" --seed 3 --vocab 1024 --ctx 128 >/dev/null &&
    "$PY" scripts/gpt2-checkpoint.py "$S" --seed 4 --vocab 1024 --ctx 128 --shards 2 >/dev/null ||
    { notok "hub: gpt2-checkpoint.py failed"; exit 1; }

# a model of a kind attnviz does not read, and one without a tokenizer
mkdir -p "$tmp/llama" "$tmp/notok" && cp "$M"/* "$tmp/llama/" &&
    sed -i 's/"model_type": *"gpt2"/"model_type": "llama"/' "$tmp/llama/config.json" &&
    cp "$M/config.json" "$M/model.safetensors" "$tmp/notok/" ||
    { notok "hub: the llama and notok folders"; exit 1; }
grep -q '"llama"' "$tmp/llama/config.json" || { notok "hub: no llama model_type"; exit 1; }
# an id as long as the hub allows: some-organisation/ and 90 characters
LONG=some-organisation/$(printf 'long-model-name-%.0s' 1 2 3 4 5)$(printf 'x%.0s' $(seq 10))
log=$tmp/hub.log faults=$tmp/faults
: >"$faults"
: >"$log"
"$PY" tests/e2e/lib/fakehub.py --repo user/tiny="$M" --repo user/sharded="$S" \
    --repo openai-community/gpt2="$M" --alias gpt2=openai-community/gpt2 \
    --repo user/gated="$M" --gated user/gated --token secret \
    --repo user/big="$M" --repo user/big2="$M" --repo user/asked="$M" --repo user/both="$M" \
    --repo meta/llama="$tmp/llama" --repo user/notok="$tmp/notok" --repo "$LONG=$M" \
    --faults "$faults" --log "$log" --port-file "$tmp/port" 2>"$tmp/hub.err" &
hubpid=$!
for _ in $(seq 100); do [ -s "$tmp/port" ] && break; sleep 0.05; done
[ -s "$tmp/port" ] || { notok "hub: fakehub.py did not start: $(head -3 "$tmp/hub.err")"; exit 1; }
PORT=$(cat "$tmp/port")
export HF_ENDPOINT=http://127.0.0.1:$PORT

# same_numbers NAME DIR_OR_ID: --dump of the model equals the folder's $M
"$A" --model "$M" --dump "$tmp/ref" "$TEXT" >/dev/null 2>&1 ||
    { notok "hub: --model DIR --dump fails on the checkpoint"; exit 1; }
"$A" --model "$S" --dump "$tmp/refs" "$TEXT" >/dev/null 2>&1 ||
    { notok "hub: --model DIR --dump fails on the sharded checkpoint"; exit 1; }
same_numbers() {
    local name=$1 model=$2 ref=${3:-$tmp/ref} out=$tmp/dump.$RANDOM
    if ! "$A" --model "$model" --dump "$out" "$TEXT" >/dev/null 2>"$tmp/err"; then
        notok "$name: --model $model --dump fails: $(head -1 "$tmp/err")"
        return
    fi
    for f in ids.npy logits.npy attention.npy tokens.txt; do
        if ! cmp -s "$ref/$f" "$out/$f"; then
            notok "$name: $f differs from the folder's"
            return
        fi
    done
    ok "$name: ids, logits and attention equal the folder's, bit for bit"
}

. tests/e2e/lib/oneline.sh # one_line NAME STATUS PATTERN CMD...
requests() { wc -l <"$log"; }

# --- a cache laid out by hand, as huggingface_hub writes it -------------------
hand() { # hand ROOT DIRNAME: lay $M out as a cached repo
    local repo=$1/$2 hash=0123456789abcdef0123456789abcdef01234567
    mkdir -p "$repo/blobs" "$repo/snapshots/$hash" "$repo/refs"
    for f in "$M"/*; do
        local sum
        sum=$(sha256sum "$f" | cut -d' ' -f1)
        cp "$f" "$repo/blobs/$sum"
        ln -s "../../blobs/$sum" "$repo/snapshots/$hash/$(basename "$f")"
    done
    printf '%s' "$hash" >"$repo/refs/main"
}
hand "$tmp/handcache" models--user--hand
hand "$tmp/handcache" models--openai-community--gpt2
before=$(requests)
HF_HUB_CACHE=$tmp/handcache same_numbers "a hand-laid cache opens as user/hand" user/hand
HF_HUB_CACHE=$tmp/handcache same_numbers "gpt2 is found as models--openai-community--gpt2" gpt2
mkdir -p "$tmp/hh" && mv "$tmp/handcache" "$tmp/hh/hub"
HF_HUB_CACHE= HF_HOME=$tmp/hh same_numbers "HF_HOME/hub is the cache when HF_HUB_CACHE is unset" \
    user/hand
mkdir -p "$tmp/home/.cache/huggingface" && mv "$tmp/hh/hub" "$tmp/home/.cache/huggingface/hub"
HF_HUB_CACHE= HOME=$tmp/home same_numbers "else ~/.cache/huggingface/hub" user/hand
HF_HUB_CACHE= HOME=$tmp/home same_numbers "a commit abbreviated to 7 hex digits, as git prints it" \
    user/hand@0123456
# a second snapshot the same 7 digits begin: ambiguous, said with both
twin=$tmp/home/.cache/huggingface/hub/models--user--hand/snapshots
cp -a "$twin/0123456789abcdef0123456789abcdef01234567" \
    "$twin/0123456789ab0000000000000000000000000000"
HF_HUB_CACHE= HOME=$tmp/home one_line "an abbreviation two snapshots begin is ambiguous, with both" 2 \
    'user/hand: 0123456 is ambiguous: 0123456789ab0\.\.\., 0123456789abc\.\.\. \(more digits name one\)' \
    "$A" --model user/hand@0123456 --export text "$TEXT"
HF_HUB_OFFLINE=1 HF_HUB_CACHE= HOME=$tmp/home one_line "... also to get with HF_HUB_OFFLINE" 2 \
    'user/hand: 0123456 is ambiguous: 0123456789ab0\.\.\., 0123456789abc\.\.\.' \
    "$A" get user/hand@0123456
rm -rf "$twin/0123456789ab0000000000000000000000000000"
HF_HUB_CACHE= HOME=$tmp/home one_line "nothing after @ is said as such, not as a missing folder" 2 \
    'user/hand@: no such folder, and nothing follows @: a revision is a branch, a tag or a commit \(user/hand@main\)' \
    "$A" --model user/hand@ --export text "$TEXT"
HF_HUB_CACHE= HF_HOME= XDG_CACHE_HOME= one_line "no HOME and no cache variable: said, with what to set" 2 \
    'user/hand: no such folder, and no Hugging Face cache to look in: set HF_HUB_CACHE, HF_HOME or HOME' \
    env -u HOME "$A" --model user/hand --export text "$TEXT"
check "opening from the cache made no request" [ "$(requests)" -eq "$before" ]

# --- attnviz get writes that layout ------------------------------------------
snap=$("$A" get user/tiny 2>"$tmp/err")
rc=$?
repo=$HF_HUB_CACHE/models--user--tiny
commit=$(cat "$repo/refs/main" 2>/dev/null)
if [ $rc -eq 0 ] && [[ "$commit" =~ ^[0-9a-f]{40}$ ]] && [ "$snap" = "$repo/snapshots/$commit" ]; then
    ok "get user/tiny: refs/main names the snapshot it prints"
else
    notok "get user/tiny: exit $rc, refs/main '$commit', printed '$snap': $(tr '\n' '|' <"$tmp/err")"
fi
layout_ok=1
for f in "$M"/*; do
    b=$(basename "$f")
    t=$(readlink "$snap/$b")
    want=$(sha256sum "$f" | cut -d' ' -f1)
    # small files are named by their git blob id, LFS ones by their sha256
    [ "${b##*.}" = safetensors ] || want=$("$PY" -c 'import hashlib,sys
d=open(sys.argv[1],"rb").read(); print(hashlib.sha1(b"blob %d\0" % len(d) + d).hexdigest())' "$f")
    if [ "$t" != "../../blobs/$want" ] || ! cmp -s "$f" "$snap/$b"; then
        notok "get: $b links to '$t', want ../../blobs/$want holding the same bytes"
        layout_ok=0
    fi
done
[ $layout_ok = 1 ] && ok "get: every file links to ../../blobs/ETAG with the served bytes"
check "get: no temporary file is left" [ -z "$(find "$HF_HUB_CACHE" -name '*.incomplete' -o -name '*.tmp')" ]
check "an export of --model user/tiny says where it came from, with the owner" \
    eval '"$A" --model user/tiny --export svg "$TEXT" 2>/dev/null | grep -q "from user/tiny;"'
check "get: one line per file when stderr is not a terminal" \
    grep -q '^attnviz: model.safetensors: 0.6 MB in' "$tmp/err"
same_numbers "get user/tiny then --model user/tiny" user/tiny
"$A" --model user/tiny --export text "$TEXT" >"$tmp/a.txt" 2>/dev/null
"$A" --model "$M" --export text "$TEXT" >"$tmp/b.txt" 2>/dev/null
check "--model user/tiny --export text equals the folder's" cmp -s "$tmp/a.txt" "$tmp/b.txt"
before=$(requests)
"$A" get user/tiny >/dev/null 2>"$tmp/err"
check "a second get downloads nothing (HEADs only)" \
    [ "$(tail -n +$((before + 1)) "$log" | grep -c '^GET')" -eq 0 ]
check "a second get says the files are in the cache" grep -q 'already in the cache' "$tmp/err"
blob=$(readlink -f "$(ls -d "$HF_HUB_CACHE"/models--user--tiny/snapshots/*)/model.safetensors")
truncate -s 100000 "$blob"
"$A" get user/tiny >/dev/null 2>"$tmp/err"
check "a cut blob in the cache is said and fetched again" \
    grep -q "^attnviz: model.safetensors: the cache's copy is 0.1 MB, not 0.6 MB: fetching it again" "$tmp/err"
same_numbers "... and opens as before" user/tiny
# flip_byte FILE: one byte of FILE changed, its size kept
flip_byte() {
    "$PY" -c 'import sys
with open(sys.argv[1], "r+b") as f:
    f.seek(0, 2); at = f.tell() // 2; f.seek(at); b = f.read(1)
    f.seek(at); f.write(bytes([b[0] ^ 0xFF]))' "$1"
}
flip_byte "$blob"
conf=$(readlink -f "$(ls -d "$HF_HUB_CACHE"/models--user--tiny/snapshots/*)/vocab.json")
flip_byte "$conf"
"$A" get user/tiny >/dev/null 2>"$tmp/err"; rc=$?
if [ $rc -eq 0 ] &&
    grep -q "^attnviz: model.safetensors: the cache's copy is damaged (its sha256 is not the hub's): fetching it again$" "$tmp/err" &&
    grep -q "^attnviz: vocab.json: the cache's copy is damaged (its git blob id is not the hub's): fetching it again$" "$tmp/err" &&
    ! grep -q 'model.safetensors: already in the cache' "$tmp/err"; then
    ok "a damaged blob of the right size (a byte flipped) is said and fetched again"
else
    notok "a damaged blob of the right size: exit $rc, $(tr '\n' '|' <"$tmp/err" | cut -c1-300)"
fi
same_numbers "... and opens as before" user/tiny

"$A" get user/sharded >/dev/null 2>"$tmp/err" || notok "get user/sharded: $(tail -1 "$tmp/err")"
check "get user/sharded fetched the index and both shards" \
    [ "$(ls "$HF_HUB_CACHE"/models--user--sharded/snapshots/*/ | grep -c safetensors)" -eq 3 ]
same_numbers "a sharded model through get" user/sharded "$tmp/refs"

"$A" get gpt2 >/dev/null 2>"$tmp/err" || notok "get gpt2: $(tail -1 "$tmp/err")"
check "get gpt2 follows the hub's relative redirect to openai-community/gpt2" \
    grep -q 'GET /openai-community/gpt2/resolve/' "$log"
same_numbers "get gpt2, then --model openai-community/gpt2 (the other name)" openai-community/gpt2

"$A" get "$LONG" >/dev/null 2>"$tmp/err" || notok "get of a ${#LONG}-character id: $(tail -1 "$tmp/err")"
same_numbers "an id of some-organisation/ and 90 characters, through get" "$LONG"
one_line "a name of 97 characters is said as too long" 2 \
    "not a hub id: its name is 97 characters long, and the hub allows at most 96" \
    "$A" get "user/$(printf 'y%.0s' $(seq 97))"

rm -rf "$HF_HUB_CACHE/models--user--tiny"
"$A" get "user/tiny@$commit" >/dev/null 2>"$tmp/err" || notok "get @commit: $(tail -1 "$tmp/err")"
check "get ID@COMMIT writes no ref (the revision is the commit)" \
    [ ! -e "$HF_HUB_CACHE/models--user--tiny/refs/main" ]
same_numbers "--model ID@COMMIT opens that snapshot" "user/tiny@$commit"

# --- killed at random points, then resumed -----------------------------------
echo "cdn trickle:150000" >"$faults"
big=$HF_HUB_CACHE/models--user--big
size=$(stat -c %s "$M/model.safetensors")
for round in 1 2 3; do
    "$A" get user/big >/dev/null 2>&1 &
    pid=$!
    sleep "$(awk -v r=$RANDOM 'BEGIN { printf "%.2f", 0.4 + (r % 100) / 100 }')"
    kill -9 $pid 2>/dev/null
    wait $pid 2>/dev/null
    part=$(find "$big/blobs" -name '*.incomplete' 2>/dev/null | head -1)
    have=$([ -n "$part" ] && stat -c %s "$part" || echo 0)
    # usable: never a ref, so never a half snapshot opened; no whole-named partial blob
    bad=0
    for blob in "$big"/blobs/*; do
        [ -e "$blob" ] || continue
        case $blob in *.incomplete) continue ;; esac
        n=$(basename "$blob")
        [ ${#n} -eq 64 ] && [ "$(sha256sum "$blob" | cut -d' ' -f1)" != "$n" ] && bad=1
    done
    "$A" --model user/big --export text "$TEXT" >/dev/null 2>"$tmp/err"
    rc=$?
    if [ $bad -eq 0 ] && [ ! -e "$big/refs/main" ] && [ $rc -eq 2 ] &&
        grep -q 'attnviz get user/big' "$tmp/err"; then
        ok "kill -9 round $round ($have of $size bytes): the cache holds no half file under its name"
    else
        notok "kill -9 round $round: bad blob $bad, ref $(ls "$big/refs" 2>/dev/null), --model exit $rc"
    fi
done
: >"$faults"
before=$(requests)
"$A" get user/big >/dev/null 2>"$tmp/err" || notok "get after the kills: $(tail -1 "$tmp/err")"
if tail -n +$((before + 1)) "$log" | grep -Eq '^GET /cdn/.* range=bytes=[1-9][0-9]*- '; then
    ok "the get after the kills resumed with a Range request"
else
    notok "no Range request after the kills: $(tail -n +$((before + 1)) "$log" | grep '^GET /cdn' | head -2)"
fi
same_numbers "the resumed download opens" user/big

# --- two gets of one model at once: the second waits for the first, says so ---
echo "cdn trickle:300000" >"$faults"
cdn_gets=$(grep -c '^GET /cdn/' "$log")
"$A" get user/both >/dev/null 2>"$tmp/first.err" &
first=$!
# the first's GET of the weights is in the log (not only its .incomplete on
# disk: under ASan the request came after, and was counted as the second's)
for _ in $(seq 200); do
    [ -n "$(find "$HF_HUB_CACHE/models--user--both/blobs" -name '*.incomplete' 2>/dev/null)" ] &&
        [ "$(grep -c '^GET /cdn/' "$log")" -gt "$cdn_gets" ] && break
    sleep 0.05
done
before=$(requests)
"$A" get user/both >/dev/null 2>"$tmp/err"
rc=$?
wait $first
rc1=$?
if [ $rc -eq 0 ] && [ $rc1 -eq 0 ] &&
    grep -qx 'attnviz: model.safetensors: another attnviz get is downloading it: waiting for it' "$tmp/err" &&
    [ "$(tail -n +$((before + 1)) "$log" | grep -c '^GET /cdn/')" -eq 0 ] &&
    [ -z "$(find "$HF_HUB_CACHE/models--user--both/blobs" -name '*.incomplete')" ]; then
    ok "a second get while one downloads waits for it, says so, and fetches nothing"
else
    notok "a second get while one downloads: exits $rc and $rc1, $(tr '\n' '|' <"$tmp/err" | cut -c1-300)"
fi
same_numbers "what the first get wrote opens" user/both
: >"$faults"

# --- beside a Python download: huggingface_hub's lock is taken and waited for --
sum=$(sha256sum "$M/model.safetensors" | cut -d' ' -f1)
rm -f "$tmp/ready"
"$PY" tests/e2e/lib/hflock.py "$tmp/py" models--user--tiny "$sum" "$M/model.safetensors" 1 \
    "$tmp/ready" &
pypid=$!
for _ in $(seq 100); do [ -e "$tmp/ready" ] && break; sleep 0.05; done
before=$(requests)
t0=$(date +%s.%N)
HF_HUB_CACHE=$tmp/py "$A" get user/tiny >/dev/null 2>"$tmp/err"
rc=$?
t1=$(date +%s.%N)
wait $pypid
blob=$tmp/py/models--user--tiny/blobs/$sum
if [ $rc -eq 0 ] && grep -q "^attnviz: model.safetensors: another download of it holds .*/py/.locks/models--user--tiny/$sum.lock: waiting for it$" "$tmp/err" &&
    awk -v a="$t0" -v b="$t1" 'BEGIN { exit !(b - a >= 0.8) }' &&
    [ "$(sha256sum "$blob" | cut -d' ' -f1)" = "$sum" ] &&
    ! tail -n +$((before + 1)) "$log" | grep -q '^GET /cdn/'; then
    ok "get waits for huggingface_hub's lock on the blob, then uses the whole blob it wrote"
else
    notok "get beside a Python download: exit $rc, $(tr '\n' '|' <"$tmp/err" | cut -c1-300)"
fi
HF_HUB_CACHE=$tmp/py same_numbers "... and the model opens" user/tiny

# --- dropped and stalled connections -----------------------------------------
echo "cdn drop 1" >"$faults"
before=$(requests)
"$A" get user/big2 >/dev/null 2>"$tmp/err" || notok "get with one drop: $(tail -1 "$tmp/err")"
check "a connection dropped half-way is retried with a Range request" \
    grep -Eq '^GET /cdn/.* range=bytes=[1-9]' <(tail -n +$((before + 1)) "$log")
same_numbers "the download retried after a drop opens" user/big2
rm -rf "$HF_HUB_CACHE/models--user--big2"
echo "cdn stall 1" >"$faults"
HF_HUB_DOWNLOAD_TIMEOUT=1 "$A" get user/big2 >/dev/null 2>"$tmp/err" ||
    notok "get with a stall: $(tail -1 "$tmp/err")"
check "the stall is said, with where the download resumes" \
    grep -Eq '^attnviz: model.safetensors: stalled \(under 1 KB/s for 1 s\); resuming at [0-9.]+ MB \(try 2\)$' "$tmp/err"
same_numbers "a stalled transfer (HF_HUB_DOWNLOAD_TIMEOUT=1) is retried" user/big2
rm -rf "$HF_HUB_CACHE/models--user--big2"
echo "config.json hang 1" >"$faults"
if HF_HUB_ETAG_TIMEOUT=1 "$A" get user/big2 >/dev/null 2>"$tmp/err" &&
    grep -q '^attnviz: config.json: no answer in 1 s; asking again (2 of 5)$' "$tmp/err"; then
    ok "a HEAD with no answer (HF_HUB_ETAG_TIMEOUT=1) is said and asked again"
else
    notok "a HEAD with no answer: $(tr '\n' '|' <"$tmp/err" | cut -c1-300)"
fi
: >"$faults"
rm -rf "$HF_HUB_CACHE/models--user--big2"

# a connection that drops every 100000 bytes: each try adds bytes, and the
# tries (6 of them) are not counted against the 5 in a row without one
echo "cdn drop:100000" >"$faults"
before=$(requests)
if "$A" get user/big2 >/dev/null 2>"$tmp/err" &&
    [ "$(tail -n +$((before + 1)) "$log" | grep -c '^GET /cdn/')" -eq $((size / 100000 + 1)) ]; then
    ok "a connection dropping every 100000 bytes ends whole ($((size / 100000 + 1)) tries)"
else
    notok "dropping every 100000 bytes: $(tr '\n' '|' <"$tmp/err" | cut -c1-300)"
fi
same_numbers "... and opens" user/big2
rm -rf "$HF_HUB_CACHE/models--user--big2"
printf '/cdn/ drop 1\ncdn drop:0\n' >"$faults" # not "cdn drop 1": that rule is used up
before=$(requests)
one_line "dropped every time" 1 'connection dropped.*attnviz get user/big2. again resumes' \
    "$A" get user/big2
check "... after 5 tries in a row that added nothing, after 1 that did" \
    [ "$(tail -n +$((before + 1)) "$log" | grep -c '^GET /cdn/')" -eq 6 ]
check "the partial download stays for the next get" \
    [ -n "$(find "$HF_HUB_CACHE/models--user--big2/blobs" -name '*.incomplete')" ]
echo "cdn badsum" >"$faults"
rm -rf "$HF_HUB_CACHE/models--user--big2"
one_line "a wrong checksum" 1 'model.safetensors: checksum mismatch' "$A" get user/big2
# left: the git-named small files fetched before the weights, nothing else
check "the bad copy is deleted: no weights' blob, whole or partial" \
    [ -z "$(ls "$HF_HUB_CACHE/models--user--big2/blobs" | grep -v '^[0-9a-f]\{40\}$')" ]
check "a wrong checksum writes no ref" [ ! -e "$HF_HUB_CACHE/models--user--big2/refs/main" ]
echo "config.json badsum" >"$faults"
rm -rf "$HF_HUB_CACHE/models--user--big2"
one_line "a small file whose bytes are not its git blob id (ETag)" 1 \
    'config.json: checksum mismatch: its git blob id is' "$A" get user/big2
check "the bad small file is deleted and no ref is written" \
    [ -z "$(find "$HF_HUB_CACHE/models--user--big2" -name '*.incomplete')" ] &&
    [ ! -e "$HF_HUB_CACHE/models--user--big2/refs/main" ]
: >"$faults"
# an LFS file's redirect without X-Linked-Etag: its ETag (the pointer's git
# id) names the blob, and is not taken for the git id of the bytes; its
# size is asked where the bytes are
echo "model.safetensors nolinked" >"$faults"
rm -rf "$HF_HUB_CACHE/models--user--big2"
if "$A" get user/big2 >/dev/null 2>"$tmp/err" && ! grep -q 'checksum' "$tmp/err" &&
    grep -q '^attnviz: model.safetensors: 0.6 MB in' "$tmp/err"; then
    ok "a redirect without X-Linked-Etag: the ETag names the blob, no false checksum mismatch"
else
    notok "a redirect without X-Linked-Etag: $(tr '\n' '|' <"$tmp/err" | cut -c1-300)"
fi
: >"$faults"
same_numbers "... and opens" user/big2
rm -rf "$HF_HUB_CACHE/models--user--big2"

# an announced size (X-Linked-Size) 1000 bytes more than the file: the part
# whose sha256 is the hub's is the file, kept; a second get fetches nothing
# (before: the whole file fetched again and again; timeout: never for ever)
echo "model.safetensors bigsize:1000" >"$faults"
before=$(requests)
if timeout 60 "$A" get user/big2 >/dev/null 2>"$tmp/err" &&
    [ "$(tail -n +$((before + 1)) "$log" | grep -c '^GET /cdn/')" -eq 1 ]; then
    ok "an announced size larger than the file: the file, its sha256 the hub's, kept (1 GET)"
else
    notok "an announced size larger than the file: $(tr '\n' '|' <"$tmp/err" | cut -c1-300)"
fi
same_numbers "... and opens" user/big2
before=$(requests)
timeout 60 "$A" get user/big2 >/dev/null 2>"$tmp/err"
check "... and a second get fetches nothing, the file already in the cache" \
    eval '[ "$(tail -n +$((before + 1)) "$log" | grep -c "^GET")" -eq 0 ] &&
          grep -q "^attnviz: model.safetensors: already in the cache" "$tmp/err"'
rm -rf "$HF_HUB_CACHE/models--user--big2"
printf 'model.safetensors bigsize:1000\n/cdn/ badsum\n' >"$faults"
one_line "an announced size larger than the file, its bytes wrong: both sizes said" 1 \
    "model.safetensors from .*: the hub announced $((size + 1000)) bytes and the server has $size \\(and those do not match its checksum\\)$" \
    timeout 60 "$A" get user/big2
check "... no resume promised, no part left" \
    eval '! grep -q "again resumes" "$tmp/err" &&
          [ -z "$(find "$HF_HUB_CACHE/models--user--big2" -name "*.incomplete")" ]'
: >"$faults"
# an announced size beyond any disk (10^20 bytes more): said as more than the
# space free, never as a full disk (before: "... are free (the disk is full)")
echo "model.safetensors bigsize:99999999999999999999" >"$faults"
rm -rf "$HF_HUB_CACHE/models--user--big2"
one_line "an announced size past the free space is said as such" 1 \
    'model.safetensors into .*: the hub announces 100000000000.00 GB still to fetch, more than the [0-9.]+ [GMT]B free there$' \
    timeout 60 "$A" get user/big2
check "... and the disk is not called full" eval '! grep -q "disk is full" "$tmp/err"'
: >"$faults"

# --- failures, one line each -------------------------------------------------
one_line "no such model (404)" 2 'no model user/nope at http://127.0.0.1' "$A" get user/nope
one_line "no such revision" 2 'user/tiny has no revision v9' "$A" get user/tiny@v9
one_line "a gated model without a token (401)" 1 \
    "gated or private \\(401\\): no token was found \\(HF_TOKEN, HUGGING_FACE_HUB_TOKEN, $tmp/no-token\\): set HF_TOKEN to an access token that may read it, or log in with \`hf auth login\`$" \
    "$A" get user/gated
HF_TOKEN=wrong one_line "a gated model with a refused token (403)" 1 'HF_TOKEN was refused \(403\)' \
    "$A" get user/gated
if HF_TOKEN=secret "$A" get user/gated >/dev/null 2>"$tmp/err" &&
    grep -q 'HEAD /user/gated/resolve/main/config.json range=- auth=yes -> 200' "$log"; then
    ok "HF_TOKEN is sent as a bearer token and opens the gated model"
else
    notok "HF_TOKEN=secret get user/gated: $(tail -1 "$tmp/err")"
fi
echo "resolve 500" >"$faults"
one_line "a server error" 1 'config.json from .*: the server answered 500' "$A" get user/tiny2
: >"$faults"
closed=$("$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
HF_ENDPOINT=http://127.0.0.1:$closed one_line "no network" 1 'cannot reach http://127.0.0.1:[0-9]+' \
    "$A" get user/tiny
before=$(requests)
HF_HUB_OFFLINE=1 one_line "HF_HUB_OFFLINE=1 forbids the download" 1 'HF_HUB_OFFLINE is set' \
    "$A" get user/nope
one_line "--model NAME found nowhere, not on a terminal" 2 \
    'user/asked is neither a folder nor in the Hugging Face cache: .attnviz get user/asked. downloads it into' \
    "$A" --model user/asked --export text "$TEXT"
one_line "--model gpt2 says how big the download is" 2 'downloads it \(about 550 MB\) into' \
    env HF_HUB_CACHE="$tmp/empty" "$A" --model gpt2 --export text "$TEXT"
check "neither HF_HUB_OFFLINE nor a name found nowhere made a request" [ "$(requests)" -eq "$before" ]
one_line "get of something that is not an id" 2 'is not a hub id' "$A" get ./some/path
one_line "a kind attnviz does not read is said before the weights" 2 \
    'meta/llama: config.json: "model_type" is "llama"; attnviz reads GPT-2 \("gpt2"\), BERT .*\(its weights are not fetched\)' \
    "$A" get meta/llama
one_line "a repository without a tokenizer is said before the weights" 2 \
    'user/notok has no tokenizer at' "$A" get user/notok
check "... and neither one's weights were asked for" \
    bash -c "! grep -Eq '/(meta/llama|user/notok)/resolve/[^/]+/model.safetensors' '$log'"

mkdir -p "$tmp/lfs" && cp "$M/config.json" "$M/vocab.json" "$M/merges.txt" "$tmp/lfs/"
printf 'version https://git-lfs.github.com/spec/v1\noid sha256:%s\nsize %s\n' \
    "$(sha256sum "$M/model.safetensors" | cut -d' ' -f1)" "$size" >"$tmp/lfs/model.safetensors"
one_line "a Git LFS pointer in place of the weights" 2 \
    'model.safetensors is a Git LFS pointer, not the weights: run .git lfs pull. in .*/lfs, or .attnviz get lfs.' \
    "$A" --model "$tmp/lfs" --export text "$TEXT"
mkdir -p "$tmp/lfs/.git" && printf '[remote "origin"]\n\turl = https://example.org/user/clone.git\n' \
    >"$tmp/lfs/.git/config"
one_line "a Git LFS pointer in a clone names the clone's id" 2 \
    'run .git lfs pull. in .*/lfs, or .attnviz get user/clone.' \
    "$A" --model "$tmp/lfs" --export text "$TEXT"
snapdir=$(ls -d "$HF_HUB_CACHE"/models--user--tiny/snapshots/*)
before=$(requests)
if out=$(HF_HUB_OFFLINE=1 "$A" get "user/tiny@$commit" 2>&1) && [ "$out" = "$snapdir" ] &&
    [ "$(requests)" -eq "$before" ]; then
    ok "HF_HUB_OFFLINE=1: get of a whole copy in the cache names its snapshot, asks nothing"
else
    notok "HF_HUB_OFFLINE=1 get of a whole copy: $out"
fi
hand=$tmp/hand/models--user--lfs/snapshots/$commit
mkdir -p "$hand" "$tmp/hand/models--user--lfs/refs" && cp "$tmp/lfs/"*.json "$tmp/lfs/"*.txt "$hand/" &&
    cp "$tmp/lfs/model.safetensors" "$hand/" && printf %s "$commit" >"$tmp/hand/models--user--lfs/refs/main"
HF_HUB_CACHE=$tmp/hand one_line "a Git LFS pointer in the cache names the repo to get, not a clone" 2 \
    "the cache's copy of user/lfs \\(.*\\) holds a Git LFS pointer in place of model.safetensors: .attnviz get user/lfs. fetches it" \
    "$A" --model user/lfs --export text "$TEXT"
cut=$tmp/hand/models--user--cut/snapshots/$commit
mkdir -p "$cut" "$tmp/hand/models--user--cut/refs" && cp "$M/"* "$cut/" &&
    truncate -s 300000 "$cut/model.safetensors" && printf %s "$commit" >"$tmp/hand/models--user--cut/refs/main"
HF_HUB_CACHE=$tmp/hand one_line "a cut weights file in the cache names the repo to get again" 2 \
    "model.safetensors: .*, in the cache's copy of user/cut \\(.*\\): .attnviz get user/cut. fetches it again" \
    "$A" --model user/cut --export text "$TEXT"
HF_HUB_OFFLINE=1 HF_HUB_CACHE=$tmp/hand one_line "a ref naming no snapshot: the repo is there, said" 2 \
    'the Hugging Face cache holds user/lfs \(.*\) but no snapshot that refs/v2 names: with HF_HUB_OFFLINE unset, .attnviz get user/lfs@v2. fetches it' \
    "$A" --model user/lfs@v2 --export text "$TEXT"
rm -f "$(readlink -f "$snapdir/merges.txt")"
one_line "a snapshot lacking a file names it" 2 'lacks merges.txt: .attnviz get user/tiny@[0-9a-f]{40}. fetches it' \
    "$A" --model "user/tiny@$commit" --export text "$TEXT"

mkdir -p "$tmp/full"
if mount -t tmpfs -o size=256k tmpfs "$tmp/full" 2>/dev/null; then
    HF_HUB_CACHE=$tmp/full one_line "a full disk" 1 'model.safetensors into .*(the disk is full|free there)' \
        "$A" get user/big2
    check "the full disk holds no blob under its final name" \
        [ -z "$(find "$tmp/full" -path '*blobs/*' -size +100k ! -name '*.incomplete')" ]
else
    echo "skip - a full disk: mounting a tmpfs is not allowed here"
fi

# --- a second hub: the CDN another host, everything under a mirror's path -----
log2=$tmp/hub2.log
: >"$log2"
"$PY" tests/e2e/lib/fakehub.py --repo user/gated="$M" --gated user/gated --token secret \
    --repo openai-community/gpt2="$M" --alias gpt2=openai-community/gpt2 --repo user/tiny="$M" \
    --cdn-host localhost --prefix /mirror --faults "$faults" --log "$log2" \
    --port-file "$tmp/port2" 2>"$tmp/hub2.err" &
hub2pid=$!
for _ in $(seq 100); do [ -s "$tmp/port2" ] && break; sleep 0.05; done
E2=http://127.0.0.1:$(cat "$tmp/port2")/mirror
if HF_ENDPOINT=$E2 HF_HUB_CACHE=$tmp/c2 HF_TOKEN=secret "$A" get user/gated >/dev/null \
    2>"$tmp/err"; then
    ok "a gated model through a mirror's path, its CDN another host"
else
    notok "get user/gated from the second hub: $(tail -1 "$tmp/err")"
fi
check "the token goes to the hub (HEAD) and never to the CDN on another host (GET)" \
    eval 'grep -q "^HEAD /mirror/user/gated/resolve/main/config.json .*auth=yes -> 200" "$log2" &&
          grep -q "^GET /mirror/cdn/" "$log2" && ! grep -q "^GET /mirror/cdn/.*auth=yes" "$log2"'
if HF_ENDPOINT=$E2 HF_HUB_CACHE=$tmp/c2 "$A" get gpt2 >/dev/null 2>"$tmp/err" &&
    ! grep -q "/mirror/mirror" "$log2"; then
    ok "a renamed repo's relative redirect (307) stays under the mirror's path"
else
    notok "get gpt2 from the mirror: $(tail -1 "$tmp/err")"
fi
echo "/cdn/ 403" >"$faults"
HF_ENDPOINT=$E2 HF_HUB_CACHE=$tmp/c3 one_line "the CDN refuses the download (403)" 1 \
    'model.safetensors from .*: localhost, where the hub sent the download, answered 403' \
    "$A" get user/tiny
echo "/cdn/ 500" >"$faults"
HF_ENDPOINT=$E2 HF_HUB_CACHE=$tmp/c3 one_line "the CDN's server error (500) names the CDN's host" 1 \
    'model.safetensors from .*: localhost, where the hub sent the download, answered 500, 5 times$' \
    "$A" get user/tiny
echo "model.safetensors cdnhost:cdn-lfs.invalid" >"$faults"
HF_HUB_CACHE=$tmp/c3 one_line "a CDN host that cannot be resolved is named, not HF_ENDPOINT" 1 \
    'model.safetensors from .*: cannot reach cdn-lfs.invalid, where the hub sent the download: .*cdn-lfs.invalid' \
    "$A" get user/tiny
check "... without blaming the endpoint" bash -c "! grep -q 'HF_ENDPOINT?' '$tmp/err'"
echo "config.json 503 1" >"$faults"
before=$(requests)
if HF_HUB_CACHE=$tmp/c4 "$A" get user/tiny >/dev/null 2>"$tmp/err" &&
    [ "$(tail -n +$((before + 1)) "$log" | grep -c '^HEAD /user/tiny/resolve/main/config.json')" = 2 ]
then
    ok "a HEAD answered 503 (Retry-After: 1) once is asked again, and the get ends well"
else
    notok "get after one 503: $(tail -1 "$tmp/err")"
fi
# Retry-After: 100 on every request: no waiting past 60 s a request, said
echo "config.json 429:100" >"$faults"
start=$SECONDS
HF_HUB_CACHE=$tmp/c6 one_line "always 429, Retry-After: 100: one line, no long wait" 1 \
    'config.json from .*: the server answered 429 \(too many requests\) and asks to wait 100 s more \(Retry-After\), past the 60 s attnviz waits: try later' \
    timeout 200 "$A" get user/tiny
check "... at once ($((SECONDS - start)) s)" [ $((SECONDS - start)) -lt 10 ]
echo "config.json 429:date6 1" >"$faults"
if HF_HUB_CACHE=$tmp/c6 "$A" get user/tiny >/dev/null 2>"$tmp/err" &&
    grep -Eq '^attnviz: config.json: the server asks to wait [56] s \(Retry-After\)$' "$tmp/err"; then
    ok "Retry-After as an HTTP date is waited for"
else
    notok "Retry-After as an HTTP date: $(tr '\n' '|' <"$tmp/err" | cut -c1-300)"
fi
# a mirror that refuses HEAD (405): the same headers from a GET of byte 0
echo "* 405@HEAD" >"$faults"
if HF_HUB_CACHE=$tmp/c7 "$A" get user/tiny >/dev/null 2>"$tmp/err"; then
    ok "a mirror refusing HEAD (405): the headers from a GET, the get ends well"
else
    notok "a mirror refusing HEAD: $(tr '\n' '|' <"$tmp/err" | cut -c1-300)"
fi
: >"$faults"
HF_HUB_CACHE=$tmp/c7 same_numbers "... and opens" user/tiny
echo "config.json 404@GET" >"$faults"
HF_HUB_CACHE=$tmp/c5 one_line "the hub refuses a download its HEAD allowed (404)" 1 \
    'config.json from .*: the server answered 404 to the download' "$A" get user/tiny
HF_ENDPOINT=127.0.0.1:$PORT one_line "an HF_ENDPOINT without http:// is refused" 2 \
    "HF_ENDPOINT is '127.0.0.1:[0-9]+': it needs http:// or https://" "$A" get user/tiny
before=$(requests)
HF_ENDPOINT="http://127.0.0.1:$PORT/?token=x" one_line "an HF_ENDPOINT with a query is refused" 2 \
    "HF_ENDPOINT is 'http://127.0.0.1:[0-9]+/\\?token=x': a hub's address has no query" \
    "$A" get user/tiny
check "... before any request" [ "$(requests)" -eq "$before" ]
echo "* 401:RepoNotFound" >"$faults"
one_line "the hub's 401 RepoNotFound is no such model" 2 \
    'no model user/typo at .* \(401 RepoNotFound\); if it is private: no token was found .*: set HF_TOKEN' \
    "$A" get user/typo
echo "cdn trickle:300000" >"$faults"
# bar COLUMNS: attnviz get with standard error a terminal that wide; every
# frame of the bar (between carriage returns) fits in COLUMNS - 1
bar() {
    HF_HUB_CACHE=$tmp/bar$1 "$PY" tests/e2e/lib/ptyrun.py --cols "$1" -- "$A" get user/big \
        >"$tmp/bar.out"
    grep -q '^EXIT 0$' "$tmp/bar.out" || { echo "exit: $(tail -1 "$tmp/bar.out")"; return 1; }
    tr '\r' '\n' <"$tmp/bar.out" | sed 's/\x1b\[K//g' | grep 'MB/s' |
        awk -v cols="$1" '{ if (length > w) w = length }
            END { printf "%d frames, the widest %d columns\n", NR, w; exit !(NR && w <= cols - 1) }'
}
for cols in 80 40; do
    if out=$(bar $cols); then ok "the progress bar fits $cols columns ($out)"
    else notok "the progress bar at $cols columns: $out"; fi
done
: >"$faults"
# reading COLUMNS: --model user/big (from the cache bar80 filled) with
# standard error a terminal that wide; every frame of "reading" fits in
# COLUMNS - 1 (a longer one wraps, and each frame leaves a line) and names
# the model by its hub id, not the snapshot's path
reading() {
    HF_HUB_CACHE=$tmp/bar80 "$PY" tests/e2e/lib/ptyrun.py --cols "$1" -- \
        "$A" --model user/big --export text "$TEXT" >"$tmp/read.out"
    grep -q '^EXIT 0$' "$tmp/read.out" || { echo "exit: $(tail -1 "$tmp/read.out")"; return 1; }
    tr '\r' '\n' <"$tmp/read.out" | sed 's/\x1b\[K//g' | grep 'reading' |
        awk -v cols="$1" '{ if (length > w) w = length; if (!/^attnviz: reading user\/big: /) bad++ }
            END { printf "%d frames, the widest %d columns, %d not of user/big\n", NR, w, bad
                  exit !(NR && w <= cols - 1 && !bad) }'
}
for cols in 80 30; do
    if out=$(reading $cols); then ok "reading a cached model fits $cols columns ($out)"
    else notok "reading a cached model at $cols columns: $out"; fi
done
# a second get of user/big on a terminal: while it reads the cached copy
# through (550 MB take seconds for gpt2), a line says so, then is cleared
HF_HUB_CACHE=$tmp/bar80 "$PY" tests/e2e/lib/ptyrun.py --cols 80 -- "$A" get user/big \
    >"$tmp/check.out"
frames=$(tr '\r' '\n' <"$tmp/check.out" | sed 's/\x1b\[K//g' |
    grep -cE '^attnviz: checking model\.safetensors: +[0-9]+% of 0\.6 MB$')
if grep -q '^EXIT 0$' "$tmp/check.out" && [ "$frames" -ge 1 ] &&
    grep -q 'attnviz: model.safetensors: already in the cache' "$tmp/check.out"; then
    ok "get of a cached file on a terminal says it checks it ($frames frames), then that it is there"
else
    notok "checking a cached file on a terminal: $frames frames; $(tr '\r\n' '||' <"$tmp/check.out" | cut -c1-300)"
fi

# --- the question on a terminal ----------------------------------------------
# ask ANSWER: --model user/asked with stdin and stderr on a pseudo-terminal
ask() {
    "$PY" tests/e2e/lib/ptyrun.py --ask "[y/N]=$1" --stdout "$tmp/asked.out" -- \
        "$A" --model user/asked --export text "$TEXT" | tr -d '\r'
}
before=$(requests)
ask n >"$tmp/ask.txt"
if grep -q 'Download it from http://127.0.0.1:[0-9]* into .*\[y/N\]' "$tmp/ask.txt" &&
    grep -q 'EXIT 2' "$tmp/ask.txt" && [ "$(requests)" -eq "$before" ]; then
    ok "on a terminal --model asks first; no fetches nothing (exit 2, no request)"
else
    notok "the question, answered no: $(tr '\n' '|' <"$tmp/ask.txt" | cut -c1-300)"
fi
# an interrupted download: the repo's folder holds a partial blob, no ref;
# the question says so, as the line off a terminal does
asked=$HF_HUB_CACHE/models--user--asked
sum=$(sha256sum "$M/model.safetensors" | cut -d' ' -f1)
mkdir -p "$asked/blobs" && head -c 1000 "$M/model.safetensors" >"$asked/blobs/$sum.incomplete"
ask n >"$tmp/ask.txt"
held="the Hugging Face cache holds user/asked ($asked) but no snapshot that refs/main names"
if grep -q "$held. Download it from http://127.0.0.1:[0-9]* into .*\[y/N\]" "$tmp/ask.txt" &&
    ! grep -q 'neither a folder nor' "$tmp/ask.txt" && grep -q 'EXIT 2' "$tmp/ask.txt"; then
    ok "the question says what the cache holds: the repo, no snapshot refs/main names"
else
    notok "the question with the repo in the cache: $(tr '\n' '|' <"$tmp/ask.txt" | cut -c1-300)"
fi
ask ^D >"$tmp/ask.txt"
if grep -q '^attnviz: user/asked: not downloaded' "$tmp/ask.txt" && grep -q 'EXIT 2' "$tmp/ask.txt"
then
    ok "Ctrl-D at the question is no, said on a line of its own"
else
    notok "Ctrl-D at the question: $(tr '\n' '|' <"$tmp/ask.txt" | cut -c1-300)"
fi
ask y >"$tmp/ask.txt"
if grep -q 'EXIT 0' "$tmp/ask.txt" && grep -q '^Sentence: ' "$tmp/asked.out" &&
    [ -e "$HF_HUB_CACHE/models--user--asked/refs/main" ]; then
    ok "yes downloads it into the cache and opens it"
else
    notok "the question, answered yes: $(tr '\n' '|' <"$tmp/ask.txt" | cut -c1-300)"
fi
check "the progress bar shows bytes, speed and time on a terminal" \
    grep -Eq 'model.safetensors +\[#* *\] [0-9.]+ MB / 0.6 MB +[0-9.]+ MB/s' "$tmp/ask.txt"
exit $fail

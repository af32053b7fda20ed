#!/bin/bash
# tier: test
# asan: yes
# hub_edges.sh - `attnviz get` and --model NAME at the edges, without the
# internet: the stand-in hub (tests/e2e/lib/fakehub.py) on 127.0.0.1 serves a
# small random GPT-2 checkpoint, HF_ENDPOINT points at it, HF_HUB_CACHE at a
# fresh folder.
#  - a renamed repo's redirect to an absolute URL on the hub's own origin
#    (http://127.0.0.1:PORT/NEW/...) is followed as a relative one is, and
#    the token goes with it (same origin);
#  - HF_TOKEN as huggingface_hub takes it: spaces around it and line breaks
#    in it (a token pasted from a file) dropped, so that no header is
#    slipped into the request; a token of 2,000 characters is sent whole;
#  - the token where huggingface_hub finds it: HF_TOKEN, else
#    HUGGING_FACE_HUB_TOKEN, else the file `hf auth login` saves
#    (HF_TOKEN_PATH, else HF_HOME/token, XDG_CACHE_HOME/huggingface/token,
#    ~/.cache/huggingface/token); none with HF_HUB_DISABLE_IMPLICIT_TOKEN;
#    a refusal names where the token came from (never the token), or where
#    none was found and how to give one;
#  - an LFS redirect without X-Linked-Etag and X-Linked-Size (fakehub's
#    "nolinked": nothing names the bytes but where they are): a cut copy in
#    the cache is found by the size where the bytes are, and fetched again;
#  - a damaged blob (a byte flipped) is read through once before it is
#    fetched again: on a terminal, the "checking" lines show two reads, the
#    cache's copy and the download, not three;
#  - a part resumed from an earlier download whose whole has another
#    checksum is fetched once more from the start, in the same get, said in
#    one line; a second wrong download fails;
#  - refs/main whose hash has spaces, a CR or a newline around it names
#    its snapshot, as huggingface_hub strips it;
#  - a cache path that is a file (HF_HUB_CACHE), or under one (HF_HOME), is
#    said as such by --model NAME and get, which suggest no download;
# Prints "ok - ..." / "not ok - ..." / "skip - ...". Run from the repository root.
set -u
PY=/usr/bin/python3
A=${ATTNVIZ:-$PWD/attnviz}
if ! "$PY" -c 'import numpy' 2>/dev/null; then
    echo "skip - hub_edges: python3-numpy not installed (scripts/deps.sh test)"
    exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/attnviz-hubedges.XXXXXX") || exit 1
hubpid=
cleanup() {
    [ -n "$hubpid" ] && kill "$hubpid" 2>/dev/null
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
. tests/e2e/lib/oneline.sh # one_line NAME STATUS PATTERN CMD...

# Nothing may reach the internet: until the server is up, a closed port.
export HF_ENDPOINT=http://127.0.0.1:9 HF_HUB_CACHE=$tmp/cache
unset HF_TOKEN HF_HUB_OFFLINE HF_HOME HUGGING_FACE_HUB_TOKEN HF_HUB_DISABLE_IMPLICIT_TOKEN
unset HF_TOKEN_PATH XDG_CACHE_HOME
# no token from a login of the machine's user: HOME is the test's
export HOME=$tmp/home
export HF_HUB_DOWNLOAD_TIMEOUT=2 LC_ALL=C.UTF-8
TEXT="The cat sat on the mat because it was tired."

M=$tmp/m1
"$PY" scripts/gpt2-checkpoint.py "$M" --seed 3 --vocab 1024 --ctx 128 >/dev/null ||
    { notok "hub_edges: gpt2-checkpoint.py failed"; exit 1; }
log=$tmp/hub.log faults=$tmp/faults
LONGTOKEN=hf_$(printf 'k%.0s' $(seq 2000))
: >"$faults"
: >"$log"
"$PY" tests/e2e/lib/fakehub.py --repo user/tiny="$M" --alias user/old=user/tiny \
    --repo user/gated="$M" --gated user/gated --token secret --alias user/oldgated=user/gated \
    --token "$LONGTOKEN" \
    --faults "$faults" --log "$log" --port-file "$tmp/port" 2>"$tmp/hub.err" &
hubpid=$!
for _ in $(seq 100); do [ -s "$tmp/port" ] && break; sleep 0.05; done
[ -s "$tmp/port" ] || { notok "hub_edges: fakehub.py did not start: $(head -3 "$tmp/hub.err")"; exit 1; }
PORT=$(cat "$tmp/port")
export HF_ENDPOINT=http://127.0.0.1:$PORT
"$A" --model "$M" --export text "$TEXT" >"$tmp/ref.txt" 2>"$tmp/err" ||
    { notok "hub_edges: --model DIR fails on the checkpoint: $(head -1 "$tmp/err")"; exit 1; }

# --- a renamed repo's redirect, absolute on the hub's own origin -------------
echo "user/old absolute" >"$faults"
if "$A" get user/old >/dev/null 2>"$tmp/err" &&
    grep -q "^HEAD /user/old/resolve/main/config.json .*-> 307" "$log" &&
    grep -q "^HEAD /user/tiny/resolve/main/config.json .*-> 200" "$log" &&
    grep -Eq "^GET /user/tiny/resolve/[0-9a-f]{40}/vocab.json .*-> 200" "$log"; then
    ok "a rename's 307 to http://127.0.0.1:$PORT/user/tiny/... (absolute, same origin) is followed"
else
    notok "get user/old, redirected absolutely: $(tr '\n' '|' <"$tmp/err" | cut -c1-300)"
fi
"$A" --model user/old --export text "$TEXT" >"$tmp/a.txt" 2>"$tmp/err"
check "... and --model user/old opens it with the folder's numbers" cmp -s "$tmp/a.txt" "$tmp/ref.txt"
if HF_TOKEN=secret "$A" get user/oldgated >/dev/null 2>"$tmp/err" &&
    grep -q "^HEAD /user/gated/resolve/main/config.json range=- auth=yes -> 200" "$log"; then
    ok "... with the token to the same origin, for a gated repo"
else
    notok "HF_TOKEN=secret get user/oldgated: $(tr '\n' '|' <"$tmp/err" | cut -c1-300)"
fi
: >"$faults"

# --- HF_TOKEN as huggingface_hub takes it ------------------------------------
# gated_get NAME TOKEN: get user/gated into a fresh cache with HF_TOKEN=TOKEN
gated_get() {
    local name=$1 before
    before=$(wc -l <"$log")
    if HF_HUB_CACHE=$tmp/c.$RANDOM HF_TOKEN=$2 "$A" get user/gated >/dev/null 2>"$tmp/err" &&
        tail -n +$((before + 1)) "$log" | grep -q "^HEAD /user/gated/resolve/main/config.json range=- auth=yes -> 200"; then
        ok "$name: the gated model is fetched"
    else
        notok "$name: $(tr '\n' '|' <"$tmp/err" | cut -c1-300)"
    fi
}
gated_get "HF_TOKEN with spaces around it" "  secret "
gated_get "HF_TOKEN ending in CR LF (a file from Windows)" $'secret\r\n'
gated_get "HF_TOKEN of ${#LONGTOKEN} characters, sent whole" "$LONGTOKEN"

# --- the token where huggingface_hub finds it --------------------------------
# (before: HF_TOKEN only; a token saved by `hf auth login` was not sent)
# token_get NAME ENV...: get user/gated into a fresh cache under env ENV...;
# ok when it is fetched with the token sent
token_get() {
    local name=$1 before; shift
    before=$(wc -l <"$log")
    if env HF_HUB_CACHE="$tmp/c.$RANDOM" "$@" "$A" get user/gated >/dev/null 2>"$tmp/err" &&
        tail -n +$((before + 1)) "$log" | grep -q "^HEAD /user/gated/resolve/main/config.json range=- auth=yes -> 200"; then
        ok "$name: the gated model is fetched"
    else
        notok "$name: $(tr '\n' '|' <"$tmp/err" | cut -c1-300)"
    fi
}
mkdir -p "$tmp/hfhome" "$tmp/xdg/huggingface" "$HOME/.cache/huggingface"
printf 'secret\n' >"$tmp/hfhome/token"
printf 'secret' >"$tmp/xdg/huggingface/token"
printf '  secret \r\n' >"$tmp/tokfile"
printf 'wrongtoken\n' >"$tmp/badtok"
mkdir -p "$tmp/badhome" && cp "$tmp/badtok" "$tmp/badhome/token"
token_get "HUGGING_FACE_HUB_TOKEN (the older name)" HUGGING_FACE_HUB_TOKEN=secret
token_get "HF_TOKEN empty, HUGGING_FACE_HUB_TOKEN set" HF_TOKEN= HUGGING_FACE_HUB_TOKEN=secret
token_get "HF_HOME/token, as \`hf auth login\` saves it" HF_HOME="$tmp/hfhome"
token_get "HF_TOKEN_PATH ('  secret \\r\\n'), before HF_HOME/token" HF_TOKEN_PATH="$tmp/tokfile" \
    HF_HOME="$tmp/badhome"
token_get "XDG_CACHE_HOME/huggingface/token" XDG_CACHE_HOME="$tmp/xdg"
printf 'secret\n' >"$HOME/.cache/huggingface/token"
token_get "~/.cache/huggingface/token" HOME="$HOME"
rm "$HOME/.cache/huggingface/token"
HF_HUB_CACHE=$tmp/c.f1 HF_TOKEN=wrong HF_HOME=$tmp/hfhome one_line \
    "HF_TOKEN comes before the token file, and its refusal names it" 1 \
    '^attnviz: user/gated: the token from HF_TOKEN was refused \(403\): is it a token' \
    "$A" get user/gated
HF_HUB_CACHE=$tmp/c.f2 HF_TOKEN_PATH=$tmp/badtok one_line \
    "a refused token from a file names the file, never the token" 1 \
    "^attnviz: user/gated: the token from $tmp/badtok \\(HF_TOKEN_PATH\\) was refused \\(403\\)" \
    "$A" get user/gated
check "... the token is not printed" eval '! grep -q wrongtoken "$tmp/err"'
HF_HUB_CACHE=$tmp/c.f3 HF_HOME=$tmp/badhome one_line \
    "... and says that \`hf auth login\` saved it" 1 \
    "^attnviz: user/gated: the token from $tmp/badhome/token \\(saved by \`hf auth login\`\\) was refused \\(403\\)" \
    "$A" get user/gated
HF_HUB_CACHE=$tmp/c.f4 one_line "no token anywhere: where it was looked for, and how to give one" 1 \
    "^attnviz: user/gated is gated or private \\(401\\): no token was found \\(HF_TOKEN, HUGGING_FACE_HUB_TOKEN, $HOME/.cache/huggingface/token\\): set HF_TOKEN to an access token that may read it, or log in with \`hf auth login\`$" \
    "$A" get user/gated
HF_HUB_CACHE=$tmp/c.f5 HF_TOKEN_PATH=$tmp one_line "a token file that is a folder is said" 1 \
    "no token was found \\(HF_TOKEN, HUGGING_FACE_HUB_TOKEN, $tmp: not a file\\)" \
    "$A" get user/gated
before=$(wc -l <"$log")
HF_HUB_CACHE=$tmp/c.f6 HF_TOKEN=secret HF_HUB_DISABLE_IMPLICIT_TOKEN=1 one_line \
    "HF_HUB_DISABLE_IMPLICIT_TOKEN: no token sent, as huggingface_hub, and said" 1 \
    '^attnviz: user/gated is gated or private \(401\): HF_HUB_DISABLE_IMPLICIT_TOKEN is set, so no token was sent' \
    "$A" get user/gated
check "... no request carried one" eval '! tail -n +$((before + 1)) "$log" | grep -q "auth=yes"'

# a line break inside the token adds no header: "Authorization: Bearer
# secret" then "X-Other: 1" would be let in; without the breaks it is refused
HF_HUB_CACHE=$tmp/c.inj HF_TOKEN=$'secret\r\nX-Other: 1' one_line \
    "a line break in HF_TOKEN slips no header into the request" 1 \
    'user/gated: the token from HF_TOKEN was refused \(403\)' "$A" get user/gated

# --- a redirect naming neither checksum nor size: a cut blob is fetched again
echo "model.safetensors nolinked" >"$faults"
"$A" get user/tiny >/dev/null 2>&1 # the blob named by the LFS pointer's ETag this time
blob=$(readlink -f "$(ls -d "$HF_HUB_CACHE"/models--user--tiny/snapshots/*)/model.safetensors")
truncate -s 1000 "$blob"
if "$A" get user/tiny >/dev/null 2>"$tmp/err" &&
    grep -q "^attnviz: model.safetensors: the cache's copy is 0.0 MB, not 0.6 MB: fetching it again$" "$tmp/err" &&
    cmp -s "$blob" "$M/model.safetensors"; then
    ok "a cut blob of a redirect without X-Linked-Size is found by its size there, fetched again"
else
    notok "a cut blob, no X-Linked-Size: $(tr '\n' '|' <"$tmp/err" | cut -c1-300)"
fi
: >"$faults"

# --- a damaged blob is read once, then fetched again -------------------------
"$A" get user/tiny >/dev/null 2>&1
blob=$(readlink -f "$(ls -d "$HF_HUB_CACHE"/models--user--tiny/snapshots/*)/model.safetensors")
"$PY" -c 'import sys
with open(sys.argv[1], "r+b") as f:
    f.seek(0, 2); at = f.tell() // 2; f.seek(at); b = f.read(1)
    f.seek(at); f.write(bytes([b[0] ^ 0xFF]))' "$blob"
"$PY" tests/e2e/lib/ptyrun.py --cols 80 -- "$A" get user/tiny >"$tmp/check.out"
# the frames of "checking model.safetensors: N% of 0.6 MB"; a read begins
# where the percentage does not grow
reads=$(tr '\r' '\n' <"$tmp/check.out" | sed 's/\x1b\[K//g' |
    sed -n 's/^attnviz: checking model\.safetensors: *\([0-9]*\)% of 0\.6 MB$/\1/p' |
    awk 'NR == 1 || $1 <= last { n++ } { last = $1 } END { print n + 0 }')
if grep -q '^EXIT 0$' "$tmp/check.out" && [ "$reads" -eq 2 ] &&
    grep -q "model.safetensors: the cache's copy is damaged (its sha256 is not the hub's)" \
        "$tmp/check.out" && cmp -s "$blob" "$M/model.safetensors"; then
    ok "a damaged blob is read through once, then the download once (2 reads), and repaired"
else
    notok "repairing a damaged blob: $reads reads (want 2); $(tr '\r\n' '||' <"$tmp/check.out" | cut -c1-300)"
fi

# --- a resumed part that held garbage: fetched once more from the start -----
# (before: the whole's checksum mismatch deleted it and asked for another get)
sum=$(sha256sum "$M/model.safetensors" | cut -d' ' -f1)
garbage() { # garbage CACHE: a part of 1000 wrong bytes where a download of the weights ended
    mkdir -p "$1/models--user--tiny/blobs" &&
        head -c 1000 /dev/zero | tr '\0' 'x' >"$1/models--user--tiny/blobs/$sum.incomplete"
}
garbage "$tmp/c.res"
before=$(wc -l <"$log")
HF_HUB_CACHE=$tmp/c.res "$A" get user/tiny >/dev/null 2>"$tmp/err"; rc=$?
gets=$(tail -n +$((before + 1)) "$log" | grep "^GET /cdn/$sum " | sed 's/^GET [^ ]* //' | tr '\n' '|')
retry="^attnviz: model.safetensors: checksum mismatch after resuming an earlier download \\(its sha256 is [0-9a-f]{12}\\.\\.\\., the hub's ${sum:0:12}\\.\\.\\.\\): fetching it again from the start$"
if [ $rc -eq 0 ] && [ "$(grep -Ec "$retry" "$tmp/err")" -eq 1 ] &&
    [ "$gets" = "range=bytes=1000- auth=no -> 206|range=- auth=no -> 200|" ] &&
    cmp -s "$tmp/c.res/models--user--tiny/blobs/$sum" "$M/model.safetensors" &&
    [ -z "$(find "$tmp/c.res" -name '*.incomplete')" ] && ! grep -q 'again fetches' "$tmp/err"; then
    ok "a resumed part of garbage: one line, fetched again from byte 0, whole (exit 0)"
else
    notok "a resumed part of garbage: exit $rc, GETs $gets; $(tr '\n' '|' <"$tmp/err" | cut -c1-400)"
fi
HF_HUB_CACHE=$tmp/c.res "$A" --model user/tiny --export text "$TEXT" >"$tmp/a.txt" 2>"$tmp/err"
check "... and opens with the folder's numbers" cmp -s "$tmp/a.txt" "$tmp/ref.txt"
garbage "$tmp/c.res2"
echo "/cdn/ badsum" >"$faults"
before=$(wc -l <"$log")
HF_HUB_CACHE=$tmp/c.res2 one_line "... a second download wrong too fails, said once" 1 \
    '^attnviz: model.safetensors: checksum mismatch: its sha256 is' "$A" get user/tiny
check "... after the one retry line and 2 GETs, no part left" \
    eval '[ "$(grep -Ec "$retry" "$tmp/err")" -eq 1 ] &&
          [ "$(tail -n +$((before + 1)) "$log" | grep -c "^GET /cdn/")" -eq 2 ] &&
          [ -z "$(find "$tmp/c.res2" -name "*.incomplete")" ]'
: >"$faults"

# --- refs/main with white space around its hash ------------------------------
# (before: only a trailing newline was stripped; "  HASH \r\n", as a file
# edited by hand on Windows may hold, named no snapshot)
ref=$HF_HUB_CACHE/models--user--tiny/refs/main
hash=$(tr -d ' \r\n' <"$ref")
printf '  %s \r\n' "$hash" >"$ref"
before=$(wc -l <"$log")
if HF_HUB_OFFLINE=1 "$A" --model user/tiny --export text "$TEXT" >"$tmp/a.txt" 2>"$tmp/err" &&
    cmp -s "$tmp/a.txt" "$tmp/ref.txt" && [ "$(wc -l <"$log")" -eq "$before" ]; then
    ok "refs/main holding '  HASH \\r\\n' names its snapshot: --model user/tiny opens it"
else
    notok "refs/main with spaces and CR LF: $(tr '\n' '|' <"$tmp/err" | cut -c1-300)"
fi

# --- a cache path that cannot be a folder ------------------------------------
# (before: --model said "`attnviz get user/tiny` downloads it", and that get
# then failed to write into it)
: >"$tmp/afile"
before=$(wc -l <"$log")
HF_HUB_CACHE=$tmp/afile one_line "--model NAME with HF_HUB_CACHE a file says so, not 'attnviz get'" 2 \
    "^attnviz: user/tiny: no such folder, and the Hugging Face cache $tmp/afile \\(from HF_HUB_CACHE\\) is a file, not a folder: set HF_HUB_CACHE to a folder$" \
    "$A" --model user/tiny --export text "$TEXT"
check "... and suggests no get" eval '! grep -q "attnviz get" "$tmp/err"'
HF_HUB_CACHE=$tmp/afile one_line "get with HF_HUB_CACHE a file says so" 2 \
    "^attnviz: the Hugging Face cache $tmp/afile \\(from HF_HUB_CACHE\\) is a file, not a folder: set HF_HUB_CACHE to a folder$" \
    "$A" get user/tiny
check "... before any request" [ "$(wc -l <"$log")" -eq "$before" ]
one_line "--model NAME with HF_HOME a file: the cache under it is said" 2 \
    "^attnviz: user/tiny: no such folder, and the Hugging Face cache $tmp/afile/hub \\(from HF_HOME\\) lies under $tmp/afile, a file, not a folder: set HF_HOME to a folder$" \
    env -u HF_HUB_CACHE HF_HOME="$tmp/afile" "$A" --model user/tiny --export text "$TEXT"

exit $fail

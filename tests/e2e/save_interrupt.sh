#!/bin/bash
# save_interrupt.sh - interrupted work loses nothing (issue 22 item 3):
# `attnviz train TASK --save DIR` stopped by SIGINT, SIGTERM or SIGKILL at a
# random moment, over an earlier model or none, leaves DIR holding the
# earlier model or the new one, whole (it opens, and no file of the one sits
# in the other), with no temporary file inside; a full disk leaves the earlier
# model as it was; the next save removes what a killed run left beside DIR.
# The save's fsync calls are slowed under strace (where it is installed) so
# that most kills land inside the save.
# Prints "ok - name" / "not ok - name"; exits non-zero on a failure.
# tier: test
# asan: yes
set -u
BIN=${ATTNVIZ:-$PWD/attnviz}
TRIALS=${SAVE_INTERRUPT_TRIALS:-5} # per signal
T=$(mktemp -d "${TMPDIR:-/tmp}/attnviz-save.XXXXXX") || exit 1
FULL=$T/full
fail=0
trap 'umount "$FULL" 2>/dev/null; rm -rf "$T"' EXIT
ok() { echo "ok - $1"; }
notok() { echo "not ok - $1"; fail=1; }
TRAIN=(train induction --steps 20 --report 0)
if command -v strace >/dev/null 2>&1; then
    SLOW=(strace -f -qq -o /dev/null -e trace=fsync -e inject=fsync:delay_exit=15000)
else
    SLOW=()
    echo "# no strace: kills land in the save less often"
fi

"$BIN" "${TRAIN[@]}" --seed 1 --save "$T/prev" >/dev/null 2>&1 &&
    [ -s "$T/prev/model.json" ] || { notok "the earlier model trains"; exit 1; }
files=$(cd "$T/prev" && find . -type f | sort)
# the kills land between 0.05 s and the length of a whole slowed run
t0=$(date +%s%N)
"${SLOW[@]}" "$BIN" "${TRAIN[@]}" --seed 2 --save "$T/m" >/dev/null 2>&1
span=$(( ($(date +%s%N) - t0) / 1000000 ))
rm -rf "$T/m"

# verdict DIR: "prev" (the earlier model, every byte), "new" (another model
# that opens, none of whose files is the earlier one's), "none" (no DIR), or
# what is wrong.
verdict() {
    local d=$1 f same=0 differ=0
    [ -e "$d" ] || { echo none; return; }
    [ -z "$(find "$d" -name '.*')" ] || { echo "temporary files inside: $(find "$d" -name '.*')"; return; }
    [ "$(cd "$d" && find . -type f | sort)" = "$files" ] ||
        { echo "files: $(cd "$d" && find . -type f | sort | tr '\n' ' ')"; return; }
    for f in $files; do
        [ "$f" = ./heads.txt ] && continue
        if cmp -s "$T/prev/$f" "$d/$f"; then same=$((same + 1)); else differ=$((differ + 1)); fi
    done
    if [ $differ -eq 0 ]; then echo prev; return; fi
    [ $same -eq 0 ] || { echo "a mix: $same files of the earlier model, $differ new"; return; }
    "$BIN" --model "$d" -e csv abcabc >/dev/null 2>&1 || { echo "new model does not open"; return; }
    grep -q '"seed": 2' "$d/model.json" || { echo "model.json is not the new run's"; return; }
    echo new
}

# trial SIG EARLIER: train seed 2 into $T/m (over a copy of the earlier model
# when EARLIER is 1), send SIG after a random delay, print the verdict.
trial() {
    local sig=$1 earlier=$2 pid child
    rm -rf "$T/m"
    [ "$earlier" = 1 ] && cp -r "$T/prev" "$T/m"
    "${SLOW[@]}" "$BIN" "${TRAIN[@]}" --seed 2 --save "$T/m" >/dev/null 2>&1 &
    pid=$!
    sleep "$(awk -v r=$RANDOM -v s="$span" 'BEGIN { printf "%.3f", 0.05 + r / 32768 * s / 1000 }')"
    child=$pid
    [ ${#SLOW[@]} -gt 0 ] && child=$(pgrep -P "$pid" | head -1)
    [ -n "$child" ] && kill -"$sig" "$child" 2>/dev/null
    wait "$pid" 2>/dev/null
    verdict "$T/m"
}

for sig in INT TERM KILL; do
    for earlier in 1 0; do
        bad="" counts=""
        declare -A n=([prev]=0 [new]=0 [none]=0)
        for _ in $(seq 1 "$TRIALS"); do
            v=$(trial $sig $earlier)
            case $v in prev | new | none) n[$v]=$((n[$v] + 1)) ;; *) bad="$bad; $v" ;; esac
        done
        counts="earlier ${n[prev]}, new ${n[new]}, none ${n[none]}"
        what=$([ $earlier = 1 ] && echo "over an earlier model" || echo "with no earlier model")
        if [ -z "$bad" ] && { [ $earlier = 1 ] || [ "${n[prev]}" -eq 0 ]; } &&
            { [ $earlier = 0 ] || [ "${n[none]}" -eq 0 ]; }; then
            ok "SIG$sig at random moments $what: whole every time ($counts)"
        else
            notok "SIG$sig $what ($counts$bad)"
        fi
        unset n
    done
done
# what the killed runs left beside the folder goes with the next save
"$BIN" "${TRAIN[@]}" --seed 2 --save "$T/m" >/dev/null 2>&1
left=$(find "$T" -maxdepth 1 -name '.m.*')
[ "$(verdict "$T/m")" = new ] && [ -z "$left" ] &&
    ok "the next save is whole and removes the killed runs' siblings" ||
    notok "after the next save: $(verdict "$T/m"), left: $left"

# an export (-o) and a lesson's handout stopped at random moments: the file
# is the earlier one or the new one, whole; after SIGINT or SIGTERM no
# temporary file is left beside it (SIGKILL may leave one, hidden:
# .NAME.PID.XXXXXX, which the next write removes: stale_tmp.sh)
TEXT="The cat sat on the mat because it was tired."
for name in export handout; do
    if [ $name = export ]; then argv=(--export md -o OUT "$TEXT"); else
        argv=(--lesson qkv --export md -o OUT); fi
    out="$T/$name.md"
    "$BIN" "${argv[@]/OUT/$T/$name.ref}" >/dev/null 2>&1
    [ -s "$T/$name.ref" ] || { notok "$name: the reference is written"; continue; }
    bad="" n_old=0 n_new=0
    for sig in INT TERM KILL; do
        for _ in $(seq 1 "$TRIALS"); do
            echo "the earlier file" >"$out"
            "${SLOW[@]}" "$BIN" "${argv[@]/OUT/$out}" >/dev/null 2>&1 &
            pid=$!
            sleep "$(awk -v r=$RANDOM 'BEGIN { printf "%.3f", r / 32768 * 0.12 }')"
            child=$pid
            [ ${#SLOW[@]} -gt 0 ] && child=$(pgrep -P "$pid" | head -1)
            [ -n "$child" ] && kill -"$sig" "$child" 2>/dev/null
            wait "$pid" 2>/dev/null
            if cmp -s "$out" "$T/$name.ref"; then n_new=$((n_new + 1))
            elif [ "$(cat "$out")" = "the earlier file" ]; then n_old=$((n_old + 1))
            else bad="$bad; SIG$sig: a half-written file"; fi
            left=$(find "$T" -maxdepth 1 -name ".$name.md.*")
            [ -n "$left" ] && [ $sig != KILL ] && bad="$bad; SIG$sig left $left"
            rm -f "$T/.$name.md."*
        done
    done
    [ -z "$bad" ] && ok "$name -o stopped at random moments: whole every time (earlier $n_old, new $n_new)" ||
        notok "$name -o stopped at random moments$bad"
done

# a full disk while saving: the earlier model stays as it was, nothing beside
mkdir -p "$FULL"
if mount -t tmpfs -o size=128k tmpfs "$FULL" 2>/dev/null; then
    cp -r "$T/prev" "$FULL/m"
    "$BIN" "${TRAIN[@]}" --seed 2 --save "$FULL/m" >/dev/null 2>"$T/err"
    rc=$?
    v=$(files=$files T=$T verdict "$FULL/m")
    if [ $rc -eq 1 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q 'No space left' "$T/err" &&
        [ "$v" = prev ] && [ "$(ls -A "$FULL")" = m ]; then
        ok "a full disk: one line, exit 1, the earlier model whole, nothing left beside it"
    else
        notok "a full disk: exit $rc, $(tr '\n' '|' <"$T/err"), $v, $(ls -A "$FULL" | tr '\n' ' ')"
    fi
else
    echo "skip - mount not allowed here: the full-disk save"
fi
exit $fail

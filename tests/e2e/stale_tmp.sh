#!/bin/bash
# tier: test
# asan: no
# stale_tmp.sh - nothing left behind (issue 33 item 4): `train --save DIR`,
# the exports (-o FILE: csv, json, md, text, svg, html) and `--dump DIR`
# killed with SIGKILL, once while their temporary surely exists and then at
# random moments, leave the target whole (the earlier file or folder or the new one,
# never half), and the next run of the same command leaves no temporary
# beside it: the killed run's one (".NAME.PID.XXXXXX", ".NAME.new-PID-XXXXXX")
# is removed because its process is gone. A temporary of a running process
# is left and said in one line; a look-alike name is never touched.
# The writes' fsync calls are slowed under strace so that kills land inside
# them. Prints "ok - name" / "not ok - name"; exits non-zero on a failure.
set -u
BIN=${ATTNVIZ:-$PWD/attnviz}
ROUNDS=${STALE_TMP_ROUNDS:-4} # random kills per command
T=$(mktemp -d "${TMPDIR:-/tmp}/attnviz-stale.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
fail=0
ok() { echo "ok - $1"; }
notok() { echo "not ok - $1"; fail=1; }
if ! command -v strace >/dev/null 2>&1; then
    echo "skip - no strace: a kill cannot be placed inside a write"
    exit 0
fi
# each fsync made longer: 150 ms for a single file, 40 ms for a folder's
# many files, 500 ms for the kill that waits for the temporary
slow() { SLOW=(strace -f -qq -o /dev/null -e trace=fsync -e inject=fsync:delay_exit="$1"); }
SLOWER=(strace -f -qq -o /dev/null -e trace=fsync -e inject=fsync:delay_exit=500000)
OLD="The trophy did not fit in the suitcase."
NEW="The cat sat on the mat because it was tired."
TRAIN=(train induction --steps 20 --report 0)

# temps NAME: the temporaries of NAME beside it in $T (either pattern)
temps() { find "$T" -maxdepth 1 \( -name ".$1.[0-9]*.??????" -o -name ".$1.new-*" -o -name ".$1.old-*" \) | sort; }

# cmd KIND TARGET TEXT: set CMD to the arguments that write TARGET
cmd() {
    case $1 in
    train) CMD=("${TRAIN[@]}" --seed "$3" --save "$2") ;;
    dump) CMD=(--dump "$2" "$3") ;;
    *) CMD=(--export "$1" -o "$2" "$3") ;;
    esac
}

# run_killed KIND TARGET TEXT WHEN: start the command under strace and send
# SIGKILL to attnviz after WHEN seconds, or as soon as a temporary of TARGET
# exists when WHEN is "temp".
run_killed() {
    local kind=$1 target=$2 text=$3 when=$4 pid child k name
    name=$(basename "$target")
    cmd "$kind" "$target" "$text"
    if [ "$when" = temp ]; then
        "${SLOWER[@]}" "$BIN" "${CMD[@]}" >/dev/null 2>&1 &
    else
        "${SLOW[@]}" "$BIN" "${CMD[@]}" >/dev/null 2>&1 &
    fi
    pid=$!
    if [ "$when" = temp ]; then
        for k in $(seq 1 300); do
            [ -n "$(temps "$name")" ] && break
            sleep 0.01
        done
    else
        sleep "$when"
    fi
    child=$(pgrep -P "$pid" | head -1)
    [ -n "$child" ] && kill -KILL "$child" 2>/dev/null
    wait "$pid" 2>/dev/null
}

# whole KIND TARGET: "old", "new", "none" or what is wrong with TARGET
whole() {
    local kind=$1 target=$2 f
    [ -e "$target" ] || { echo none; return; }
    case $kind in
    train)
        "$BIN" --model "$target" -e csv abcabc >/dev/null 2>&1 || { echo "a model that does not open"; return; }
        grep -q '"seed": 2' "$target/model.json" && echo new || echo old ;;
    dump) # a folder swapped in whole: every file the earlier run's, or every one the new one's
        if diff -rq "$target" "$T/ref.dump.new" >/dev/null 2>&1; then echo new
        elif diff -rq "$target" "$T/ref.dump.old" >/dev/null 2>&1; then echo old
        else echo "a mix: $(diff -rq "$target" "$T/ref.dump.new" 2>&1 | head -1)"; fi ;;
    *)
        if cmp -s "$target" "$T/ref.$kind.new"; then echo new
        elif cmp -s "$target" "$T/ref.$kind.old"; then echo old
        else echo half; fi ;;
    esac
}

# the references: each command run whole on the earlier input and the new one
for kind in csv json md text svg html dump; do
    cmd "$kind" "$T/ref.$kind.old" "$OLD"
    "$BIN" "${CMD[@]}" >/dev/null 2>&1 || { notok "$kind: the references are written"; exit 1; }
    cmd "$kind" "$T/ref.$kind.new" "$NEW"
    "$BIN" "${CMD[@]}" >/dev/null 2>&1 || { notok "$kind: the references are written"; exit 1; }
done
"$BIN" "${TRAIN[@]}" --seed 1 --save "$T/ref.train.old" >/dev/null 2>&1 ||
    { notok "train: the earlier model is saved"; exit 1; }

for kind in train csv json md text svg html dump; do
    case $kind in train) name=m ;; dump) name=d ;; *) name=out.$kind ;; esac
    target=$T/$name new_arg=$NEW
    [ $kind = train ] && new_arg=2
    bad="" left=0 counts=""
    declare -A n=([old]=0 [new]=0 [none]=0)
    case $kind in train | dump) slow 40000 ;; *) slow 150000 ;; esac
    t0=$(date +%s%N)
    cmd "$kind" "$T/span.$kind" "$new_arg"
    "${SLOW[@]}" "$BIN" "${CMD[@]}" >/dev/null 2>&1
    span=$(( ($(date +%s%N) - t0) / 1000000 ))
    rm -rf "$T/span.$kind"
    for round in temp $(seq 1 "$ROUNDS"); do
        rm -rf "$target"
        if [ $kind = train ]; then cp -r "$T/ref.train.old" "$target"
        else cp -r "$T/ref.$kind.old" "$target"; fi
        when=temp
        [ "$round" != temp ] &&
            when=$(awk -v r=$RANDOM -v s="$span" 'BEGIN { printf "%.3f", 0.02 + r / 32768 * s / 1000 }')
        run_killed $kind "$target" "$new_arg" "$when"
        v=$(whole $kind "$target")
        case $v in old | new | none) n[$v]=$((n[$v] + 1)) ;; *) bad="$bad; killed at $when: $v" ;; esac
        k=$(temps "$name" | wc -l)
        [ "$round" = temp ] && [ "$k" -eq 0 ] && bad="$bad; killed with its temporary there, none is left"
        left=$((left + (k > 0)))
        # the next run, not killed: the target new and whole, no temporary
        cmd "$kind" "$target" "$new_arg"
        "$BIN" "${CMD[@]}" >/dev/null 2>"$T/err" ||
            { bad="$bad; the next run failed: $(head -1 "$T/err")"; continue; }
        [ -s "$T/err" ] && [ $kind != train ] && bad="$bad; the next run said: $(head -1 "$T/err")"
        v=$(whole $kind "$target")
        [ "$v" = new ] || bad="$bad; after the next run: $v"
        [ -z "$(temps "$name")" ] || bad="$bad; left beside: $(temps "$name" | tr '\n' ' ')"
        [ $kind = dump ] && [ -n "$(find "$target" -name '.*')" ] &&
            bad="$bad; left inside: $(find "$target" -name '.*' | tr '\n' ' ')"
        [ $kind = dump ] && ! cmp -s "$target/weights.npy" "$T/ref.dump.new/weights.npy" &&
            bad="$bad; weights.npy is not the new run's"
    done
    counts="earlier ${n[old]}, new ${n[new]}, none ${n[none]}; $left of $((ROUNDS + 1)) left a temporary"
    counts="$counts, $(( ($(date +%s%N) - t0) / 1000000000 )) s"
    if [ -z "$bad" ]; then
        ok "$kind killed at random moments: whole every time, the next run leaves nothing ($counts)"
    else
        notok "$kind killed ($counts$bad)"
    fi
    unset n
done

# a running process's temporary is left and said once; look-alikes untouched
sleep 30 &
live=$!
"$BIN" --export csv -o "$T/out.csv" "$OLD" >/dev/null 2>&1
touch "$T/.out.csv.$live.Ab12Cd" "$T/.out.csv.Ab12Cd" "$T/.out.csv.x.1.Ab12Cd" "$T/out.csv.1.Ab12Cd"
mkdir "$T/.m.new-$live-abc123"
"$BIN" --export csv -o "$T/out.csv" "$NEW" >/dev/null 2>"$T/err"
rc=$?
"$BIN" "${TRAIN[@]}" --seed 2 --save "$T/m" >/dev/null 2>"$T/err2"
rc2=$?
kill "$live" 2>/dev/null
wait "$live" 2>/dev/null
if [ $rc -eq 0 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q "^attnviz: left .*\.out\.csv\.$live\.Ab12Cd in place: process $live" "$T/err" &&
    [ -e "$T/.out.csv.$live.Ab12Cd" ] && [ -e "$T/.out.csv.Ab12Cd" ] && [ -e "$T/.out.csv.x.1.Ab12Cd" ] &&
    [ -e "$T/out.csv.1.Ab12Cd" ] && cmp -s "$T/out.csv" "$T/ref.csv.new"; then
    ok "a running process's temporary is left and said in one line, look-alikes untouched"
else
    notok "a running process's temporary: exit $rc, $(tr '\n' '|' <"$T/err"), $(ls -A "$T" | tr '\n' ' ')"
fi
if [ $rc2 -eq 0 ] && grep -q "^attnviz: left .*\.m\.new-$live-abc123 in place" "$T/err2" &&
    [ -d "$T/.m.new-$live-abc123" ]; then
    ok "train --save leaves a running process's folder and says so"
else
    notok "train --save beside a running process's folder: exit $rc2, $(tr '\n' '|' <"$T/err2")"
fi
exit $fail

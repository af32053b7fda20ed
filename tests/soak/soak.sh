#!/bin/bash
# soak.sh - the keystroke soak (issue 6, item 2): drive the real interface
# under tmux with a seeded random stream of keys (tests/soak/keygen.sh):
# every binding, typing, pasted pages, invalid UTF-8, control characters,
# unknown escape sequences, mouse reports, resizes from 1x1 to 200x60, the
# mask and settings toggled mid-edit. Then: still alive, answers a key, q
# exits 0, the terminal is restored, no ASan/UBSan report on stderr.
#
#   tests/soak/soak.sh [--keys N] [--seed S] [--paste-max BYTES] [--sync N]
#                      [--hang SECONDS] [--bin PATH] [--keep] [--print-stream]
#                      [--view plain|lesson|import|model] [--record FILE]
#                      [--replay FILE]
#
# --keys N       events in the stream (default 10000); same seed, same stream
# --paste-max    largest pasted page in bytes (default 4096)
# --sync N       wait for the program to be idle every N events (default 25)
# --hang S       a hang: no screen change for S seconds while busy (default 10)
# --view V       what attnviz opens on: plain (a sentence, the default), lesson
#                (a lesson with questions), import (imported attention,
#                tests/data/import: 3 layers, 2 heads) or model (the trained
#                character model of assets/models/chars: g generates)
# --record FILE  write every event as it is sent to FILE (always to events.log
#                in the work folder, kept on a finding)
# --replay FILE  send the events of FILE (a --record or events.log) instead of
#                a generated stream: tests/soak/soak.sh --replay FILE --view V
#                --sync 25 replays a finding with the same waits
# --print-stream print the stream and exit (nothing is run)
# The binary is $ATTNVIZ (absolute path) unless --bin; run under the ASan/UBSan
# build for the sanitizer checks. Prints "ok - soak ..." / "not ok - soak ..."
# lines and `soak keys=N resizes=R pastes=P mouse=M findings=F seed=S`.
# On a finding the work folder (stream.txt, events.log, stderr.txt, screens)
# is kept and named, the last 50 events are printed and the command that
# replays it.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
KEYS=10000 SEED=1 PASTE_MAX=4096 SYNC=25 HANG=10 KEEP=0 PRINT=0 VIEW=plain RECORD='' REPLAY=''
BIN=${ATTNVIZ:-$ROOT/attnviz}
while [ $# -gt 0 ]; do
    case $1 in
        --keys) KEYS=$2; shift ;;
        --seed) SEED=$2; shift ;;
        --paste-max) PASTE_MAX=$2; shift ;;
        --sync) SYNC=$2; shift ;;
        --hang) HANG=$2; shift ;;
        --bin) BIN=$2; shift ;;
        --keep) KEEP=1 ;;
        --view) VIEW=$2; shift ;;
        --record) RECORD=$2; shift ;;
        --replay) REPLAY=$2; shift ;;
        --print-stream) PRINT=1 ;;
        -h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "soak.sh: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done
case $VIEW in
    plain) START=('The cat sat on the mat.') ;;
    lesson) START=(--lesson multi-head) ;;
    import) START=(--attention "$ROOT/tests/data/import/attn_l3h2n7.npy"
                   --tokens "$ROOT/tests/data/import/tokens7.txt") ;;
    model) START=(--model "$ROOT/assets/models/chars" 'the cat sat on the mat. ') ;;
    *) echo "soak.sh: --view is plain, lesson, import or model" >&2; exit 2 ;;
esac
# The probe: a key whose effect shows. Imported attention and a trained model
# fix the mask, so there it is the help (F1), opened and closed again.
PROBE_KEY=F9
[ "$VIEW" = import ] || [ "$VIEW" = model ] && PROBE_KEY=F1
if [ "$PRINT" = 1 ]; then exec bash "$HERE/keygen.sh" "$SEED" "$KEYS" "$PASTE_MAX" "$VIEW"; fi
case $RECORD in ''|/*) ;; *) RECORD=$PWD/$RECORD ;; esac
case $REPLAY in ''|/*) ;; *) REPLAY=$PWD/$REPLAY ;; esac
[ -z "$REPLAY" ] || [ -r "$REPLAY" ] || { echo "soak.sh: cannot read $REPLAY" >&2; exit 2; }
case $BIN in /*) ;; *) BIN=$PWD/$BIN ;; esac
[ -x "$BIN" ] || { echo "not ok - soak: no binary $BIN"; exit 1; }
command -v tmux >/dev/null || { echo "not ok - soak: tmux is not installed"; exit 1; }

WORK=$(mktemp -d /tmp/attnviz-soak.XXXXXX)
SOCK="attnviz-soak-$$-$RANDOM"
fail=0
cleanup() {
    tmux -L "$SOCK" kill-server 2>/dev/null
    rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$SOCK"
    if [ "$KEEP" = 1 ] || [ "$fail" != 0 ]; then
        find "$WORK" -maxdepth 1 -name "attnviz-head*.txt" -delete
        echo "# soak files kept in $WORK"
    else
        rm -rf "$WORK"
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

t() { tmux -L "$SOCK" "$@"; }
screen() { t capture-pane -p -t s 2>/dev/null; }
now_ms() { local s=${EPOCHREALTIME/./}; echo $((s / 1000)); }
clock() { NOW=${EPOCHREALTIME/./}; NOW=$((NOW / 1000)); } # ms, no fork

if [ -n "$REPLAY" ]; then
    cp "$REPLAY" "$WORK/stream.txt"
else
    bash "$HERE/keygen.sh" "$SEED" "$KEYS" "$PASTE_MAX" "$VIEW" >"$WORK/stream.txt" ||
        { echo "not ok - soak: keygen failed"; exit 1; }
fi
: >"$WORK/events.log"
LOG=${RECORD:-$WORK/events.log}
[ -z "$RECORD" ] || : >"$RECORD" || exit 1

AFTER='echo EXITED:$?; stty -a | tr " " "\n" | grep -E "^-?(icanon|echo)$" | tr "\n" " "; echo; sleep 3600'
t new-session -d -s s -x 120 -y 40 -c "$WORK" \
    "env TERM=xterm-256color LC_ALL=C.UTF-8 \
ASAN_OPTIONS=abort_on_error=1:detect_leaks=1 \
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
$(printf '%q ' "$BIN" "${START[@]}") 2>$(printf '%q' "$WORK/stderr.txt"); $AFTER"
PID=''
for _ in $(seq 1 100); do
    PID=$(pgrep -P "$(t display -p -t s '#{pane_pid}' 2>/dev/null)" 2>/dev/null | head -1)
    [ -n "$PID" ] && screen | grep -q ' tokens [0-9]' && break
    sleep 0.05
done
if [ -z "$PID" ] || ! screen | grep -q ' tokens [0-9]'; then
    fail=1
    echo "not ok - soak: the program did not start"; screen; cat "$WORK/stderr.txt"; exit 1
fi

n=0 resizes=0 pastes=0 paste_bytes=0 mouse=0 bad=0 ctrl=0 escs=0 texts=0 keys=0
edits=0 probes=0 findings=0 exports=0 max_busy=0 max_frozen=0 max_probe=0 dead=0
editing=0 W=120 H=40 cur='' bursts=0
declare -a LAST=()
declare -A PROF=() # ms spent per kind of event (with the syncs after it)

# A readable form of a stream line (hex turned into a quoted string).
describe() {
    local kind=${1%% *} rest='' s
    [ "$kind" != "$1" ] && rest=${1#* }
    case $kind in
        text|ctrl|bad|esc|mouse|paste|gtext|burst)
            printf -v s '%b' "\\x${rest// /\\x}"
            printf -v s '%q' "$s"
            [ ${#s} -gt 100 ] && s="${s:0:100}... ($(( (${#rest} + 1) / 3 )) bytes)"
            echo "$kind $s" ;;
        *) echo "$1" ;;
    esac
}
last50() {
    echo "# the last ${#LAST[@]} events (of $n) before this, seed $SEED:"
    local e
    for e in "${LAST[@]}"; do echo "#   $e"; done
}
finding() { # KIND TEXT
    findings=$((findings + 1)) fail=1
    {
        echo "## finding $findings at event $n: $1: $2"
        echo "# screen (${W}x$H):"; screen | sed 's/^/#   | /'
        last50
    } >>"$WORK/findings.txt"
    [ "$findings" -eq 1 ] && echo "# replay: $REPLAY_CMD" >>"$WORK/findings.txt"
    if [ "$findings" -le 3 ]; then
        echo "# FINDING $findings at event $n ($cur): $1: $2"
        screen | sed 's/^/#   | /'
        last50
        echo "# replay: $REPLAY_CMD"
    else
        echo "# FINDING $findings at event $n ($cur): $1: $2 (details in $WORK/findings.txt)"
    fi
}
# CLICK: the hex of an SGR press and release at column $1, row $2 (1-based).
hex_of_click() {
    local s c i
    printf -v s "\e[<0;%d;%dM\e[<0;%d;%dm" "$1" "$2" "$1" "$2"
    CLICK=""
    for ((i = 0; i < ${#s}; i++)); do printf -v c "%02x" "'${s:i:1}"; CLICK+=" $c"; done
}
alive() { kill -0 "$PID" 2>/dev/null; }
cpu_ticks() { local a; TICKS=-1; read -r -a a <"/proc/$PID/stat" 2>/dev/null &&
    TICKS=$((a[13] + a[14])); }
# Wait until the program is idle: under 20% CPU for three polls (0.15 s).
# Sets BUSY_MS (time until idle) and FROZEN_MS (the longest stretch of that
# time without a screen change). Gives up after 600 s.
wait_idle() {
    local t0 c0 quiet=0 last_scr scr last_change now
    clock; t0=$NOW last_change=$NOW last_scr=$(screen); cpu_ticks; c0=$TICKS
    FROZEN_MS=0
    while :; do
        sleep 0.05
        alive || { clock; BUSY_MS=$((NOW - t0)); return 1; }
        cpu_ticks
        if [ $((TICKS - c0)) -le 1 ]; then quiet=$((quiet + 1)); else quiet=0; fi
        c0=$TICKS
        scr=$(screen)
        clock; now=$NOW
        if [ "$scr" != "$last_scr" ]; then last_scr=$scr last_change=$now; fi
        [ $((now - last_change)) -gt "$FROZEN_MS" ] && [ "$quiet" -eq 0 ] &&
            FROZEN_MS=$((now - last_change))
        [ "$quiet" -ge 3 ] && break
        [ $((now - t0)) -gt 600000 ] && break
    done
    clock; BUSY_MS=$((NOW - t0))
    return 0
}
# Idle and the screen the same for three polls in a row.
settle() {
    local prev='' cur_s k
    wait_idle
    for k in $(seq 1 80); do
        sleep 0.05
        cur_s=$(screen)
        [ -n "$cur_s" ] && [ "$cur_s" = "$prev" ] && [ "$k" -gt 1 ] && return 0
        prev=$cur_s
    done
}
sync_check() { # after a batch of events or a heavy one: idle, no hang
    wait_idle || return 1
    [ "$BUSY_MS" -gt "$max_busy" ] && max_busy=$BUSY_MS
    [ "$FROZEN_MS" -gt "$max_frozen" ] && max_frozen=$FROZEN_MS
    if [ "$FROZEN_MS" -gt $((HANG * 1000)) ]; then
        finding hang "busy for ${BUSY_MS} ms with no screen change for ${FROZEN_MS} ms (limit ${HANG} s)"
    fi
    return 0
}
title_ok() { screen | head -1 | grep -q '^ attnviz | '; }
# The status line, or two where the settings do not fit one (80 columns).
status_text() { screen | tail -2 | sed -n '/^ \(imported attention  *\(| \)\?\)\?tokens [0-9]/,$p' | tr '\n' ' '; }
status_ok() { status_text | grep -Eq '^ (imported attention +(\| )?)?tokens [0-9]+ .*mask (on|off|none)'; }
# What the probe key changes: the mask on the status line, or the help shown.
mask_state() {
    if [ "$PROBE_KEY" = F9 ]; then status_text | grep -Eo 'mask (on|off)'
    elif screen | grep -q 'F1 closes'; then echo help; else echo no help; fi
}
# Is the program alive, is the screen whole, does F9 flip the status line?
probe() {
    probes=$((probes + 1))
    sync_check || return 1
    settle
    local k
    for k in 1 2 3; do # a view of its own (W: the live training view) or an
        # overlay (the help may cover the status line's first row at 100x30):
        # Esc backs out one level and never quits
        title_ok && ! overlay_open && break
        t send-keys -t s Escape; sleep 0.3; settle
    done
    if ! title_ok || ! status_ok; then
        sleep 2; settle
        if ! title_ok || ! status_ok; then
            finding garbled "at ${W}x$H the title or the status line is not drawn"
            return 0
        fi
    fi
    local before after t0 dt
    if [ "$PROBE_KEY" = F1 ]; then # the help alone toggles: no other overlay
        for k in 1 2 3; do overlay_open || break; t send-keys -t s Escape; sleep 0.2; settle; done
    fi
    before=$(mask_state) t0=$(now_ms)
    t send-keys -t s "$PROBE_KEY"
    while :; do
        after=$(mask_state)
        dt=$(( $(now_ms) - t0 ))
        [ -n "$after" ] && [ "$after" != "$before" ] && break
        alive || return 1
        if [ "$dt" -gt $((HANG * 1000)) ]; then
            finding hang "$PROBE_KEY did not change '$before' in the status line within ${HANG} s"
            return 0
        fi
        sleep 0.05
    done
    [ "$dt" -gt "$max_probe" ] && max_probe=$dt
    [ "$after" = help ] && { t send-keys -t s F1; settle; } # closed again
    # exports written by x/X/^O/^X so far: count them, free the space
    local c
    c=$(find "$WORK" -maxdepth 1 -name "attnviz-head*.txt" | wc -l)
    find "$WORK" -maxdepth 1 -name "attnviz-head*.txt" -delete
    exports=$((exports + c))
    echo "# soak: event $n/$total alive, $PROBE_KEY answered in ${dt} ms; keys=$keys text=$texts" \
        "pastes=$pastes mouse=$mouse resizes=$resizes bad=$bad ctrl=$ctrl esc=$escs" \
        "bursts=$bursts edits=$edits exports=$exports findings=$findings"
    return 0
}
# An overlay (the help, the trace or heads panel) is open: Esc closes it.
overlay_open() { screen | grep -Eq "(Esc|F1) closes"; }
# Close any overlay (Esc, only while one shows), then click the sentence
# (row 2, the second column after its label "Sentence:" or "Queries (1):").
edit_enter() {
    local k x
    editing=0
    for k in 1 2 3 4; do
        settle
        if overlay_open; then t send-keys -t s Escape; escs=$((escs + 1)); continue; fi
        x=$(screen | sed -n 2p | awk '{i = index($0, ":"); print i ? i + 3 : 12}')
        hex_of_click "$x" 2
        t send-keys -t s -H $CLICK
        settle
        if screen | head -1 | grep -q 'EDITING'; then editing=1 edits=$((edits + 1)); return; fi
        alive || return
    done
    finding edit "a click on the sentence (column $x, row 2) at ${W}x$H did not start editing"
}

total=$(wc -l <"$WORK/stream.txt")
REPLAY_CMD="tests/soak/soak.sh --replay $LOG --view $VIEW --sync $SYNC --hang $HANG --bin $BIN"
echo "# soak: seed $SEED, $total events (--keys $KEYS), binary $BIN, work $WORK"
start_ms=$(now_ms)
while IFS= read -r line; do
    n=$((n + 1)) cur=$line
    LAST+=("$n: $(describe "$line")")
    [ ${#LAST[@]} -gt 50 ] && LAST=("${LAST[@]:1}")
    echo "$line" >>"$LOG"
    kind=${line%% *} rest=${line#* }
    read -r -a A <<<"$rest"
    heavy=0
    clock; ev_t0=$NOW
    case $kind in
        key) t send-keys -t s "${A[@]}"; keys=$((keys + ${#A[@]})) ;;
        text) t send-keys -t s -H "${A[@]}"; texts=$((texts + 1)) ;;
        ctrl) t send-keys -t s -H "${A[@]}"; ctrl=$((ctrl + 1)) ;;
        bad) t send-keys -t s -H "${A[@]}"; bad=$((bad + 1)) ;;
        esc) t send-keys -t s -H "${A[@]}"; escs=$((escs + 1)) ;;
        mouse) t send-keys -t s -H "${A[@]}"; mouse=$((mouse + 1)) ;;
        burst) t send-keys -t s -H "${A[@]}"; bursts=$((bursts + 1)) ;;
        leave) # out of a lesson, the list or the training view: Esc alone
            sync_check || { dead=1; break; }
            t send-keys -t s Escape; escs=$((escs + 1)) heavy=1 ;;
        paste)
            set -- "${A[@]}"
            paste_bytes=$((paste_bytes + $#)) pastes=$((pastes + 1)) heavy=1
            while [ $# -gt 0 ]; do
                k=$(( $# < 512 ? $# : 512 ))
                t send-keys -t s -H "${@:1:k}"; shift "$k"
            done ;;
        resize)
            read -r W H <<<"$rest"
            t resize-window -t s -x "$W" -y "$H"; resizes=$((resizes + 1)) ;;
        edit) edit_enter ;;
        gtext) [ "$editing" = 1 ] && { t send-keys -t s -H "${A[@]}"; texts=$((texts + 1)); } ;;
        gesc)
            # the "edit" line just before checked the title: nothing sent since
            [ "$editing" = 1 ] && { t send-keys -t s Escape; escs=$((escs + 1)) heavy=1; }
            editing=0 ;;
        probe) probe ;;
        *) echo "soak.sh: bad stream line $n: $line" >&2 ;;
    esac
    if ! alive; then dead=1; break; fi
    if [ "$heavy" = 1 ] || [ $((n % SYNC)) -eq 0 ]; then
        sync_check || { dead=1; break; }
    fi
    clock; PROF[$kind]=$(( ${PROF[$kind]:-0} + NOW - ev_t0 ))
    if [ $((n % 1000)) -eq 0 ]; then
        echo "# soak: $n/$total events, $(( ($(now_ms) - start_ms) / 1000 )) s"
    fi
done <"$WORK/stream.txt"
elapsed=$(( ($(now_ms) - start_ms) / 1000 ))

exit_ok=0 restored=0
if [ "$dead" = 1 ] || ! alive; then
    sleep 0.5
    finding crash "the program ended during the soak: $(screen | grep -ao 'EXITED:[0-9]*' | head -1)"
    echo "not ok - soak: survives $total events (died at event $n, seed $SEED)"
else
    echo "ok - soak: survives $total events (seed $SEED, ${elapsed} s)"
    # Back to a size where the status shows (a replayed log may end small),
    # leave the help and the editor (Esc, checked on screen), then q.
    t resize-window -t s -x 120 -y 40; W=120 H=40
    for _ in 1 2 3 4; do
        settle
        if overlay_open || screen | head -1 | grep -q EDITING; then
            t send-keys -t s Escape
        else
            break
        fi
    done
    settle
    t send-keys -t s q
    for _ in $(seq 1 200); do screen | grep -aq 'EXITED:' && break; sleep 0.05; done
    sleep 0.3
    code=$(screen | grep -ao 'EXITED:[0-9]*' | head -1)
    if [ "$code" = EXITED:0 ]; then exit_ok=1; fi
    if screen | grep -A1 'EXITED:' | tail -1 | grep -q '^icanon echo' &&
        ! screen | grep -q '^ attnviz | '; then restored=1; fi
fi
if [ "$exit_ok" = 1 ]; then
    echo "ok - soak: q exits with status 0"
else
    [ "$dead" = 1 ] || finding quit "q did not end the program with status 0 (${code:-no exit})"
    echo "not ok - soak: q exits with status 0 (${code:-no exit seen})"
fi
if [ "$restored" = 1 ]; then
    echo "ok - soak: the terminal is restored (icanon echo, the screen left)"
else
    [ "$dead" = 1 ] || finding terminal "the terminal is not restored after q"
    echo "not ok - soak: the terminal is restored"
    screen | sed 's/^/#   | /'
fi
if grep -Eq 'Sanitizer|runtime error|LeakSanitizer|ERROR' "$WORK/stderr.txt" 2>/dev/null; then
    finding sanitizer "$(grep -Em1 'Sanitizer|runtime error' "$WORK/stderr.txt")"
    echo "not ok - soak: no ASan/UBSan report"
    sed 's/^/#   /' "$WORK/stderr.txt" | head -60
elif [ -s "$WORK/stderr.txt" ]; then
    echo "not ok - soak: nothing on stderr"; fail=1
    sed 's/^/#   /' "$WORK/stderr.txt" | head -20
else
    echo "ok - soak: no ASan/UBSan report, nothing on stderr"
fi
hangs=$(grep -c ': hang:' "$WORK/findings.txt" 2>/dev/null); hangs=${hangs:-0}
if [ "$hangs" = 0 ]; then
    echo "ok - soak: no hang (longest busy ${max_busy} ms, longest frozen ${max_frozen} ms," \
        "slowest $PROBE_KEY answer ${max_probe} ms, $probes probes)"
else
    echo "not ok - soak: no hang: $hangs hangs over ${HANG} s (longest frozen ${max_frozen} ms)"
fi
others=$(grep -Ec ': (garbled|edit):' "$WORK/findings.txt" 2>/dev/null); others=${others:-0}
if [ "$others" = 0 ]; then
    echo "ok - soak: the screen is whole at every probe and clicks start the editor ($edits edits)"
else
    echo "not ok - soak: $others garbled screens or clicks that did not edit"
fi
echo "# soak: keys $keys, texts $texts, pastes $pastes ($paste_bytes bytes), mouse $mouse," \
    "bursts $bursts, resizes $resizes, invalid UTF-8 $bad, control $ctrl, escapes $escs, edits $edits," \
    "exports $exports, ${elapsed} s"
prof=""; for k in "${!PROF[@]}"; do prof+=" $k=$((PROF[$k] / 1000))s"; done
echo "# soak: time by event:$prof"
echo "soak keys=$n resizes=$resizes pastes=$pastes mouse=$mouse bursts=$bursts" \
    "findings=$findings seed=$SEED view=$VIEW"
[ "$fail" = 0 ]

#!/bin/bash
# bench-hfmodel.sh [DIR] - time io/hfmodel.h opening full-size random gpt2
# checkpoints (124M parameters, written by scripts/gpt2-checkpoint.py under
# DIR, default $TMPDIR or /tmp; about 2.3 GB for the five variants; made once
# and kept for later runs, never in the repository), from a warm page cache.
# Prints per variant the median of 5 opens (wall clock, and user + system
# time), and the resident memory after the open and at its peak over the
# float32 weights. Needs NumPy, and the layer archives in build/ (make).
# Run from the repository root.
set -u
dir=${1:-${TMPDIR:-/tmp}/attnviz-gpt2-bench}
py=/usr/bin/python3
mkdir -p "$dir" || exit 1
dump=$dir/hfdump
cc -std=c11 -O2 -Iinclude -D_DEFAULT_SOURCE -o "$dump" tests/e2e/lib/hfdump.c \
    build/libio.a build/libcore.a -lm || { echo "bench-hfmodel: run make first"; exit 1; }
echo "processor: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores"
printf '%-22s %9s %9s %10s %10s %10s\n' variant "open s" "cpu s" "weights MiB" "RSS/w" "peak/w"
while read -r name flags; do
    d=$dir/$name
    if [ ! -e "$d/config.json" ]; then
        $py scripts/gpt2-checkpoint.py "$d" --size gpt2 $flags || exit 1
    fi
    cat "$d"/*.safetensors >/dev/null # warm the page cache
    times=() cpus=()
    for _ in 1 2 3 4 5; do
        out=$( { /usr/bin/time -f 'time %e %U %S' "$dump" "$d"; } 2>&1) || {
            echo "bench-hfmodel: $name: $out"; exit 1; }
        set -- $(echo "$out" | sed -n 's/^time //p')
        times+=("$1") cpus+=("$(awk "BEGIN { print $2 + $3 }")")
        facts=$(echo "$out" | grep '^layers')
    done
    med() { printf '%s\n' "$@" | sort -g | sed -n 3p; }
    get() { echo "$facts" | sed -n "s/.* $1 \([^ ]*\).*/\1/p"; }
    w=$(($(get params) * 4 / 1024))
    printf '%-22s %9s %9s %10d %10.3f %10.3f\n' "$name" "$(med "${times[@]}")" \
        "$(med "${cpus[@]}")" $((w / 1024)) "$(awk "BEGIN { print $(get rss_after_kb) / $w }")" \
        "$(awk "BEGIN { print $(get rss_peak_kb) / $w }")"
done <<'EOF'
f32 
f32-misaligned --misalign
f16 --dtype f16
bf16-misaligned --dtype bf16 --misalign
f32-untied-misaligned --untied --misalign
EOF

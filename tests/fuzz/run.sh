#!/bin/bash
# run.sh [SECONDS] [NAME...] - build the libFuzzer harnesses and run each one.
#
# Builds tests/fuzz/fuzz_*.c with clang (-fsanitize=fuzzer,address,undefined)
# against the objects of every layer below the interface (src/core io train
# render app, and src/cli/cli.c and clicheck.c; NO_BLAS, no ncurses) into
# $FUZZ_DIR (default build/fuzz), then runs each harness for SECONDS (default
# 60) on a copy of its seed corpus in $FUZZ_DIR/corpus/NAME: the committed
# corpus in tests/fuzz/corpus/ is never grown. Prints per harness
#   fuzz NAME execs=N findings=K seconds=S
# and ends with "N passed, M failed" (passed: no finding). A finding's input is
# kept in $FUZZ_DIR/crashes/NAME/ with libFuzzer's log beside it, and the exit
# status is 1. Without clang or its fuzzer runtime it says why and exits 1.
# Run from the repository root (make fuzz does).
# FUZZ_SEED=N and FUZZ_RUNS=N fix libFuzzer's seed and number of runs, and
# FUZZ_FRESH=1 starts from the committed corpus alone: then a run is the same
# on every machine (make test's smoke run uses them, so CI does not fail by
# chance; make fuzz explores with fresh seeds).
# FUZZ_JOBS=N builds the objects and runs the harnesses N at a time (default
# a job per core); each harness's lines are printed whole, in the order asked.
set -u
secs=${1:-60}
shift 2>/dev/null
names=("$@")
[ ${#names[@]} -eq 0 ] && names=(tokenize npy sentences cli bpe wordpiece hfvocab safetensors hfconfig hfindex json model lesson attn)
case $secs in
'' | *[!0-9]*) echo "run.sh: SECONDS must be a whole number, not '$secs'" >&2; exit 2 ;;
esac
[ "$secs" -ge 1 ] || secs=1

cd "$(dirname "$0")/../.." || exit 1
out=${FUZZ_DIR:-build/fuzz}
CC=${FUZZ_CC:-clang}
SAN="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
# No function multi-versioning here: clang 14 does not export the plain name
# of a target_clones function (attention.c's softmax), so calls to it from
# another file fail to link; the fuzz build needs no AVX clones anyway.
CFLAGS="-std=c11 -g -O1 -D_DEFAULT_SOURCE -Dtarget_clones(...)=unused -DNO_BLAS"
# The reference sgemm's loops untraced (tests/fuzz/nocov.txt says why).
SAN="$SAN -fsanitize-coverage-ignorelist=tests/fuzz/nocov.txt"
CFLAGS="$CFLAGS -Iinclude -I$out/gen $SAN"
HFLAGS="-Wall -Wextra -Wshadow -Wstrict-prototypes -Werror"

if ! command -v "$CC" >/dev/null 2>&1; then
    echo "run.sh: $CC not found: install clang (scripts/deps.sh test does)"
    exit 1
fi
mkdir -p "$out/obj" "$out/gen" "$out/bin" || exit 1
probe=$out/probe.c
echo 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n)
{ (void)d; (void)n; return 0; }' >"$probe"
if ! "$CC" -fsanitize=fuzzer,address,undefined -o "$out/probe" "$probe" >"$out/probe.log" 2>&1; then
    echo "run.sh: $CC cannot link libFuzzer programs (no fuzzer runtime: install" \
        "Debian's libclang-rt-14-dev; scripts/deps.sh test does):"
    head -3 "$out/probe.log"
    exit 1
fi

# The core objects: rebuilt when their source or any header is newer.
# Generated includes (the built-in sentences, the lexicon...) come from the
# Makefile's own $(B)/gen/*.inc rules, built here with B=$out.
newest_h=$(ls -t include/*/*.h src/*/*.h src/*/*/*.h src/*/*/*/*.h 2>/dev/null | head -1)
# (every one the Makefile names, those of its pattern rules among them)
gen=$(grep -o '\$(B)/gen/[A-Za-z0-9_.-]*\.inc' Makefile | sort -u | sed "s|^\$(B)|$out|")
if [ -n "$gen" ]; then
    make --no-print-directory -s B="$out" $gen || { echo "run.sh: cannot generate $gen"; exit 1; }
fi
newest_gen=$(ls -t $gen "$newest_h" tests/fuzz/nocov.txt 2>/dev/null | head -1)
# a change of flags rebuilds every object
if [ "$(cat "$out/obj/flags" 2>/dev/null)" != "$CC $CFLAGS" ]; then
    rm -f "$out"/obj/*.o
    echo "$CC $CFLAGS" >"$out/obj/flags"
fi
# every object, compiled FUZZ_JOBS at a time (default a job per core) when
# its source or a header is newer
jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 2)}
objs=() todo=()
# (every layer below the interface, with its wings two deep, as the
# Makefile's layer_src: src/core/gpt2/, src/io/hf/, src/core/fast/gpt2/, ...)
for src in src/{core,io,train,render,app}/*.c src/{core,io,train,render,app}/*/*.c \
    src/{core,io,train,render,app}/*/*/*.c src/cli/cli.c src/cli/clicheck.c; do
    [ -e "$src" ] || continue
    obj=$(echo "${src#src/}" | tr / _)
    obj=$out/obj/${obj%.c}.o
    if [ ! -e "$obj" ] || [ "$src" -nt "$obj" ] || [ "$newest_gen" -nt "$obj" ]; then
        todo+=("$src" "$obj")
    fi
    objs+=("$obj")
done
if [ ${#todo[@]} -gt 0 ]; then
    printf '%s\n' "${todo[@]}" | xargs -n 2 -P "$jobs" sh -c \
        '$0 $1 -fsanitize=fuzzer-no-link -c -o "$3" "$2" || { echo "run.sh: cannot compile $2"; exit 255; }' \
        "$CC" "$CFLAGS" || exit 1
fi
rm -f "$out/libcore.a"
ar rcs "$out/libcore.a" "${objs[@]}" || exit 1

# Per harness: the longest input libFuzzer tries (the sentences reader needs
# room for 1000-line files and 4096-byte lines).
max_len() {
    case $1 in
    sentences | hfvocab) echo 16384 ;;
    tokenize | bpe | wordpiece) echo 8192 ;;
    *) echo 4096 ;;
    esac
}

# fuzz_one NAME: build harness NAME, run it, and print its one line
# ("fuzz NAME execs=N findings=F seconds=S") after what it kept; exit 1 on a
# finding or a harness that does not build.
fuzz_one() {
    local name=$1 src=tests/fuzz/fuzz_$1.c bin=$out/bin/fuzz_$1
    if [ ! -e "$src" ]; then echo "run.sh: no harness $src"; return 1; fi
    if ! $CC $CFLAGS $HFLAGS -fsanitize=fuzzer -o "$bin" "$src" "$out/libcore.a" -lm; then
        echo "fuzz $name execs=0 findings=1 seconds=0 (does not build)"
        return 1
    fi
    local corpus=$out/corpus/$name crashes=$out/crashes/$name log=$out/fuzz_$name.log
    [ -n "${FUZZ_FRESH:-}" ] && rm -rf "$corpus"
    mkdir -p "$corpus" "$crashes"
    [ -d "tests/fuzz/corpus/$name" ] && cp -p tests/fuzz/corpus/$name/* "$corpus/" 2>/dev/null
    # a slow unit is no finding (its time depends on the machine's load)
    local before after found rc t0 t1 execs fixed=()
    before=$(ls "$crashes" | grep -Evc '\.log$|^slow-unit-')
    t0=$(date +%s)
    [ -n "${FUZZ_SEED:-}" ] && fixed+=(-seed="$FUZZ_SEED")
    [ -n "${FUZZ_RUNS:-}" ] && fixed+=(-runs="$FUZZ_RUNS")
    "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len="$(max_len "$name")" \
        -print_final_stats=1 -artifact_prefix="$crashes/" "${fixed[@]}" "$corpus" >"$log" 2>&1
    rc=$?
    t1=$(date +%s)
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    after=$(ls "$crashes" | grep -Evc '\.log$|^slow-unit-')
    found=$((after - before))
    # a sanitizer report or a libFuzzer error with no artifact is a finding too
    if [ "$rc" -ne 0 ] && [ "$found" -eq 0 ]; then found=1; fi
    if [ "$found" -gt 0 ]; then
        cp "$log" "$crashes/fuzz_$name.$t1.log"
        grep -m3 -E 'ERROR|invariant broken|runtime error' "$log" | sed 's/^/# /'
        ls -t "$crashes" | grep -v '\.log$' | head -"$found" | sed "s|^|# kept $crashes/|"
    fi
    echo "fuzz $name execs=${execs:-0} findings=$found seconds=$((t1 - t0))"
    [ "$found" -eq 0 ]
}

# The harnesses, FUZZ_JOBS at a time, each one's lines printed whole in
# the order asked (a fixed seed and number of runs give each the same inputs
# whatever runs beside it).
pass=0; fail=0; status=0 running=0
mkdir -p "$out/run"
for name in "${names[@]}"; do
    if [ "$running" -ge "$jobs" ]; then wait -n; running=$((running - 1)); fi
    rm -f "$out/run/$name.rc"
    { fuzz_one "$name" >"$out/run/$name.out" 2>&1; echo $? >"$out/run/$name.rc"; } &
    running=$((running + 1))
done
wait
for name in "${names[@]}"; do
    cat "$out/run/$name.out"
    if [ "$(cat "$out/run/$name.rc" 2>/dev/null)" = 0 ]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1)); status=1
    fi
done
echo "$pass passed, $fail failed"
exit $status

#!/bin/bash
# fuzz_smoke.sh - a brief fuzz run as part of `make test` (under make asan,
# ATTNVIZ_SANITIZED set: every harness's committed corpus replayed, lesson's
# too, and nothing new tried): tests/fuzz/run.sh
# with 200,000 runs of seed 1 per harness (FUZZ_RUNS, FUZZ_SEED; fewer for the
# slow attn and model harnesses: FUZZ_RUNS_ATTN, _MODEL; lesson only when
# FUZZ_RUNS_LESSON is set), at most
# 3 x FUZZ_SMOKE_SECONDS (default 10) seconds each. Prints "ok - fuzz NAME"
# or "not ok - fuzz NAME (why)" per harness; findings are kept under
# build/fuzz/crashes/NAME/ (see tests/fuzz/run.sh). Run from the repository root.
# tier: test
# asan: yes
set -u
secs=${FUZZ_SMOKE_SECONDS:-10}
log=$(mktemp) || exit 1
trap 'rm -f "$log"' EXIT
# A fixed seed, number of runs and starting corpus: the same run everywhere,
# so that CI never fails by the luck of a random seed (make fuzz explores).
# 200,000 runs each, but for the harnesses whose one run writes and reads a
# file or a whole model folder, or runs a model on every page of a lesson:
# their counts (below) keep each near 20-30 s on the project's 2-core machine
# (README "Robustness" gives the rates).
fast=(tokenize npy sentences cli json bpe wordpiece hfvocab safetensors hfconfig hfindex)
# lesson is left to make fuzz: on a loaded machine one input (8 pages, each
# running a model under ASan) passed libFuzzer's 10 s timeout
slow=("attn ${FUZZ_RUNS_ATTN:-50000}" "model ${FUZZ_RUNS_MODEL:-30000}")
[ -n "${FUZZ_RUNS_LESSON:-}" ] && slow+=("lesson $FUZZ_RUNS_LESSON")
rc=0
if [ -n "${ATTNVIZ_SANITIZED:-}" ]; then
    # make asan: every harness (built with ASan and UBSan as ever) on its
    # committed corpus alone, no new inputs: each reader's known inputs
    # checked under the sanitizers in seconds (make test runs the smoke)
    FUZZ_RUNS=0 FUZZ_FRESH=1 bash tests/fuzz/run.sh "$((secs * 3))" "${fast[@]}" attn model \
        lesson >"$log" 2>&1 || rc=1
    slow=()
else
    FUZZ_SEED=${FUZZ_SEED:-1} FUZZ_RUNS=${FUZZ_RUNS:-200000} FUZZ_FRESH=1 \
        bash tests/fuzz/run.sh "$((secs * 3))" "${fast[@]}" >"$log" 2>&1 || rc=1
fi
for s in "${slow[@]}"; do
    FUZZ_SEED=${FUZZ_SEED:-1} FUZZ_RUNS=${s#* } FUZZ_FRESH=1 \
        bash tests/fuzz/run.sh "$((secs * 3))" "${s%% *}" >>"$log" 2>&1 || rc=1
done
n=0
while read -r _ name execs found seconds rest; do
    n=$((n + 1))
    execs=${execs#execs=} found=${found#findings=} seconds=${seconds#seconds=}
    if [ -n "$rest" ]; then
        echo "not ok - fuzz $name $rest"
    elif [ "$found" = 0 ]; then
        echo "ok - fuzz $name ($execs executions in ${seconds}s)"
    else
        echo "not ok - fuzz $name ($found findings in ${seconds}s," \
            "kept in build/fuzz/crashes/$name)"
    fi
done < <(grep '^fuzz [a-z_]* execs=' "$log")
if [ "$rc" -ne 0 ]; then
    grep -v '^fuzz ' "$log" | sed 's/^/# /' | head -20
fi
if [ "$n" -eq 0 ]; then
    echo "not ok - fuzz (the harnesses did not run)"
    exit 1
fi
exit "$rc"

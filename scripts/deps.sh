#!/bin/sh
# deps.sh - install the Debian packages attnviz needs, when they are missing.
#   scripts/deps.sh run    what building and running needs
#   scripts/deps.sh bench  that, plus NumPy, which writes the gpt2-shaped
#                          checkpoint `make bench` times
#   scripts/deps.sh ref    that, plus PyTorch, for `make bench-ref`
#   scripts/deps.sh test   that, plus what the tests need (cmocka, tmux, ...)
#   scripts/deps.sh shots  that, plus what `make screenshots` needs (an X
#                          server, xterm and ImageMagick to photograph it)
# Says what it installs; runs apt-get as root or through sudo. Where that
# cannot work it stops with one line naming the packages to install.
set -eu

need="pkg-config libncurses-dev libopenblas-dev libcurl4-openssl-dev"
case "${1:-run}" in
shots) need="$need tmux xvfb xterm imagemagick fonts-dejavu-core" ;;
bench) need="$need python3-numpy" ;;
ref) need="$need python3-numpy python3-torch" ;;
test) need="$need libcmocka-dev tmux valgrind clang libclang-rt-14-dev python3-numpy python3-torch chromium python3-pil python3-regex unicode-data nodejs npm time procps strace man-db bc" ;;
esac

missing=""
for p in $need; do
    # NodeSource's nodejs package holds npm (and conflicts with Debian's)
    [ "$p" = npm ] && command -v npm >/dev/null 2>&1 && continue
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
        missing="$missing $p"
    fi
done
[ -z "$missing" ] && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
    echo "attnviz: missing packages:$missing (install them with your package manager)" >&2
    exit 1
fi
if [ "$(id -u)" = 0 ]; then
    SUDO=""
elif command -v sudo >/dev/null 2>&1; then
    SUDO="sudo"
else
    echo "attnviz: missing packages:$missing (run: apt-get install$missing as root)" >&2
    exit 1
fi
echo "attnviz: installing missing packages:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
if ! { $SUDO apt-get update -qq && $SUDO apt-get install -y -qq --no-install-recommends $missing; } \
        >/tmp/attnviz-apt.log 2>&1; then
    tail -5 /tmp/attnviz-apt.log >&2
    echo "attnviz: could not install:$missing (run: apt-get install$missing)" >&2
    exit 1
fi

#!/bin/sh
# kinds.sh - the model kinds are told apart in src/app/ alone (app/kind.h):
# no file of the interface or the renderers names a kind's own functions
# (a trained model's netresult_*, imported attention's attnimport_* and
# attnfile_*, the pipeline's model_run). Run by make lint; exit 1 with the
# lines at fault.
hits=$(grep -rnE '\b(netresult|attnimport|attnfile)_[a-z_]+|\bmodel_run\b' \
    src/ui src/render include/ui include/render)
if [ -n "$hits" ]; then
    printf '%s\n' "$hits" | sed 's/^/kinds: names a model kind'"'"'s function (use app\/kind.h): /'
    exit 1
fi
echo "kinds: ok (src/ui and src/render go through app/kind.h)"

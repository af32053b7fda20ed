# oneline.sh - one_line, sourced by the hub's scripts (hub.sh, hub_edges.sh),
# which define ok, notok and $tmp before sourcing it.
# one_line NAME STATUS PATTERN CMD...: exits STATUS, stderr's last line is
# "attnviz: ..." matching PATTERN, and only one line says it
one_line() {
    local name=$1 want=$2 pat=$3; shift 3
    "$@" >"$tmp/out" 2>"$tmp/err"; local rc=$?
    local last
    last=$(tail -1 "$tmp/err")
    if [ $rc -eq "$want" ] && [[ "$last" == "attnviz: "* ]] && grep -Eq -- "$pat" <<<"$last" &&
        [ "$(grep -Ec -- "$pat" "$tmp/err")" -eq 1 ]; then
        ok "$name (exit $rc: ${last:0:110})"
    else
        notok "$name: exit $rc (want $want), stderr: $(tr '\n' '|' <"$tmp/err" | cut -c1-300)"
    fi
}

#!/bin/bash
# tui_pipeline_rows.sh - the pipeline view on a text longer than the screen
# is tall (22 tokens), at 80x24, 100x30 and 120x40: every stage shows the
# same rows (side by side, the rows that line up are the same tokens; Q_h
# and K_h once showed rows 8-22 and 1-15 beside each other), the selected
# token's row among them, and a stage that cannot show all says which rows
# it shows ("rows 9-22 of 22"); with a key selected too, K_h marks it in the
# same rows. The row labels are read from capture-pane (lib/pipe_rows.py).
# The view's title keeps its page and keys whole, dropping the head's label
# first where the line is short (with 2 layers at 80x24 it read "... page 1
# of 8 ([ …").
# tier: test
# asan: no
set -u
. "$(dirname "$0")/lib/tui.sh"
tui_init pipeline_rows
TEXT='The quick brown fox jumps over the lazy dog while the small cat sat on the warm mat and it was tired'
read -r -a TOK <<<"$TEXT"
N=${#TOK[@]}

# pages: every page of the view, each stage as pipe_rows.py prints it
pages() {
    local total p
    total=$(screen | grep -o 'page [0-9]* of [0-9]*' | head -n 1 | awk '{print $4}')
    for p in $(seq 1 "${total:-1}"); do
        screen >"$WORK/page"
        /usr/bin/python3 "$(dirname "$0")/lib/pipe_rows.py" "$WORK/page"
        keys ']' && settle
    done
}

# The labels tokens FIRST..LAST (1-based), comma-separated.
span() { local IFS=,; local a=("${TOK[@]:$(($1 - 1)):$(($2 - $1 + 1))}"); echo "${a[*]}"; }

# check_rows SIZE WANT SEL [KEY]: every stage shows rows WANT ("9-22" or
# "all"), the same ones, SEL among them and marked in the query stages (KEY
# marked in K_h and V_h when given).
check_rows() {
    local size=$1 want=$2 sel=$3 key=${4:--} stage rng mark labels first last n=0 bad=""
    while read -r stage rng mark labels; do
        n=$((n + 1))
        if [ "$want" = all ]; then first=1 last=$N; else first=${want%-*} last=${want#*-}; fi
        [ "$rng" = "$want" ] || bad="$bad stage $stage says rows $rng;"
        [ "$labels" = "$(span "$first" "$last")" ] || bad="$bad stage $stage shows $labels;"
        case $stage in
        2 | 3) [ "$mark" = "$key" ] || bad="$bad stage $stage marks $mark, not $key;" ;;
        *) [ "$mark" = "$sel" ] || bad="$bad stage $stage marks $mark, not $sel;" ;;
        esac
    done <"$WORK/stages"
    check "pipeline at $size: $n stages (want 8), each rows $want, $sel marked${bad:+:$bad}" \
        test "$n" = 8 -a -z "$bad"
}

for size in 80x24:9-22 100x30:4-22 120x40:all; do
    sz=${size%:*} want=${size#*:} w=${size%x*} h=${sz#*x}
    tui_start "TERM=xterm-256color" "$w" "$h" "$TEXT"
    keys End && settle
    keys S && settle
    pages >"$WORK/stages"
    check_rows "$sz" "$want" tired
    # a key selected too: the rows keep the query, K_h and V_h mark the key
    keys Escape && settle
    keys Left && settle
    keys Left && settle
    keys S && settle
    pages >"$WORK/stages"
    check_rows "$sz with the key 'was'" "$want" tired was
done

# A query in the middle (15 of 22): the rows around it, in every stage.
tui_start "TERM=xterm-256color" 80 24 "$TEXT"
keys Home && settle
for _ in $(seq 1 14); do keys Down && settle; done
keys S && settle
pages >"$WORK/stages"
check_rows "80x24 on token 15" 8-21 on

# The title: whole at every size, the label where it fits.
for size in 80x24:'head 6 of 6, layer 1' 100x30:'(verb -> subject), layer 1' 120x40:'(verb -> subject), layer 1'; do
    sz=${size%%:*} want=${size#*:} w=${size%x*} h=${sz#*x}
    tui_start "TERM=xterm-256color" "$w" "$h" --layers 2 'The cat sat on the mat because it was tired.'
    keys 6 && settle
    keys S && settle
    title=$(screen | grep '^Pipeline of head')
    check "pipeline at $sz, 2 layers, head 6: the title whole ($title)" \
        sh -c 'case $1 in *"$2: query "*"   page 1 of "*" ([ ])"*) ! printf "%s" "$1" | grep -q "…" ;;
               *) exit 1 ;; esac' _ "$title" "$want"
done
exit "$fail"

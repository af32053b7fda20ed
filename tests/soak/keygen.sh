#!/bin/bash
# keygen.sh SEED EVENTS [PASTE_MAX] [VIEW] - the soak's key stream, one event a
# line, from bash's seeded PRNG (RANDOM=SEED): the same seed gives the same
# stream. Nothing here looks at the program; soak.sh sends the lines in order.
# VIEW (soak.sh --view) is what the program was opened on: plain, lesson,
# import (imported attention: no editing, so no edit macro) or model.
#
#   key NAME            a tmux key name (every binding of src/ui/input.c but the
#                       quit keys q, F10, Ctrl-C and Esc)
#   text|ctrl|bad|esc|mouse|paste HEX...
#                       bytes, sent with `tmux send-keys -H`: typed text, control
#                       characters, invalid UTF-8, unknown/Alt escape sequences,
#                       SGR/X10 mouse reports, a pasted page (newlines, tabs)
#   resize W H          tmux resize-window
#   edit                click the sentence twice (closes the help, then edits);
#                       soak.sh checks the title says EDITING before it sends:
#   gtext HEX...        text that may hold 'q' (only sent while editing)
#   gesc                Esc (only sent while editing: leaves the editor)
#   burst HEX...        several command keys in one write: taken in one burst,
#                       before the model runs again (issue 27)
#   leave               Esc once the program is idle: out of a lesson, the
#                       list of lessons or the live training view
#   probe               is it alive and does the probe key change the status line?
# Macros reach the other views: a lesson (the list, a lesson opened, pages
# turned, answers given, left and opened again), the live training view
# (pause, speed, a step, stray keys, resizes while it runs), the pipeline and
# the trace, the combining views (heads combined, rollout, norms, rows summed).
# Bytes never sent: 'q' and 'Q' (the training view's quit) outside gtext, a
# lone ESC but in leave, 0x03 (^C), 0x1c (^\ is SIGQUIT), 0x11/0x13 (^Q/^S
# are the tty's flow control, see the report).
set -u
seed=${1:?seed}
events=${2:?events}
paste_max=${3:-4096}
view=${4:-plain}
RANDOM=$seed

R=0
rnd() { R=$(( (RANDOM * 32768 + RANDOM) % $1 )); } # 0 .. $1-1, no subshell

# Every key of the table, as tmux names it (both modes; Esc/F10/q left out).
KEYS=(F1 C-g F2 Tab BTab Up Down PPage NPage F9 C-k C-p C-t F3 F4 F5 F6 F7 F8
      C-n C-o C-x
      '?' Enter KPEnter e i v k j Home End Left Right 1 2 3 4 5 6 7 8 9 m c p s
      h H d D r R l n N x X P '[' ']' w F11 I t T L '<' '>' C E b B a z + = Z - 0
      C-a C-e C-Left M-b C-Right M-f BSpace DC C-h C-d C-w C-u
      Space Insert F11 F12 S-Up C-Up M-x S A O V M g o)
# The settings and switches, toggled mid-edit in the edit macro.
SETTINGS=(F9 C-k C-p C-t F3 F4 F5 F6 F7 F8 C-n Tab BTab Up Down F1 F2 C-u C-w)
WORDS=(the cat sat on mat because it was tired trophy did not fit in suitcase
       too big attention head token lookup key value softmax layer model weights
       encoder decoder position embedding matrix scaled dot product sentence
       river bank money walked down by she he they their them lorem ipsum dolor
       amet consectetur adipiscing elit sed do eiusmod tempor incididunt labore
       "don't" "isn't" "U.S.A." "e-mail" "3.14" "1,000" "(a)" "[b]" "{c}")
# Valid UTF-8 (hex): accents, CJK, emoji, combining marks, RTL, ZWJ, wide,
# U+FFFD, NBSP, a C1 control in UTF-8 (U+0085).
UTF8=("c3 a9" "c3 b1" "e4 b8 ad e6 96 87" "f0 9f 98 80" "65 cc 81" "d7 a9 d7 9c"
      "f0 9f 91 a9 e2 80 8d f0 9f 92 bb" "ef bc a1" "ef bf bd" "c2 a0" "c2 85"
      "e2 80 8b" "f0 9f 87 ab f0 9f 87 b7" "e0 a4 b9 e0 a4 bf")
# Invalid UTF-8 (hex): stray continuation bytes, truncated sequences,
# overlongs, surrogates, > U+10FFFF, 0xFE/0xFF.
BAD=("ff" "fe" "ff fe" "c3 28" "c3" "80" "bf" "e2 82" "e2 28 a1" "f0 90 80"
     "c0 af" "e0 80 af" "ed a0 80" "f4 90 80 80" "f8 88 80 80 80" "fc 84 80 80 80 80"
     "e9" "fe fe ff ff")
# Escape sequences curses may not know, and Alt keys (never a lone ESC).
ESCS=("1b 62" "1b 66" "1b 78" "1b 31" "1b 5b 39 39 7e" "1b 5b 32 30 30 7e"
      "1b 5b 32 30 31 7e" "1b 5b 31 3b 35 43" "1b 5b 31 3b 33 44" "1b 4f 50"
      "1b 5b" "1b 4f" "1b 5b 3f 31 30 34 39 68" "1b 5d 30 3b 78 07" "1b 1b 62"
      "1b 5b 31 32 33 34 35 36 37 38 39 30 3b 31 32 33 34 35 36 41"
      "1b 5b 4d 20 21 21" "1b 5b 4d 23 ff ff" "1b 5b 49" "1b 5b 4f")
# Control bytes 0x00-0x1f and 0x7f but for ^C, ^Q, ^S, ESC, ^\.
CTRLS=(00 01 02 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f 10 12 14 15 16 17 18 19 1a
       1d 1e 1f 7f)
CHARS='abcdefghijklmnoprstuvwxyzABCDEFGHIJKLMNOPRSTUVWXYZ0123456789 .,;:!?-_()[]{}<>/\|@#$%^&*+=~`'"'"'"'

W=120 Hh=40 # the size the soak starts at; resizes keep track of it
OUT=''
hex_of() { # $1: ASCII text -> appends its bytes as hex to OUT
    local s=$1 i c
    for ((i = 0; i < ${#s}; i++)); do
        c=${s:i:1}
        printf -v c '%02x' "'$c"
        OUT+=" $c"
    done
}
rand_text() { # $1 words (random ASCII, words, a little UTF-8) -> OUT
    local n=$1 k
    OUT=''
    for ((k = 0; k < n; k++)); do
        rnd 10
        if ((R < 5)); then
            rnd ${#WORDS[@]}; hex_of "${WORDS[R]} "
        elif ((R < 8)); then
            rnd ${#CHARS}; hex_of "${CHARS:R:1}"
        else
            rnd ${#UTF8[@]}; OUT+=" ${UTF8[R]}"
        fi
    done
}
page() { # a page of pasted text, $1 bytes at most -> OUT (hex)
    local max=$1 len=0 line k
    OUT=''
    while ((len < max - 100)); do
        line=''
        rnd 12
        for ((k = 0; k < R + 3; k++)); do
            local r2; rnd ${#WORDS[@]}; r2=$R
            rnd 9
            case $R in
                0) line+=$'\t' ;;
                1) line+=', ' ;;
                *) line+=' ' ;;
            esac
            line+=${WORDS[r2]}
        done
        rnd 5
        if ((R == 0)); then line+=$'\r\n'; else line+=$'\n'; fi
        hex_of "$line"
        len=$((len + ${#line}))
        rnd 6
        ((R == 0)) && OUT+=" ${UTF8[len % ${#UTF8[@]}]}" && len=$((len + 4))
    done
}
mouse() {
    local x y b
    rnd 20
    if ((R < 2)); then x=$((1 + R * 999)); else rnd $((W + 2)); x=$((R + 1)); fi
    rnd 20
    if ((R < 2)); then y=$((1 + R * 499)); else rnd $((Hh + 2)); y=$((R + 1)); fi
    rnd 20
    if ((R < 9)); then # a click: press and release
        hex_of $'\e'"[<0;$x;${y}M"$'\e'"[<0;$x;${y}m"
    elif ((R < 15)); then # the wheel
        b=$((64 + R % 2)); hex_of $'\e'"[<$b;$x;${y}M"
    elif ((R < 17)); then # middle or right button
        b=$((1 + R % 2)); hex_of $'\e'"[<$b;$x;${y}M"$'\e'"[<$b;$x;${y}m"
    elif ((R < 19)); then # a drag and a motion report
        hex_of $'\e'"[<32;$x;${y}M"$'\e'"[<35;$x;${y}M"
    else # a press with modifiers (shift, ctrl)
        b=$((4 + 12 * (R % 2))); hex_of $'\e'"[<$b;$x;${y}M"
    fi
}
resize() {
    rnd 14
    case $R in
        0) W=1 Hh=1 ;;
        1) W=200 Hh=60 ;;
        2) W=59 Hh=17 ;;
        3) W=60 Hh=18 ;;
        4) rnd 10; W=$((R + 1)); rnd 6; Hh=$((R + 1)) ;;
        5) W=1; rnd 60; Hh=$((R + 1)) ;; # one column (issue 27: 1x3 then 1x60)
        6) rnd 200; W=$((R + 1)); Hh=1 ;;
        *) rnd 200; W=$((R + 1)); rnd 60; Hh=$((R + 1)) ;;
    esac
    echo "resize $W $Hh"
}
big_enough() { # a size where the title and the status line are whole
    if ((W < 100 || Hh < 24)); then
        rnd 2
        if ((R)); then W=120 Hh=40; else W=100 Hh=30; fi
        echo "resize $W $Hh"
    fi
}
edit_macro() { # click the sentence, type (with q), toggle settings, Esc
    local k n
    big_enough
    echo edit
    rnd 4
    n=$((R + 1))
    for ((k = 0; k < n; k++)); do
        rnd 3; rand_text $((R + 1)); hex_of " qu"; echo "gtext$OUT"
        rnd ${#SETTINGS[@]}; echo "key ${SETTINGS[R]}"
    done
    rnd 3
    ((R == 0)) && { resize; big_enough; } # a resize in the middle of an edit
    echo edit
    echo gesc
}

# Command keys that change the result or read it, for bursts: settings,
# layers, heads, examples, views, the rows summed, the combining views.
BURST='hHdDlL<>nNMAOVSwvbBjkJK0123456789+-zZtTrRpPscmIg[]aCE'
burst() { # 2-8 of them (and now and then an arrow or Home/End) in one write
    local k n
    rnd 7; n=$((R + 2))
    OUT=''
    for ((k = 0; k < n; k++)); do
        rnd 12
        case $R in
            0) hex_of $'\e[A' ;; 1) hex_of $'\e[B' ;; 2) hex_of $'\e[H' ;; 3) hex_of $'\e[F' ;;
            *) rnd ${#BURST}; hex_of "${BURST:R:1}" ;;
        esac
    done
    echo "burst$OUT"
}
lesson_macro() { # the list, a lesson, its pages and answers, left and reopened
    local k n
    big_enough
    echo "key o"
    rnd 12; for ((k = 0; k < R; k++)); do echo "key Down"; done
    echo "key Enter"
    rnd 8; n=$((R + 2))
    for ((k = 0; k < n; k++)); do
        rnd 9
        case $R in
            0|1) echo "key NPage" ;; 2) echo "key PPage" ;;
            3) rnd 4; echo "text 6$((1 + R))" ;; # a choice a-d
            4) echo "text 30 2e 35" ;; 5) echo "key Enter" ;; # a number; reveal
            6) echo "key Right" ;; 7) burst ;;
            *) rnd ${#KEYS[@]}; echo "key ${KEYS[R]}" ;;
        esac
    done
    echo leave
    rnd 2; ((R)) && { echo "key o"; echo "key Enter"; echo "key NPage"; echo leave; }
    echo leave
}
train_macro() { # the live training view: pause, speed, a step, stray keys, resizes
    local k n
    big_enough
    echo "key W"
    rnd 10; n=$((R + 3))
    for ((k = 0; k < n; k++)); do
        rnd 10
        case $R in
            0) echo "key Space" ;; 1) echo "text 2b" ;; 2) echo "text 2d" ;; 3) echo "text 2e" ;;
            4) echo "text 72" ;; 5) resize ;; 6) OUT=''; mouse; echo "mouse$OUT" ;;
            7) burst ;;
            *) rnd ${#KEYS[@]}; echo "key ${KEYS[R]}" ;;
        esac
    done
    big_enough
    echo leave
}

probe_every=$((events / 8 > 250 ? 250 : events / 8 + 1))
for ((i = 1; i <= events; i++)); do
    if ((i % probe_every == 0)); then big_enough; echo probe; continue; fi
    rnd 1000
    if ((R < 430)); then
        rnd ${#KEYS[@]}; echo "key ${KEYS[R]}"
    elif ((R < 580)); then
        rnd 4; rand_text $((R + 1)); echo "text$OUT"
    elif ((R < 625)); then
        rnd ${#CTRLS[@]}; echo "ctrl ${CTRLS[R]}"
    elif ((R < 665)); then
        rnd ${#BAD[@]}; OUT=" ${BAD[R]}"
        rnd 2; ((R)) && { rnd ${#CHARS}; [ "${CHARS:R:1}" = q ] || hex_of "${CHARS:R:1}"; }
        echo "bad$OUT"
    elif ((R < 690)); then
        rnd ${#ESCS[@]}; echo "esc ${ESCS[R]}"
    elif ((R < 850)); then
        OUT=''; mouse; echo "mouse$OUT"
    elif ((R < 890)); then
        resize
    elif ((R < 894)); then
        rnd $((paste_max / 2)); page $((paste_max / 2 + R)); echo "paste$OUT"
    elif ((R < 908)); then
        if [ "$view" = import ]; then burst; else edit_macro; fi
    elif ((R < 950)); then
        burst
    elif ((R < 956)); then
        lesson_macro
    elif ((R < 959)); then
        train_macro
    else # keys in a burst: the same key repeated (auto-repeat)
        rnd ${#KEYS[@]}; k=${KEYS[R]}; rnd 8
        echo "key$(printf " $k%.0s" $(seq 1 $((R + 2))))"
    fi
done
big_enough
echo probe

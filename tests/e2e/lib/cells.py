#!/usr/bin/env python3
"""cells.py - a `tmux capture-pane -p -e` capture as what a person sees: one
line per screen row, each cell its character and its look (colours and
attributes), read from standard input to standard output; with FILE
arguments, each file's capture replaced by its cells (one start-up for a
test's every capture).

Two captures of the same screen can differ in their escape codes alone:
tmux writes a cell's attributes relative to the cell before it (across
lines too), and a cell a terminal cleared is kept apart from a space that
was written, so a row that ends in cleared cells gets a closing reset that
a row ending in written ones does not. Here every cell carries its whole
look, and the blanks at a row's end that show nothing (a space with the
default background, not reversed or underlined) are dropped, so two
captures are equal exactly when the screens look the same.
"""
import re
import sys

SGR = re.compile(r"\x1b\[([0-9;:]*)m")
ATTRS = {1: "bold", 2: "dim", 3: "italic", 4: "underline", 5: "blink", 7: "reverse",
         8: "hidden", 9: "strike"}
OFF = {22: ("bold", "dim"), 23: ("italic",), 24: ("underline",), 25: ("blink",),
       27: ("reverse",), 28: ("hidden",), 29: ("strike",)}


def apply(state, params):
    """The look after one SGR sequence's parameters."""
    nums = [int(p) if p else 0 for p in re.split(r"[;:]", params)] if params else [0]
    i = 0
    while i < len(nums):
        n = nums[i]
        if n == 0:
            state.clear()
        elif n in ATTRS:
            state[ATTRS[n]] = True
        elif n in OFF:
            for a in OFF[n]:
                state.pop(a, None)
        elif 30 <= n <= 37 or 90 <= n <= 97:
            state["fg"] = str(n - 30 if n < 90 else n - 82)
        elif 40 <= n <= 47 or 100 <= n <= 107:
            state["bg"] = str(n - 40 if n < 100 else n - 92)
        elif n in (38, 48) and i + 1 < len(nums):
            key = "fg" if n == 38 else "bg"
            if nums[i + 1] == 5 and i + 2 < len(nums):
                state[key] = str(nums[i + 2])
                i += 2
            elif nums[i + 1] == 2 and i + 4 < len(nums):
                state[key] = "#%02x%02x%02x" % tuple(nums[i + 2:i + 5])
                i += 4
        elif n == 39:
            state.pop("fg", None)
        elif n == 49:
            state.pop("bg", None)
        i += 1


def look(state):
    return ",".join("%s=%s" % (k, state[k]) if k in ("fg", "bg") else k
                    for k in sorted(state))


def shows_nothing(ch, lk):
    return ch == " " and "bg=" not in lk and "reverse" not in lk and "underline" not in lk


def convert(text):
    """The lines of cells of one capture."""
    state, out = {}, []
    for line in text.split("\n"):
        cells, pos = [], 0
        for m in SGR.finditer(line):
            cells += [(ch, look(state)) for ch in line[pos:m.start()]]
            apply(state, m.group(1))
            pos = m.end()
        cells += [(ch, look(state)) for ch in line[pos:]]
        while cells and shows_nothing(*cells[-1]):
            cells.pop()
        out.append(" ".join("%s[%s]" % c for c in cells))
    return out


def main():
    if len(sys.argv) == 1:
        for line in convert(sys.stdin.read()):
            print(line)
        return
    for path in sys.argv[1:]:
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            lines = convert(f.read())
        with open(path, "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write("".join(line + "\n" for line in lines))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""layers.py LAYER... - check that includes point down the layers.

The layers are folders, bottom to top as given (make lint passes
core io train render app ui cli). A file's layer is the folder after src/,
include/ or tests/; a project include names its layer ("core/mat.h"), or is a
private header beside the including file ("ui_int.h") or in a subfolder of
its layer ("fast/thin.h", from src/core/). Fails, with one line a
fault, on:
  - an include of a higher layer;
  - a circle of includes between modules (a module is a layer's file stem:
    include/core/x.h and src/core/x.c are core/x);
  - <curses.h> / <ncurses.h> outside src/ui/ (and its tests), <cblas.h> outside
    src/core/mat.c;
  - a .c or .h file directly in src/ or include/;
  - a folder of src/ holding more than 16 .c files (a layer's concepts are
    its subfolders: README "Architecture");
  - threads, intrinsics, vector types or target attributes in src/core/
    outside src/core/fast/ (the maths stays plain C beside its kernels).
Exit status 0 when clean, 1 otherwise.
"""
import os
import re
import sys

INC = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)
FOLDER_MAX = 16
FAST = re.compile(r'<(immintrin|x86intrin|pthread|stdatomic)\.h>|\bvector_size\b|'
                  r'\btarget(_clones)?\s*\(|\b_Atomic\b|\bthrd_create\b')


def folder_faults():
    """Folders of src/ past FOLDER_MAX .c files, and core files outside
    fast/ that use what only fast/ may."""
    out = []
    for root, _, names in os.walk("src"):
        count = sum(n.endswith(".c") for n in names)
        if count > FOLDER_MAX:
            out.append(f"{root}/: {count} .c files, more than {FOLDER_MAX} (a concept's "
                       "subfolder is due)")
        if not root.startswith("src/core") or root.startswith("src/core/fast"):
            continue
        for n in sorted(names):
            if n.endswith((".c", ".h")):
                path = os.path.join(root, n)
                m = FAST.search(open(path, encoding="utf-8", errors="replace").read())
                if m:
                    out.append(f"{path}: uses {m.group(0)} outside src/core/fast/")
    return out


def files():
    for top in ("src", "include", "tests", "bench"):
        for root, _, names in os.walk(top):
            if "/data" in root or "/fuzz" in root:
                continue
            for n in sorted(names):
                if n.endswith((".c", ".h")):
                    yield os.path.join(root, n)


def layer_of(path, rank):
    parts = path.split("/")
    if parts[0] == "bench":
        return "bench"
    if len(parts) > 2 and parts[1] in rank:
        return parts[1]
    return None


def module_of(path):
    """A module is a layer's file stem: include/core/x.h and src/core/x.c
    are core/x (app/lesson and io/lesson are two modules)."""
    parts = path.split("/")
    layer = parts[1] if len(parts) > 2 else parts[0]
    return layer + "/" + os.path.splitext(parts[-1])[0]


def main(layers):
    rank = {name: i for i, name in enumerate(layers)}
    rank["bench"] = len(layers)
    faults = []
    edges = {}
    for path in files():
        text = open(path, encoding="utf-8", errors="replace").read()
        mine = layer_of(path, rank)
        if path.count("/") == 1 and path.split("/")[0] in ("src", "include"):
            faults.append(f"{path}: a file directly in {path.split('/')[0]}/, outside the layers")
        if mine is None and path.split("/")[0] != "tests":
            faults.append(f"{path}: not in a layer folder ({' '.join(layers)})")
            continue
        for kind, name in INC.findall(text):
            if kind == "<":
                if name in ("curses.h", "ncurses.h", "ncursesw/curses.h") and \
                        not path.startswith(("src/ui/", "tests/ui/")):
                    faults.append(f"{path}: includes <{name}> outside src/ui/")
                if name == "cblas.h" and path != "src/core/mat.c":
                    faults.append(f"{path}: includes <cblas.h> outside src/core/mat.c")
                continue
            beside = os.path.join(os.path.dirname(path), name)
            if "/" in name and not os.path.exists(beside):
                target = "include/" + name
                theirs = name.split("/")[0]
                if theirs not in rank or theirs == "bench":
                    faults.append(f'{path}: includes "{name}", which names no layer')
                    continue
                if mine is not None and rank[theirs] > rank[mine]:
                    faults.append(f'{path}: includes "{name}": layer {theirs} is above {mine}')
            else:  # beside the file, or in a subfolder of its layer ("fast/thin.h")
                target = beside
            src_mod = module_of(path)
            dst_mod = module_of(target)
            if src_mod != dst_mod and not path.startswith(("tests/", "bench/")):
                edges.setdefault(src_mod, set()).add(dst_mod)
    faults += cycles(edges)
    faults += folder_faults()
    for f in faults:
        print("layers: " + f)
    if faults:
        return 1
    print(f"layers: ok ({' < '.join(layers)})")
    return 0


def cycles(edges):
    """Modules on a circle of includes, each circle named once."""
    out, seen, state = [], set(), {}

    def visit(m, stack):
        state[m] = 1
        stack.append(m)
        for n in sorted(edges.get(m, ())):
            if state.get(n) == 1:
                circle = stack[stack.index(n):] + [n]
                key = frozenset(circle)
                if key not in seen:
                    seen.add(key)
                    out.append("a circle of includes: " + " -> ".join(circle))
            elif n not in state:
                visit(n, stack)
        stack.pop()
        state[m] = 2

    for m in sorted(edges):
        if m not in state:
            visit(m, [])
    return out


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or "core io train render app ui cli".split()))

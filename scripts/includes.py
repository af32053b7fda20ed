#!/usr/bin/env python3
"""includes.py - project includes that nothing in the file uses.

For each .c and .h file of src/, include/ and tests/, a project include
("core/model.h", or a private header beside the file) is unused when no
identifier the header declares (functions, types, macros, enum constants,
struct fields' types aside) appears in the including file, counting the
headers it includes in turn (so "core/model.h" for AttnShape, from the
attention.h it includes, is a use). A file's own header is always used.
Run by make lint: one line a fault, exit 1 when there is one.
"""
import os
import re
import sys

INC = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)
WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
DECL = [
    re.compile(r"^\s*#\s*define\s+([A-Za-z_]\w*)", re.M),
    re.compile(r"\b([A-Za-z_]\w*)\s*\(", re.M),            # functions (and macros with args)
    re.compile(r"}\s*([A-Za-z_]\w*)\s*;", re.M),            # typedef struct {...} Name;
    re.compile(r"typedef\s+[^;{}]*?\b([A-Za-z_]\w*)\s*;", re.M),
    re.compile(r"typedef\s+[^;{}]*?\(\s*\*\s*([A-Za-z_]\w*)\s*\)", re.M),  # function pointers
    re.compile(r"\b(?:struct|enum|union)\s+([A-Za-z_]\w*)", re.M),
    re.compile(r"^\s*([A-Z][A-Z0-9_]+)\s*(?:=|,|\n)", re.M),  # enum constants
]
KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "defined", "static", "inline",
            "const", "void", "int", "float", "double", "char", "bool", "long", "unsigned",
            "size_t", "struct", "enum", "union", "typedef"}


def strip(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    return re.sub(r'"(\\.|[^"\\\n])*"', '""', text)


def resolve(path, name):
    beside = os.path.join(os.path.dirname(path), name)
    if os.path.exists(beside):
        return os.path.normpath(beside)
    inc = os.path.join("include", name)
    return inc if os.path.exists(inc) else None


cache = {}


def declared(header, seen=None):
    """Names declared in header and in the project headers it includes."""
    if header in cache:
        return cache[header]
    seen = seen or set()
    seen.add(header)
    raw = open(header, encoding="utf-8", errors="replace").read()
    text = strip(raw)
    names = set()
    for rx in DECL:
        names.update(rx.findall(text))
    names -= KEYWORDS
    names.discard(os.path.basename(header).upper().replace(".", "_"))
    names = {n for n in names if not n.startswith("ATTNVIZ_")}
    for name in INC.findall(raw):
        sub = resolve(header, name)
        if sub and sub not in seen:
            names |= declared(sub, seen)
    cache[header] = names
    return names


def own_header(path, header):
    stem = os.path.splitext(os.path.basename(path))[0]
    return os.path.splitext(os.path.basename(header))[0] == stem


def main():
    faults = []
    for top in ("src", "include", "tests"):
        for root, _, files in os.walk(top):
            if "/data" in root:
                continue
            for f in sorted(files):
                if not f.endswith((".c", ".h")):
                    continue
                path = os.path.join(root, f)
                raw = open(path, encoding="utf-8", errors="replace").read()
                body = strip(INC.sub("", raw))
                used = set(WORD.findall(body))
                for name in INC.findall(raw):
                    header = resolve(path, name)
                    if not header or own_header(path, header) or name.endswith(".inc") or \
                            name == "test_common.h":  # cmocka's, whose names are not read here
                        continue
                    if not (declared(header) & used):
                        faults.append(f'{path}: includes "{name}" and uses nothing of it')
    for f in faults:
        print("includes: " + f)
    if not faults:
        print("includes: ok (every project include is used)")
    return 1 if faults else 0


if __name__ == "__main__":
    sys.exit(main())

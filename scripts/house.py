#!/usr/bin/env python3
"""The house's measures (ARCHITECTURE.md, invariant 14), on the tracked Rust
files: source files over 1,000 lines, functions over 120 lines (a flat table
says so in a comment and is listed apart), and import circles between the
modules of each crate. Exit status 1 if any is found.

    python3 scripts/house.py [--functions-over N]

An import edge A → B: file A names a path that resolves to module B (`use
crate::x::…`, `use super::…`, inline `crate::x::…`, a child's `child::…`),
the longest prefix that is a module file; `mod x;` declarations are not
edges. Test-only files (`tests.rs`, `tests/`) are left out of the graph."""
import os
import re
import subprocess
import sys
from collections import defaultdict

FILE_LIMIT = 1000
CRATES = ["core", "swf", "batsim-adapter", "daemon", "api", "plugin-ffi", "tests", "."]
FN = re.compile(r'\s*(pub(\([^)]*\))?\s+)?(async\s+)?(const\s+)?(unsafe\s+)?(extern\s+"C"\s+)?fn\s+(\w+)')


def tracked_rust_files():
    out = subprocess.run(["git", "ls-files", "*.rs"], capture_output=True, text=True, check=True).stdout
    return [path for path in out.split("\n") if path]


def blank_literals(text):
    """`text` with the insides of strings (raw ones too), character literals
    and comments blanked (newlines kept), so that only code braces count."""
    out, i, n = [], 0, len(text)
    keep = lambda chunk: "".join(ch if ch == "\n" else " " for ch in chunk)
    while i < n:
        ch = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(keep(text[i:j]))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(keep(text[i:j]))
            i = j
        elif re.match(r'r#*"', text[i:i + 8]) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            hashes = len(re.match(r'r(#*)"', text[i:]).group(1))
            j = text.find('"' + "#" * hashes, i + 2 + hashes)
            j = n if j < 0 else j + 1 + hashes
            out.append(keep(text[i:j]))
            i = j
        elif ch == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(keep(text[i:j + 1]))
            i = j + 1
        elif ch == "'":
            match = re.match(r"'(\\.[^']*|[^'\\])'", text[i:i + 12])
            if match:
                out.append(keep(match.group(0)))
                i += len(match.group(0))
            else:
                out.append(ch)
                i += 1
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def long_functions(path, limit):
    """(length, name, first line, flat) of each function over `limit` lines."""
    raw = open(path, encoding="utf-8", errors="replace").read()
    lines, code = raw.split("\n"), blank_literals(raw).split("\n")
    found = []
    for i, line in enumerate(code):
        match = FN.match(line)
        if not match:
            continue
        depth, started, j = 0, False, i
        while j < len(code):
            for ch in code[j]:
                if ch == "{":
                    depth, started = depth + 1, True
                elif ch == "}":
                    depth -= 1
            if (started and depth <= 0) or (not started and code[j].rstrip().endswith(";")):
                break
            j += 1
        length = j - i + 1
        if started and length > limit:
            above = " ".join(lines[max(0, i - 6):i]).lower()
            found.append((length, match.group(7), i + 1, "flat table" in above))
    return found


def strip_code(text):
    """Source without comments, strings and `#[cfg(test)] mod … { … }` blocks."""
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r'"(\\.|[^"\\])*"', '""', text)
    out, i = [], 0
    while True:
        match = re.search(r"#\[cfg\(test\)\]\s*(pub\s+)?mod\s+\w+\s*\{", text[i:])
        if not match:
            out.append(text[i:])
            return "".join(out)
        start = i + match.start()
        out.append(text[i:start])
        j, depth = i + match.end(), 1
        while depth and j < len(text):
            depth += {"{": 1, "}": -1}.get(text[j], 0)
            j += 1
        i = j


def use_paths(tree):
    """The paths of one `use` tree, `a::{b, c::{d}}` → [[a, b], [a, c, d]]."""
    paths = []

    def walk(prefix, item):
        item = item.strip()
        if not item:
            return
        match = re.match(r"^([\w:]*?)::\{(.*)\}$", item, re.S)
        if not match:
            paths.append(prefix + [s for s in item.split(" as ")[0].strip().split("::") if s])
            return
        head = prefix + [s for s in match.group(1).split("::") if s]
        depth, current = 0, ""
        for ch in match.group(2) + ",":
            depth += {"{": 1, "}": -1}.get(ch, 0)
            if ch == "," and depth == 0:
                walk(head, current)
                current = ""
            else:
                current += ch
    walk([], tree)
    return paths


def module_of(src, path):
    parts = os.path.relpath(path, src)[:-3].split(os.sep)
    if parts[-1] in ("mod", "lib", "main"):
        parts = parts[:-1]
    return None if parts and parts[0] == "bin" else tuple(parts)


def circles(crate):
    """Each import circle (a strongly connected set of modules) of `crate`."""
    src = crate if crate == "tests" else os.path.join(crate, "src")
    modules = {}
    for root, _, files in os.walk(src):
        if os.sep + "tests" in root[len(src):] or (crate == "tests" and root != src):
            continue
        for name in files:
            if name.endswith(".rs") and name != "tests.rs":
                module = module_of(src, os.path.join(root, name))
                if module is not None:
                    modules[module] = os.path.join(root, name)
    edges = defaultdict(set)
    for module, path in modules.items():
        text = strip_code(open(path, encoding="utf-8").read())
        paths = [p for m in re.finditer(r"\buse\s+([^;]+);", text) for p in use_paths(m.group(1))]
        paths += [m.group(1).split("::") for m in re.finditer(r"\b((?:crate|super|self)(?:::\w+)+)", text)]
        for path in filter(None, paths):
            if path[0] == "crate":
                full = path[1:]
            else:
                base, rest = list(module), path
                while rest and rest[0] in ("super", "self"):
                    base = base[:-1] if rest[0] == "super" else base
                    rest = rest[1:]
                if path[0] not in ("super", "self") and tuple(base + rest[:1]) not in modules:
                    continue
                full = base + rest
            target = next((tuple(full[:k]) for k in range(len(full), -1, -1) if tuple(full[:k]) in modules), None)
            if target is not None and target != module:
                edges[module].add(target)
    return strongly_connected(modules, edges), edges


def strongly_connected(nodes, edges):
    index, low, stack, on_stack, found, counter = {}, {}, [], set(), [], [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(component)
    for v in list(nodes):
        if v not in index:
            visit(v)
    return found


def main():
    limit = int(sys.argv[sys.argv.index("--functions-over") + 1]) if "--functions-over" in sys.argv else 120
    bad = 0
    files = tracked_rust_files()
    for path in files:
        count = sum(1 for _ in open(path, encoding="utf-8", errors="replace"))
        if count > FILE_LIMIT:
            print(f"file over {FILE_LIMIT} lines: {path} ({count})")
            bad += 1
    for path in files:
        for length, name, line, flat in long_functions(path, limit):
            if flat:
                print(f"flat table of {length} lines: {path}:{line} {name}")
            else:
                print(f"function over {limit} lines: {path}:{line} {name} ({length})")
                bad += 1
    for crate in CRATES:
        found, edges = circles(crate)
        for component in found:
            names = ["::".join(m) or "(root)" for m in sorted(component)]
            print(f"import circle in {crate}: {', '.join(names)}")
            for a in sorted(component):
                for b in sorted(edges[a] & set(component)):
                    print(f"    {'::'.join(a) or '(root)'} -> {'::'.join(b) or '(root)'}")
            bad += 1
    print(f"{len(files)} Rust files: {bad} problem(s)")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()

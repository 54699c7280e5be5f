#!/usr/bin/env python3
"""List import cycles between the top-level modules of each crate of a Cargo workspace.

A file's module is the first path component under its crate's src/ (lib.rs and main.rs are the root). An
edge a -> b is any `crate::b` (or `super::super::b`) in a file of module a, unit-test modules excluded.
A cycle means two parts of one crate each need the other: the lower one should not know the higher one.
Usage: scripts/module-cycles.py [WORKSPACE_ROOT] [--known 'CRATE: a <-> b']...
Exit 1 when a cycle exists that is not listed with --known (a debt being paid off: the list
in scripts/test.sh only shrinks), or when a listed one is gone (so that the list is kept true)."""
import glob, json, os, re, subprocess, sys

args = sys.argv[1:]
known = set()
while "--known" in args:
    i = args.index("--known")
    known.add(args[i + 1])
    del args[i:i + 2]
root = args[0] if args else "."
meta = json.loads(subprocess.run(["cargo", "metadata", "--no-deps", "--format-version", "1"], cwd=root,
                                 capture_output=True, text=True, check=True).stdout)
found = []
for p in meta["packages"]:
    src = os.path.join(os.path.dirname(p["manifest_path"]), "src")
    files = glob.glob(f"{src}/**/*.rs", recursive=True)
    def top(f):
        first = os.path.relpath(f, src).split(os.sep)[0]
        return None if first in ("lib.rs", "main.rs") else first.removesuffix(".rs")
    mods = {top(f) for f in files} - {None}
    edges, why = {}, {}
    for f in files:
        a = top(f)
        if a is None:
            continue
        text = re.sub(r"#\[cfg\(test\)\]\s*mod\s+tests\s*\{.*", "", open(f, errors="replace").read(), flags=re.S)
        for b in set(re.findall(r"\bcrate::([a-z_][a-z0-9_]*)", text)) | set(re.findall(r"\bsuper::super::([a-z_][a-z0-9_]*)", text)):
            if b in mods and b != a:
                edges.setdefault(a, set()).add(b)
                why.setdefault((a, b), os.path.relpath(f, root))
    index, low, stack, on, k = {}, {}, [], set(), [0]
    def visit(v):
        index[v] = low[v] = k[0]; k[0] += 1; stack.append(v); on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w); low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop(); on.discard(w); comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                inside = [f"{a} -> {b} ({why[(a, b)]})" for a in sorted(comp) for b in sorted(edges.get(a, ())) if b in comp]
                found.append((p["name"], sorted(comp), inside))
    sys.setrecursionlimit(10000)
    for v in sorted(mods):
        if v not in index:
            visit(v)
bad = False
names = set()
for crate, comp, inside in found:
    name = f"{crate}: {' <-> '.join(comp)}"
    names.add(name)
    if name in known:
        print(f"known cycle (to be removed): {name}")
        continue
    bad = True
    print(name)
    for line in inside:
        print(f"    {line}")
for gone in sorted(known - names):
    bad = True
    print(f"listed as known but gone (take it off the list): {gone}")
if not found:
    print("no module cycles")
sys.exit(1 if bad else 0)

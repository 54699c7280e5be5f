#!/usr/bin/env python3
"""Ground-truth C call graph of a source tree, from GCC's -fcallgraph-info.

Usage:
    gcc_callgraph.py ROOT [--include DIR ...] [--jobs N] [--cflags "..."]
                          [--gcc GCC] [--timeout SECONDS]

Every ``*.c`` file under ROOT (hidden directories skipped) is compiled, one
translation unit (TU) at a time, with

    cd ROOT && gcc -fcallgraph-info -O0 -fno-builtin -w -I... CFLAGS -c REL.c -o TMP/N.o

into a temporary directory, N files in parallel. A file that does not compile
(or times out) is recorded under "failed" and skipped. Relative ``--include``
directories are taken relative to ROOT when they exist there (gcc runs in ROOT,
so header paths in the output stay ROOT-relative), otherwise relative to the
current directory. The JSON written to stdout is

    {"compiled": [path, ...],
     "failed":   [{"path": p, "error": first "error" line of gcc's stderr
                                       (first line if none)}, ...],
     "functions": [{"path", "name", "line", "static"}, ...],
     "edges":     [{"caller_path", "caller", "caller_line", "callee",
                    "callee_path", "callee_line", "resolution"}, ...]}

All paths are ROOT-relative and '/'-separated. A one-line summary goes to stderr.

The .ci format (GCC 12, VCG syntax), one file per TU, written next to the
object file (TMP/N.ci); it is written, empty, even when compilation fails:

    graph: { title: "src/a.c"
    node: { title: "src/a.c:helper" label: "helper\\nsrc/a.c:4:12" }
    node: { title: "ext" label: "ext\\nsrc/a.c:7:1" }
    edge: { sourcename: "ext" targetname: "src/a.c:helper" label: "src/a.c:9:13" }
    node: { title: "printf" label: "printf\\n/usr/include/stdio.h:356:12" shape : ellipse }
    edge: { sourcename: "ext" targetname: "printf" label: "src/a.c:12:5" }
    node: { title: "__indirect_call" label: "Indirect Call Placeholder" shape : ellipse }
    node: { title: "__divti3" label: "__divti3\\n<built-in>" shape : ellipse }
    }

* graph title: the main input file name exactly as passed to gcc.
* node: one per function. Without ``shape : ellipse`` the function is DEFINED
  (emitted) in this TU; with it, it is only declared (an external callee).
  ``title`` is the node id: the assembler name, prefixed with "<TU path>:" when
  the symbol is not public (static) or weak; nested functions get a ".N"
  suffix ("src/a.c:inner.0"). ``label`` is "NAME\\nFILE:LINE:COL" (a literal
  backslash-n), the location of the declarator's NAME token (not of the return
  type) of the definition, or of the visible declaration for external nodes;
  FILE is spelled as gcc found it ("src/net/../../include/h.h"), so it is
  normalised here. A ``static inline`` function from a header that the TU
  calls is a defined node of that TU located in the header; unused static
  inline functions are not emitted and do not appear at all (unused plain
  static functions are emitted at -O0 and do appear).
* edge: one per CALL SITE (so a pair appears as often as it is called;
  ``label`` is the call site, the macro expansion point for calls written in
  a macro). Calls through pointers go to the ``__indirect_call`` placeholder;
  compiler-generated libcalls (``__divti3``) have no label. Calls inside
  always_inline functions (inlined even at -O0) show up in the caller.
  Edges can name a node that is defined further down.

Functions are every defined node located inside ROOT (static inline functions
of system headers are dropped), deduplicated on (path, name, line, static);
"path" is the file holding the definition, i.e. the header for header
functions. "static" is true for internal linkage (prefixed title that is not
a weak symbol according to ``nm``, when nm is available).

Edges are gcc's direct calls whose caller is such a function, deduplicated to
ONE EDGE PER DISTINCT (caller, callee) PAIR, and across TUs (header functions).
The callee is resolved with C linkage rules:

* "static":    the TU defines a static function of that name (the node says so);
* "extern":    the TU itself defines it non-static (that definition), or else
               exactly one compiled file defines it non-static (weak
               definitions lose to a single strong one);
* "ambiguous": several non-static definitions at different places (e.g. many
               programs with their own main); callee_path/line are null;
* "undefined": no compiled file defines it (libc, failed files, system header
               inline functions); callee_path/line are null.
Indirect calls are not edges.

Example (redis, headers generated outside the tree; see the fixture README
for tests/fixtures/cproject):
    gcc_callgraph.py /tmp/redis-src --jobs 2 --include deps/hiredis \
        --include deps/linenoise --include deps/lua/src \
        --include deps/hdr_histogram --include deps/fpconv \
        --include deps/fast_float --include /tmp/redis-gen --include src \
        --cflags '-DHDR_MALLOC_INCLUDE=\"hdr_redis_malloc.h\"'
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

GCC_FLAGS = ["-fcallgraph-info", "-O0", "-fno-builtin", "-w"]
INDIRECT = "__indirect_call"

_FIELD = re.compile(r'(\w+)\s*:\s*(?:"((?:[^"\\]|\\.)*)"|(\w+))')


def find_sources(root: str) -> list[str]:
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for f in filenames:
            if f.endswith(".c"):
                rel = os.path.relpath(os.path.join(dirpath, f), root)
                out.append(rel.replace(os.sep, "/"))
    return sorted(out)


def include_flags(root: str, dirs: list[str]) -> list[str]:
    flags = []
    for d in dirs:
        if os.path.isabs(d):
            flags.append("-I" + d)
        elif os.path.isdir(os.path.join(root, d)):
            flags.append("-I" + d)
        elif os.path.isdir(d):
            flags.append("-I" + os.path.abspath(d))
        else:
            print(f"gcc_callgraph: warning: include dir {d!r} not found",
                  file=sys.stderr)
            flags.append("-I" + d)
    return flags


def first_error(stderr: str) -> str:
    lines = [l.strip() for l in stderr.splitlines() if l.strip()]
    for l in lines:
        if "error:" in l or "Error" in l:
            return l
    return lines[0] if lines else "gcc failed without a message"


def weak_symbols(nm: str | None, obj: str) -> set[str]:
    if nm is None:
        return set()
    try:
        r = subprocess.run([nm, "-P", "--defined-only", obj],
                           capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return set()
    weak = set()
    for line in r.stdout.splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[1] in ("W", "V"):
            weak.add(parts[0])
    return weak


def compile_one(gcc, nm, root, rel, idx, tmp, flags, timeout):
    obj = os.path.join(tmp, f"{idx}.o")
    ci = os.path.join(tmp, f"{idx}.ci")
    cmd = [gcc, *GCC_FLAGS, *flags, "-c", rel, "-o", obj]
    try:
        r = subprocess.run(cmd, cwd=root, capture_output=True, text=True,
                           errors="replace", timeout=timeout)
    except subprocess.TimeoutExpired:
        return rel, None, f"timeout after {timeout} s", set()
    if r.returncode != 0:
        return rel, None, first_error(r.stderr), set()
    try:
        with open(ci, encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError:
        return rel, None, "gcc wrote no .ci file", set()
    weak = weak_symbols(nm, obj)
    for p in (obj, ci):
        try:
            os.remove(p)
        except OSError:
            pass
    return rel, text, None, weak


def parse_ci(text: str):
    """Return (graph title, {node title: fields}, [(source, target)])."""
    title, nodes, edges = None, {}, []
    for line in text.splitlines():
        line = line.strip()
        kind, _, rest = line.partition(":")
        if kind not in ("graph", "node", "edge"):
            continue
        fields = {}
        for m in _FIELD.finditer(rest):
            fields[m.group(1)] = m.group(2) if m.group(2) is not None else m.group(3)
        if kind == "graph":
            title = fields.get("title")
        elif kind == "node":
            nodes[fields.get("title", "")] = fields
        else:
            edges.append((fields.get("sourcename", ""), fields.get("targetname", "")))
    return title, nodes, edges


class Resolver:
    def __init__(self, root: str):
        self.root = os.path.realpath(root)
        self._cache: dict[str, str | None] = {}

    def path(self, p: str) -> str | None:
        """ROOT-relative '/' path of a location file, None if outside ROOT."""
        if p in self._cache:
            return self._cache[p]
        out = None
        if p and not p.startswith("<"):
            a = p if os.path.isabs(p) else os.path.join(self.root, p)
            a = os.path.normpath(a)
            rel = os.path.relpath(a, self.root)
            if rel == ".." or rel.startswith(".." + os.sep):
                # maybe ROOT is reached through a symlink
                rel = os.path.relpath(os.path.realpath(a), self.root)
            if not (rel == ".." or rel.startswith(".." + os.sep)):
                out = rel.replace(os.sep, "/")
        self._cache[p] = out
        return out


def split_label(label: str):
    """'name\\nfile:line:col' -> (name, file, line); file/line None if unknown."""
    name, sep, loc = label.partition("\\n")
    if not sep:
        return label, None, None
    parts = loc.rsplit(":", 2)
    if len(parts) == 3 and parts[1].isdigit():
        return name, parts[0], int(parts[1])
    return name, None, None


def build(root: str, tus: dict[str, tuple[str, set[str]]]):
    res = Resolver(root)
    functions = {}          # (path, name, line, static) -> weak
    tu_nodes = {}           # tu -> {title: node info}
    for tu, (text, weak) in tus.items():
        gtitle, nodes, edges = parse_ci(text)
        prefix = (gtitle or tu) + ":"
        info = {}
        for title, f in nodes.items():
            name, file, line = split_label(f.get("label", title))
            defined = f.get("shape") != "ellipse"
            local = title.startswith(prefix)
            is_weak = local and title[len(prefix):] in weak
            path = res.path(file) if file else None
            info[title] = {"name": name, "path": path, "line": line,
                           "defined": defined and title != INDIRECT,
                           "static": local and not is_weak, "weak": is_weak}
            if defined and path is not None and line is not None:
                key = (path, name, line, local and not is_weak)
                functions[key] = functions.get(key, True) and is_weak
        tu_nodes[tu] = (info, edges)

    # non-static definitions by name: {(path, line): weak}
    public: dict[str, dict[tuple[str, int], bool]] = {}
    for (path, name, line, static), weak in functions.items():
        if not static:
            d = public.setdefault(name, {})
            d[(path, line)] = d.get((path, line), True) and weak

    edges = set()
    indirect = 0
    for tu, (info, raw_edges) in tu_nodes.items():
        for src, dst in raw_edges:
            if dst == INDIRECT:
                indirect += 1
                continue
            s = info.get(src)
            if s is None or not s["defined"] or s["path"] is None or s["line"] is None:
                continue
            d = info.get(dst)
            if d is None:
                callee = dst.rsplit(":", 1)[-1]
                d = {"name": callee, "defined": False, "static": False,
                     "path": None, "line": None}
            callee = d["name"]
            cpath = cline = None
            if d["defined"] and d["static"]:
                if d["path"] is not None and d["line"] is not None:
                    resolution, cpath, cline = "static", d["path"], d["line"]
                else:
                    resolution = "undefined"   # e.g. static inline of a system header
            elif d["defined"] and d["path"] is not None and d["line"] is not None \
                    and not d["weak"]:
                resolution, cpath, cline = "extern", d["path"], d["line"]
            else:
                cands = public.get(callee, {})
                strong = [k for k, w in cands.items() if not w]
                if len(cands) == 1:
                    (cpath, cline), = cands.keys()
                    resolution = "extern"
                elif len(strong) == 1:
                    (cpath, cline) = strong[0]
                    resolution = "extern"
                elif cands:
                    resolution = "ambiguous"
                else:
                    resolution = "undefined"
            edges.add((s["path"], s["name"], s["line"], callee, cpath, cline,
                       resolution))

    funcs_out = [{"path": p, "name": n, "line": l, "static": st}
                 for (p, n, l, st) in sorted(functions)]
    edges_out = [{"caller_path": a, "caller": b, "caller_line": c, "callee": d,
                  "callee_path": e, "callee_line": f, "resolution": g}
                 for (a, b, c, d, e, f, g) in sorted(
                     edges, key=lambda t: (t[0], t[2], t[1], t[3], t[4] or "",
                                           t[5] or 0, t[6]))]
    return funcs_out, edges_out, indirect


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("root")
    ap.add_argument("--include", "-I", action="append", default=[],
                    metavar="DIR", help="include directory (repeatable)")
    ap.add_argument("--jobs", "-j", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--cflags", default="", help="extra gcc flags, shell-quoted")
    ap.add_argument("--gcc", default="gcc")
    ap.add_argument("--timeout", type=float, default=300.0,
                    help="per-file compile timeout in seconds")
    fixed, it = [], iter(sys.argv[1:] if argv is None else argv)
    for a in it:   # allow "--cflags -DX" although the value starts with '-'
        fixed.append("--cflags=" + next(it, "") if a == "--cflags" else a)
    args = ap.parse_args(fixed)

    root = os.path.abspath(args.root)
    if not os.path.isdir(root):
        ap.error(f"{args.root}: not a directory")
    if shutil.which(args.gcc) is None:
        ap.error(f"{args.gcc}: not found")
    t0 = time.monotonic()
    flags = include_flags(root, args.include) + shlex.split(args.cflags)
    sources = find_sources(root)
    nm = shutil.which("nm")

    compiled, failed = {}, []
    with tempfile.TemporaryDirectory(prefix="gcc_callgraph.") as tmp:
        with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
            futs = [pool.submit(compile_one, args.gcc, nm, root, rel, i, tmp,
                                flags, args.timeout)
                    for i, rel in enumerate(sources)]
            for fut in futs:
                rel, text, err, weak = fut.result()
                if err is None:
                    compiled[rel] = (text, weak)
                else:
                    failed.append({"path": rel, "error": err})

    functions, edges, indirect = build(root, compiled)
    json.dump({"compiled": sorted(compiled), "failed": failed,
               "functions": functions, "edges": edges}, sys.stdout, indent=1)
    sys.stdout.write("\n")
    print(f"gcc_callgraph: {len(compiled)} compiled, {len(failed)} failed, "
          f"{len(functions)} functions, {len(edges)} edges, "
          f"{indirect} indirect call sites, {time.monotonic() - t0:.1f} s",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

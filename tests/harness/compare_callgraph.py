#!/usr/bin/env python3
"""Compares codemine's call graph with GCC's (the true direct-call graph, from
`gcc -fcallgraph-info`, see gcc_callgraph.py).

Usage: compare_callgraph.py OUT GCC_JSON [--show N]
  OUT       a codemine output folder (callgraph/nodes/nodes-*.parquet, callgraph/edges/edges-*.parquet)
  GCC_JSON  the JSON that gcc_callgraph.py printed for the same source tree

Both sides are reduced to distinct (caller path, caller name, callee path, callee name) pairs
between functions that GCC saw defined (so callers and callees in files that did not compile,
or in configurations the preprocessor left out, are outside the comparison on both sides).
GCC's edges whose callee is undefined (libc) are left out, and so are calls whose callee GCC
finds ambiguous (several non-static definitions, e.g. `_serverAssert` in several redis
programs), on both sides; codemine's other edges to a function of the repository are in. Prints JSON: counts, precision, recall, and up to N false positives and negatives.
"""
import glob, json, os, sys

import pyarrow.parquet as pq

out, gcc_json = sys.argv[1], sys.argv[2]
show = int(sys.argv[sys.argv.index("--show") + 1]) if "--show" in sys.argv else 0
g = json.load(open(gcc_json))
defined = {(f["path"], f["name"]) for f in g["functions"]}
truth = {
    (e["caller_path"], e["caller"], e["callee_path"], e["callee"])
    for e in g["edges"]
    if e["resolution"] in ("static", "extern")
    and (e["caller_path"], e["caller"]) in defined
}

def rows(prefix):
    files = sorted(glob.glob(os.path.join(out, "callgraph", prefix, prefix + "-*.parquet")))
    return [r for f in files for r in pq.read_table(f).to_pylist()]

# Calls GCC could not pin to one definition (the name is defined non-static in several
# programs of the repository) are left out on both sides.
ambiguous = {
    (e["caller_path"], e["caller"], e["callee"]) for e in g["edges"] if e["resolution"] == "ambiguous"
}
nodes = {n["id"]: n for n in rows("nodes")}
ours = set()
for e in rows("edges"):
    if e["callee_id"] is None:
        continue
    a, b = nodes[e["caller_id"]], nodes[e["callee_id"]]
    if (a["path"], a["name"], b["name"]) in ambiguous:
        continue
    if (a["path"], a["name"]) in defined and (b["path"], b["name"]) in defined:
        ours.add((a["path"], a["name"], b["path"], b["name"]))
tp = len(ours & truth)
print(json.dumps({
    "gcc_compiled_files": len(g["compiled"]),
    "gcc_failed_files": len(g["failed"]),
    "gcc_functions": len(defined),
    "gcc_edges": len(truth),
    "codemine_edges": len(ours),
    "true_positives": tp,
    "precision": tp / len(ours) if ours else 0.0,
    "recall": tp / len(truth) if truth else 0.0,
    "false_positives": sorted(ours - truth)[:show],
    "false_negatives": sorted(truth - ours)[:show],
}, indent=1))

# Independent reader for codemine's call graph (pyarrow): joins callgraph/edges/ to
# callgraph/nodes/ and prints JSON {"nodes": [...], "edges": [...]}, where each edge
# names its caller and callee as "path:qualified_name" (callee null when outside the repo).
# "nodes" are the functions (kinds function, method, constructor); "code_nodes" the nodes of
# Python module code and lambdas (kinds module, lambda), which edges name as well.
import glob, json, os, sys
import pyarrow.parquet as pq

out = sys.argv[1]
def rows(prefix):
    files = sorted(glob.glob(os.path.join(out, "callgraph", prefix, prefix + "-*.parquet")))
    return [r for f in files for r in pq.read_table(f).to_pylist()]

nodes = rows("nodes")
for n in nodes:
    if n["last_commit"] is not None:
        n["last_commit"] = n["last_commit"].isoformat()
by_id = {n["id"]: n for n in nodes}
key = lambda n: f'{n["path"]}:{n["qualified_name"]}'
edges = []
for e in rows("edges"):
    callee = e["callee_id"]
    edges.append({
        "caller": key(by_id[e["caller_id"]]),
        "callee": key(by_id[callee]) if callee is not None else None,
        "name": e["callee_name"],
        "category": e["category"],
        "line": e["line"],
        "via_macro": e["via_macro"],
        "via": e.get("via"),
        "candidates": e["candidates"],
    })
code = ("module", "lambda")
print(json.dumps({"nodes": [n for n in nodes if n["kind"] not in code],
                  "code_nodes": [n for n in nodes if n["kind"] in code], "edges": edges}))

#!/usr/bin/env python3
"""Predictions for `codemine eval --execute` made of the gold functions (BENCHMARKS.md,
"A C library: every task of cJSON validated"): every call-graph node of output OUT with
covering tests whose path starts with one of the PREFIXes, with its own lines at the mined
commit (read from GITDIR with git) as the one sample.

usage: python examples/passk_gold_predictions.py OUT GITDIR PREFIX... > predictions.jsonl
"""
import json, subprocess, sys
import pyarrow.parquet as pq, pyarrow.dataset as ds
out, git = sys.argv[1], sys.argv[2]
prefixes = tuple(sys.argv[3:])
repos = pq.read_table(f"{out}/repositories").to_pylist()
sha = repos[0]["sha"]
t = ds.dataset(f"{out}/callgraph/nodes", format="parquet").to_table(
    columns=["id", "path", "start_line", "end_line", "covering_tests", "kind"]).to_pylist()
files = {}
n = 0
for r in sorted(t, key=lambda r: r["id"]):
    # A module's top-level code or a lambda is no task (codemine eval refuses them).
    if not r["covering_tests"] or not r["path"].startswith(prefixes) or r["kind"] in ("module", "lambda"):
        continue
    if r["path"] not in files:
        files[r["path"]] = subprocess.run(["git", "--git-dir", git, "show", f"{sha}:{r['path']}"],
                                          capture_output=True, check=True).stdout.decode().split("\n")
    lines = files[r["path"]][r["start_line"] - 1:r["end_line"]]
    print(json.dumps({"id": f"{r['id']:016X}", "prediction": "\n".join(lines)}))
    n += 1
print(n, "tasks", file=sys.stderr)

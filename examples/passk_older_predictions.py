#!/usr/bin/env python3
"""A simple pass@k baseline for `codemine eval --execute` (issue 32): each task's function
as it was at an older commit of the repository, where it differs from the mined one.

OUT is an output of `mine --run-tests`, OLD an output of `mine` of the same repository at
the older commit (`--no-history` is enough); functions are matched by qualified name and
path (the same, or the same without a leading `src/`). Every task under one of the PREFIXes gets one sample: the older function where it
exists and its text differs, else the mined function itself (so that `--validate` checks
every task in the same run); the ids of the tasks whose sample is an older text go to
IDS_FILE, one per line, to score the baseline on them alone.

usage: python examples/passk_older_predictions.py OUT OLD GITDIR IDS_FILE PREFIX... > predictions.jsonl
"""
import json, subprocess, sys
import pyarrow.parquet as pq, pyarrow.dataset as ds

out, old, git, ids_file = sys.argv[1:5]
prefixes = tuple(sys.argv[5:])


def nodes(folder):
    sha = pq.read_table(f"{folder}/repositories").to_pylist()[0]["sha"]
    rows = ds.dataset(f"{folder}/callgraph/nodes", format="parquet").to_table(
        columns=["id", "path", "qualified_name", "start_line", "end_line", "covering_tests", "kind"]
    ).to_pylist()
    return sha, rows


files = {}


def text(sha, r):
    key = (sha, r["path"])
    if key not in files:
        files[key] = subprocess.run(["git", "--git-dir", git, "show", f"{sha}:{r['path']}"],
                                    capture_output=True, check=True).stdout.decode().split("\n")
    return "\n".join(files[key][r["start_line"] - 1:r["end_line"]])


new_sha, new_rows = nodes(out)
old_sha, old_rows = nodes(old)
by_name = {}
for r in old_rows:
    by_name.setdefault((r["path"], r["qualified_name"]), []).append(r)
differing = []
n = 0
for r in sorted(new_rows, key=lambda r: r["id"]):
    # A module's top-level code or a lambda is no task (codemine eval refuses them).
    if not r["covering_tests"] or not r["path"].startswith(prefixes) or r["kind"] in ("module", "lambda"):
        continue
    gold = text(new_sha, r)
    sample = gold
    # The same path, or the same path before a move into src/ (requests 2.32 moved there).
    olds = by_name.get((r["path"], r["qualified_name"])) or by_name.get(
        (r["path"].removeprefix("src/"), r["qualified_name"]), [])
    # A name defined twice in a file (rare) has no unambiguous older version.
    if len(olds) == 1:
        before = text(old_sha, olds[0])
        if before != gold:
            sample = before
            differing.append(f"{r['id']:016X}")
    print(json.dumps({"id": f"{r['id']:016X}", "prediction": sample}))
    n += 1
open(ids_file, "w").write("".join(i + "\n" for i in differing))
print(n, "tasks,", len(differing), "with an older text that differs", file=sys.stderr)

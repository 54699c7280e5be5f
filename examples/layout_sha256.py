"""Issue 39's byte-identity check: sha256 of every output file before and after issue 39,
with the old paths mapped to the new (callgraph/nodes-* -> callgraph/nodes/nodes-*, ...).
Prints per output folder the files compared, identical, differing, and files only on one
side.

Usage: python3 examples/layout_sha256.py BEFORE AFTER   (each a folder of output folders
mined from the same inputs, by the old and the new binary; BENCHMARKS.md has the runs)."""
import hashlib, os, sys
before, after = sys.argv[1], sys.argv[2]
GROUPS = {"callgraph": ("nodes", "edges"), "dedup": ("bands", "clusters"),
          "completion": ("token", "line", "repo", "snapshot")}
def files(root):
    out = {}
    for d, _, fs in os.walk(root):
        for f in fs:
            p = os.path.join(d, f)
            out[os.path.relpath(p, root)] = hashlib.sha256(open(p, "rb").read()).hexdigest()
    return out
def mapped(rel):
    parts = rel.split("/")
    if len(parts) == 2 and parts[0] in GROUPS and parts[1].endswith(".parquet"):
        prefix = parts[1].split("-")[0]
        if prefix in GROUPS[parts[0]]:
            return f"{parts[0]}/{prefix}/{parts[1]}"
    return rel
total = {"same": 0, "differ": 0}
for run in sorted(os.listdir(before)):
    b, a = files(os.path.join(before, run)), files(os.path.join(after, run))
    bm = {mapped(k): v for k, v in b.items()}
    same = [k for k in bm if a.get(k) == bm[k]]
    differ = sorted(k for k in bm if k in a and a[k] != bm[k])
    only_b = sorted(set(bm) - set(a)); only_a = sorted(set(a) - set(bm))
    parquet = sum(k.endswith(".parquet") for k in same)
    moved = sum(mapped(k) != k for k in b)
    total["same"] += len(same); total["differ"] += len(differ)
    print(f"{run}: {len(bm)} files ({moved} moved), {len(same)} identical ({parquet} Parquet), differ: {differ}, only before: {only_b}, only after: {only_a}")
print(total)

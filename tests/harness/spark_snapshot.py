"""Reads an output folder with pyarrow for the Spark test: every row of the final CSN and
YABLoCo shards and call-graph nodes (as canonical JSON strings, sorted, so shard layout and
row order do not matter), the clusters table, and the kept function ids.

Usage: spark_snapshot.py OUT
"""
import datetime
import glob
import json
import os
import sys

import pyarrow.parquet as pq


def plain(v):
    if isinstance(v, dict):
        return {k: plain(x) for k, x in v.items()}
    if isinstance(v, list):
        return [plain(x) for x in v]
    if isinstance(v, bytes):
        return v.hex()
    if isinstance(v, (datetime.datetime, datetime.date)):
        return v.isoformat()
    return v


def rows(out, pattern):
    found = []
    for f in sorted(glob.glob(os.path.join(out, pattern), recursive=True)):
        found.extend(plain(r) for r in pq.read_table(f).to_pylist())
    return found


def canonical(rs):
    return sorted(json.dumps(r, sort_keys=True) for r in rs)


def main():
    out = sys.argv[1]
    csn = rows(out, "csn/**/*.parquet")
    yab = rows(out, "yabloco/**/*.parquet")
    nodes = rows(out, "callgraph/nodes/nodes-*.parquet")
    clusters = rows(out, "dedup/clusters/clusters-*.parquet")
    print(json.dumps({
        "csn": canonical(csn),
        "yabloco": canonical(yab),
        "nodes": canonical(nodes),
        "clusters": sorted(
            [str(r["id"]), str(r["cluster_id"]),
             None if r["duplicate_of"] is None else str(r["duplicate_of"]),
             r["kind"], r["partition"]]
            for r in clusters
        ),
        "clusters_files": sorted(os.path.basename(f)
                                 for f in glob.glob(os.path.join(out, "dedup", "clusters", "clusters-*"))),
        "clusters_schema": [[f.name, str(f.type), f.nullable]
                            for f in pq.read_schema(glob.glob(os.path.join(out, "dedup", "clusters", "clusters-*"))[0])]
        if glob.glob(os.path.join(out, "dedup", "clusters", "clusters-*")) else [],
        "kept_yabloco_ids": sorted(str(r["meta"]["id"]) for r in yab),
        "kept_csn_keys": sorted(f'{r["repo"]}|{r["path"]}|{r["func_name"]}|{r["url"]}' for r in csn),
        "node_repository": {str(r["id"]): r["repository"] for r in nodes},
        "staging_left": os.path.exists(os.path.join(out, "staging")),
    }))


if __name__ == "__main__":
    main()

"""Agreement of codemine's YABLoCo call-graph fields with a published YABLoCo table.

Usage: python examples/bench_yabloco_graph.py PUBLISHED.csv PUBLISHED.json OUT_DIR [--examples N]

PUBLISHED.csv is one of yabloco-codegen/yabloco-benchmark's
`data_extraction/tables/*_wTestCovHits.csv` (fname, file, pos, calls_num, dep_num, and the
five category counts); PUBLISHED.json the table's `*.json` beside it (per function id, the
callees clang's index found: name, path, start and end line). OUT_DIR is a `codemine mine`
folder of the same repository and commit. Rows join on (path inside the repository, start
line, function name). Prints the share of joined rows whose function category (YABLoCo's
`edge_level`: the first non-zero of project > same_package > same_file > stdlib, else
none) agrees, whose calls_num and dep_num agree, and each category count; with
--examples, the first disagreements with their callees on both sides.
"""

import argparse
import json
from collections import Counter

import pandas as pd
import pyarrow.dataset as ds

EDGES = ["stdlib", "same_file", "same_package", "project"]
COUNTS = ["same_file", "same_package", "project", "stdlib", "external_binaries"]


def edge_level(f):
    for e in EDGES[::-1]:
        if f[e] > 0:
            return e
    return "none"


def key(file, pos, fname):
    return (file.split("/", 1)[1] if "/" in file else file, int(pos), fname)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv")
    ap.add_argument("json")
    ap.add_argument("out")
    ap.add_argument("--examples", type=int, default=0)
    a = ap.parse_args()
    published = pd.read_csv(a.csv)
    callees = json.load(open(a.json))
    want = {}
    for r in published.to_dict("records"):
        want[key(r["file"], r["pos"], r["fname"])] = r
    table = ds.dataset(f"{a.out}/yabloco", format="parquet").to_table(columns=["meta"])
    joined = 0
    agree = Counter()
    confusion = Counter()
    examples = []
    for meta in table.column("meta").to_pylist():
        k = key(meta["file"], meta["pos"], meta["fname"])
        if k not in want:
            continue
        w = want[k]
        joined += 1
        mine, theirs = edge_level(meta), edge_level(w)
        agree["category"] += mine == theirs
        confusion[(theirs, mine)] += mine != theirs
        for f in ["calls_num", "dep_num"] + COUNTS:
            agree[f] += int(meta[f]) == int(w[f])
        if mine != theirs and len(examples) < a.examples:
            examples.append((k, theirs, mine, {f: (int(w[f]), int(meta[f])) for f in COUNTS + ["dep_num"]},
                             [(c["name"], c["path"], c["start"].get("line")) for c in callees.get(w["Unnamed: 0"], [])]))
    report = {
        "published_rows": len(want),
        "joined": joined,
        **{f"{f}_agreement": round(agree[f] / joined, 4) for f in ["category", "calls_num", "dep_num"] + COUNTS},
        "category_confusion_published_to_codemine": {f"{t}->{m}": n for (t, m), n in confusion.most_common(12) if n},
    }
    print(json.dumps(report, indent=1))
    for e in examples:
        print(e)


if __name__ == "__main__":
    main()

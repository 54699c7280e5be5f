"""Independent numbers behind codemine's figures, from stats.json and pyarrow.

Usage: report_check.py OUT. Prints JSON: figure name -> {labels, series: {name: values}}, for
the figures whose numbers this script can compute without codemine: the per-language and
funnel counts from stats.json, the code/docstring token lengths of the CSN rows and the
last-commit years of the functions among the call-graph nodes from the Parquet files, binned by powers of two
(0, 1, 2-3, 4-7, ...) and by UTC year, empty bins between the smallest and largest kept.
"""
import collections
import datetime
import glob
import json
import os
import sys

import pyarrow.parquet as pq

out = sys.argv[1]
stats = json.load(open(os.path.join(out, "stats.json")))


def pow2_label(k):
    if k == 0:
        return "0"
    if k == 1:
        return "1"
    return f"{1 << (k - 1)}-{(1 << k) - 1}"


def binned(values):
    counts = collections.Counter(v.bit_length() for v in values)
    if not counts:
        return None
    lo, hi = min(counts), max(counts)
    return {"labels": [pow2_label(k) for k in range(lo, hi + 1)],
            "series": {"count": [counts.get(k, 0) for k in range(lo, hi + 1)]}}


res = {}
langs = stats["languages"]
res["languages"] = {"labels": sorted(langs),
                    "series": {"functions": [langs[l]["functions"] for l in sorted(langs)],
                               "csn rows": [langs[l]["csn_rows"] for l in sorted(langs)]}}
cats = stats["stages"]["resolve"]["by_category"]
res["categories"] = {"labels": sorted(cats), "series": {"call sites": [cats[c] for c in sorted(cats)]}}

code, doc = [], []
for f in sorted(glob.glob(os.path.join(out, "csn", "*.parquet"))):
    t = pq.read_table(f, columns=["code_tokens", "docstring_tokens"]).to_pydict()
    code += [len(x) for x in t["code_tokens"]]
    doc += [len(x) for x in t["docstring_tokens"]]
res["code_length"] = binned(code)
res["docstring_length"] = binned(doc)

# Functions only: Python's module code and lambdas are call-graph nodes, not functions
# (docs/output.md: kind module, lambda).
years = collections.Counter()
for f in sorted(glob.glob(os.path.join(out, "callgraph", "nodes-*.parquet"))):
    t = pq.read_table(f, columns=["last_commit", "kind"]).to_pydict()
    for ts, kind in zip(t["last_commit"], t["kind"]):
        if kind in ("module", "lambda"):
            continue
        years[ts.astimezone(datetime.timezone.utc).year if ts is not None else None] += 1
known = [y for y in years if y is not None]
labels = [str(y) for y in range(min(known), max(known) + 1)] if known else []
values = [years.get(int(y), 0) for y in labels]
if years.get(None):
    labels.append("unknown")
    values.append(years[None])
res["dates"] = {"labels": labels, "series": {"functions": values}}

sizes = stats["stages"]["dedup"]["cluster_sizes"]
res["clusters"] = binned([int(s) for s, n in sizes.items() for _ in range(n)])
print(json.dumps(res))

"""Independent reference for the dedup tests: reads two output folders with pyarrow (one
mined with --no-dedup, one with dedup) and recomputes, by brute force over exact shingle
sets built here from the CSN code_tokens, what docs/design.md and the dedup issue define:
content tokens (identifiers, keywords, literals: tokens that are not ASCII punctuation only,
string literals kept) with literals in one spelling (issue 21.3: Python string prefixes and
quotes; number case and digit separators), 5-token shingles, exact Jaccard.

Usage: dedup_check.py BASELINE_OUT DEDUP_OUT SHINGLE THRESHOLD
Prints JSON: functions, pairs (J >= THRESHOLD or identical), nodes, csn keys, clusters, band
row counts per id, stats.
"""
import glob
import json
import re
import string
import sys

import pyarrow.parquet as pq

PUNCT = set(string.punctuation) - {"_"}


STRING = re.compile(r"""(?s)([rRbBuUfF]{0,2})('\'\'|\"\"\"|'|")(.*)\2""")
SEPARATOR = {"python": "_", "java": "_", "c": "'", "cpp": "'"}


def spelling(token, language):
    """One spelling per literal value, as the issue states the rule."""
    if re.match(r"\.?[0-9]", token):
        return token.replace(SEPARATOR[language], "").lower()
    m = STRING.fullmatch(token) if language == "python" else None
    if not m:
        return token
    prefix = "".join(sorted(c for c in m.group(1).lower() if c != "u"))
    body = re.sub(r"""\\(.)""", lambda e: e.group(1) if e.group(1) in "'\"" else e.group(0), m.group(3))
    return f'{prefix}"{body}"'


def content(tokens, language):
    return [
        spelling(t, language)
        for t in tokens
        if t[:1] in ('"', "'", "`") or not all(c in PUNCT for c in t)
    ]


def shingles(tokens, k):
    return {tuple(tokens[i : i + k]) for i in range(len(tokens) - k + 1)}


def rows(folder, pattern):
    out = []
    for f in sorted(glob.glob(f"{folder}/{pattern}")):
        out.extend(pq.read_table(f).to_pylist())
    return out


def key(repo, path, name):
    return f"{repo}|{path}|{name}"


def main():
    base, dd, k, t = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
    funcs = {}
    for r in rows(base, "csn/*.parquet"):
        funcs[key(r["repo"], r["path"], r["func_name"])] = content(r["code_tokens"], r["language"])
    names = sorted(funcs)
    sets = {n: shingles(funcs[n], k) for n in names}
    pairs = []
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            if funcs[a] == funcs[b]:
                pairs.append([a, b, 1.0, True])
                continue
            sa, sb = sets[a], sets[b]
            if not sa or not sb:
                continue
            j = len(sa & sb) / len(sa | sb)
            if j >= t:
                pairs.append([a, b, j, False])
    nodes = {}
    for r in rows(dd, "callgraph/nodes/nodes-*.parquet"):
        if r["kind"] in ("module", "lambda"):
            continue  # module code and lambdas: nodes, not functions
        lc = r["last_commit"]
        nodes[key(r["repository"], r["path"], r["qualified_name"])] = {
            "id": r["id"],
            "cluster_id": r["cluster_id"],
            "duplicate_of": r["duplicate_of"],
            "has_docstring": r["docstring"] is not None,
            "last_commit": None if lc is None else int(lc.timestamp()),
        }
    csn = {
        key(r["repo"], r["path"], r["func_name"]): r["partition"]
        for r in rows(dd, "csn/*.parquet")
    }
    base_partition = {
        key(r["repo"], r["path"], r["func_name"]): r["partition"]
        for r in rows(base, "csn/*.parquet")
    }
    bands = {}
    for r in rows(dd, "dedup/bands/bands-*.parquet"):
        bands.setdefault(str(r["id"]), []).append([r["band"], r["band_hash"]])
    clusters = rows(dd, "dedup/clusters/clusters-*.parquet")
    print(
        json.dumps(
            {
                "tokens": {n: len(funcs[n]) for n in names},
                "pairs": pairs,
                "nodes": nodes,
                "csn": csn,
                "base_partition": base_partition,
                "bands": bands,
                "clusters": clusters,
                "stats": json.load(open(f"{dd}/stats.json"))["stages"].get("dedup"),
            }
        )
    )


main()

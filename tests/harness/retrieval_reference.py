"""Independent reference for the retrieval of repository-level completion rows.

Reads a completion folder (repo/repo-*.parquet rows and snapshot/snapshot-*.parquet files), rebuilds the
chunks of every snapshot file (windows of W lines every S lines, files by path, windows
without a word left out), and for each row recomputes the query (the words of the last Q
non-empty lines of the prefix), the BM25 scores with rank_bm25's BM25Okapi and the Jaccard
similarity of token sets, and the top K chunks of other files (chunks sharing a word with the
query, best first, ties to the earlier chunk). Prints a JSON report of the mismatches.
Usage: retrieval_reference.py DIR W S Q K
"""
import glob, json, re, sys

import pyarrow.parquet as pq
from rank_bm25 import BM25Okapi

d, W, S, Q, K = sys.argv[1], *map(int, sys.argv[2:6])
words = lambda t: re.findall(r"\w+", t)

snap = []
for f in sorted(glob.glob(f"{d}/snapshot/snapshot-*.parquet")):
    snap += pq.read_table(f).to_pylist()
snap.sort(key=lambda r: r["path"])
chunks = []
for r in snap:
    lines = r["content"].split("\n")
    if r["content"].endswith("\n"):
        lines.pop()
    n, s = len(lines), 0
    while s < n:
        e = min(s + W, n)
        body = "\n".join(lines[s:e])
        if words(body):
            chunks.append((r["path"], s + 1, e, body))
        if e == n:
            break
        s += S
corpus = [words(c[3]) for c in chunks]
bm25 = BM25Okapi(corpus)

rows = []
for f in sorted(glob.glob(f"{d}/repo/repo-*.parquet")):
    rows += pq.read_table(f).to_pylist()
mismatches, retrieved = [], 0
for r in rows:
    nonempty = [l for l in r["prefix"].split("\n") if l.strip()]
    q = [w for l in nonempty[-Q:] for w in words(l)]
    scores = bm25.get_scores(q)
    qs = set(q)
    expect = {}
    for name in ("bm25", "jaccard"):
        cands = []
        for i, (path, s, e, body) in enumerate(chunks):
            if path == r["path"] or not (qs & set(corpus[i])):
                continue
            if name == "bm25":
                score = float(scores[i])
            else:
                cs = set(corpus[i])
                score = len(qs & cs) / len(qs | cs)
            cands.append((-score, i))
        cands.sort()
        expect[name] = [(chunks[i][0], chunks[i][1], chunks[i][2], chunks[i][3], -neg)
                        for neg, i in cands[:K]]
    for name in ("bm25", "jaccard"):
        got = [x for x in r["retrieved_context"] if x["retriever"] == name]
        retrieved += len(got)
        if [g["rank"] for g in got] != list(range(1, len(got) + 1)):
            mismatches.append({"id": r["id"], "retriever": name, "ranks": [g["rank"] for g in got]})
        want = expect[name]
        if [(g["path"], g["start_line"], g["end_line"], g["code"]) for g in got] != [w[:4] for w in want]:
            mismatches.append({"id": r["id"], "line": r["line"], "retriever": name,
                               "got": [(g["path"], g["start_line"], g["score"]) for g in got],
                               "want": [(w[0], w[1], w[4]) for w in want]})
            continue
        for g, w in zip(got, want):
            if abs(g["score"] - w[4]) > 1e-9:
                mismatches.append({"id": r["id"], "retriever": name, "got": g["score"], "want": w[4]})
print(json.dumps({"snapshot_files": len(snap), "chunks": len(chunks), "examples": len(rows),
                  "retrieved": retrieved, "mismatches": mismatches[:20]}))

"""Benchmark of the repository-level completion output (issue 16).

For each repository: `codemine mine` with and without `--emit repo-completion` (alternating,
best wall time of --rounds), then, from the output, the rows per kind, the gold definitions per
cross-file row, and the recall@k of the BM25 and Jaccard retrievers against the gold context (a
gold definition is found when one of the first k chunks of a retriever has its path and
overlaps its lines; the mean is over rows with a gold context).

Usage: python examples/bench_repo_completion.py --codemine target/release/codemine \
           --repo /work/.mirror/redis+redis/repo [--repo ...] [--rounds 3] [--k 5] [-j 2]
"""
import argparse, glob, json, os, shutil, subprocess, tempfile, time
from collections import Counter

import pyarrow.parquet as pq

ap = argparse.ArgumentParser()
ap.add_argument("--codemine", default="target/release/codemine")
ap.add_argument("--repo", action="append", required=True)
ap.add_argument("--rounds", type=int, default=3)
ap.add_argument("--k", type=int, default=5)
ap.add_argument("-j", default="2")
args = ap.parse_args()


def mine(repo, out, extra):
    shutil.rmtree(out, ignore_errors=True)
    t = time.perf_counter()
    subprocess.run([args.codemine, "mine", "--repo", repo, "--out", out, "-j", args.j, "--quiet"] + extra,
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t


def recall(rows, retriever, k):
    vals = []
    for r in rows:
        gold = r["gold_context"]
        if not gold:
            continue
        got = [c for c in r["retrieved_context"] if c["retriever"] == retriever][:k]
        found = sum(any(c["path"] == g["path"] and c["start_line"] <= g["end_line"]
                        and g["start_line"] <= c["end_line"] for c in got) for g in gold)
        vals.append(found / len(gold))
    return sum(vals) / len(vals) if vals else float("nan")


report = []
with tempfile.TemporaryDirectory() as tmp:
    for repo in args.repo:
        base, with_rc = [], []
        for _ in range(args.rounds):
            base.append(mine(repo, f"{tmp}/a", []))
            with_rc.append(mine(repo, f"{tmp}/b", ["--emit", "repo-completion"]))
        rows = []
        for f in sorted(glob.glob(f"{tmp}/b/completion/repo/repo-*.parquet")):
            rows += pq.read_table(f).to_pylist()
        stage = json.load(open(f"{tmp}/b/stats.json"))["stages"]["repo_completion"]
        kinds = Counter(r["kind"] for r in rows)
        cross = [r for r in rows if r["kind"].startswith("cross_file")]
        rec = {
            "repo": os.path.basename(os.path.dirname(repo.rstrip("/"))) if repo.endswith("/repo") else repo,
            "mine_s": round(min(base), 2),
            "mine_with_repo_completion_s": round(min(with_rc), 2),
            "overhead_pct": round(100 * (min(with_rc) / min(base) - 1), 1),
            "step_seconds": round(stage["seconds"], 2),
            "rows": len(rows),
            "rows_by_kind": dict(sorted(kinds.items())),
            "candidates_by_kind": stage["candidates"],
            "candidate_lines": stage["lines"],
            "uncertain_lines": stage["uncertain"],
            "gold_per_cross_file_row": round(sum(len(r["gold_context"]) for r in cross) / max(len(cross), 1), 2),
            f"recall@{args.k}_bm25": round(recall(rows, "bm25", args.k), 3),
            f"recall@{args.k}_jaccard": round(recall(rows, "jaccard", args.k), 3),
        }
        report.append(rec)
        print(json.dumps(rec), flush=True)

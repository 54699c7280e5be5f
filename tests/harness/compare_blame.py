# Compares codemine's last-commit dates with the git command line, the reference.
#
#   compare_blame.py OUT REPO [--jobs N] [--show N] [--json]
#
# For every file with dated functions in OUT/callgraph/nodes/nodes-*.parquet (pyarrow), runs
# `git blame --incremental <sha> -- <path>` in REPO (N processes at once), takes for each
# function the latest committer-time over its lines [start_line, end_line], and compares it
# with codemine's `last_commit` (and the sha, which must be one of the commits with that
# time). Functions whose date is a shallow boundary (`last_commit_bounded`) must agree with
# git's boundary marker instead. Prints JSON: counts, mismatches and the time git took.
import argparse, collections, glob, json, os, subprocess, sys, time
from concurrent.futures import ThreadPoolExecutor

import pyarrow.parquet as pq

ap = argparse.ArgumentParser()
ap.add_argument("out")
ap.add_argument("repo")
ap.add_argument("--jobs", type=int, default=2)
ap.add_argument("--show", type=int, default=10)
args = ap.parse_args()

files = sorted(glob.glob(os.path.join(args.out, "callgraph", "nodes", "nodes-*.parquet")))
nodes = [r for f in files for r in pq.read_table(f).to_pylist()]
stats = json.load(open(os.path.join(args.out, "stats.json")))
shas = {r["repo"]: r["sha"] for r in stats["repositories"]}
shallow_file = subprocess.run(
    ["git", "-C", args.repo, "rev-parse", "--git-path", "shallow"],
    capture_output=True, text=True, check=True,
).stdout.strip()
if not os.path.isabs(shallow_file):
    shallow_file = os.path.join(args.repo, shallow_file)
cut = set(open(shallow_file).read().split()) if os.path.exists(shallow_file) else set()
by_path = collections.defaultdict(list)
# Module code and lambdas are call-graph nodes without dates (README, "Python value flow").
for n in nodes:
    if n.get("kind") in ("module", "lambda"):
        continue
    by_path[(n["repository"], n["path"])].append(n)


def blame(key):
    repo, path = key
    out = subprocess.run(
        ["git", "-C", args.repo, "blame", "--incremental", shas[repo], "--", path],
        capture_output=True, text=True, check=True,
    ).stdout
    lines, info, cur = {}, {}, None
    for line in out.splitlines():
        parts = line.split(" ")
        if len(parts) == 4 and len(parts[0]) == 40 and all(c in "0123456789abcdef" for c in parts[0]):
            cur = parts[0]
            info.setdefault(cur, {"time": None, "boundary": False})
            final, count = int(parts[2]), int(parts[3])
            for l in range(final, final + count):
                lines[l] = cur
        elif line.startswith("committer-time "):
            info[cur]["time"] = int(line.split(" ")[1])
        elif line == "boundary":
            info[cur]["boundary"] = True
    return key, lines, info


t0 = time.time()
with ThreadPoolExecutor(args.jobs) as ex:
    results = list(ex.map(blame, by_path.keys()))
git_seconds = time.time() - t0

checked, agree, mismatches = 0, 0, []
for key, lines, info in results:
    for n in by_path[key]:
        blamed = [lines[l] for l in range(n["start_line"], n["end_line"] + 1)]
        latest = max(info[c]["time"] for c in blamed)
        at_latest = sorted({c for c in blamed if info[c]["time"] == latest})
        boundary = any(info[c]["boundary"] and c in cut for c in at_latest)
        got = n["last_commit"]
        got_t = got if got is None or isinstance(got, int) else int(got.timestamp())
        checked += 1
        ok = (
            got_t == latest
            and n["last_commit_sha"] in at_latest
            and bool(n["last_commit_bounded"]) == boundary
        )
        if ok:
            agree += 1
        else:
            mismatches.append({
                "function": f'{n["path"]}:{n["qualified_name"]}:{n["start_line"]}-{n["end_line"]}',
                "codemine": [got_t, n["last_commit_sha"], n["last_commit_bounded"]],
                "git": [latest, at_latest, boundary],
            })

print(json.dumps({
    "files": len(results),
    "functions": checked,
    "agree": agree,
    "mismatches": len(mismatches),
    "examples": mismatches[: args.show],
    "git_seconds": git_seconds,
}))

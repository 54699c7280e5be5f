#!/usr/bin/env python3
"""Benchmark of the last-commit stage (issue: filtering by commit date and coverage).

On a real repository with a long history it runs, in one go:
  - `codemine mine -j N` from a local clone, and reads the history stage's wall time
    (stats.json `stages.enrich.history.seconds`) and the whole run's time;
  - `git blame --incremental <sha> -- <file>` over the same files, N processes at a time
    (tests/harness/compare_blame.py), and compares every function's date with git's;
and prints both times, their ratio, and the agreement.

Usage (needs pyarrow, and a release build: cargo build --release):
  python examples/bench_history.py --repo /path/to/redis [--jobs 2] [-- extra codemine args]
"""
import argparse, json, os, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repo", required=True)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--codemine", default=os.path.join(ROOT, "target/release/codemine"))
    ap.add_argument("extra", nargs="*")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="bench-history-")
    out = os.path.join(tmp, "out")

    t = time.monotonic()
    subprocess.run([a.codemine, "mine", "--repo", a.repo, "--out", out, "-q", "-j", str(a.jobs),
                    "--cache", os.path.join(tmp, "cache"), *a.extra], check=True)
    wall = time.monotonic() - t
    h = json.load(open(os.path.join(out, "stats.json")))["stages"]["enrich"]["history"]

    cmp = json.loads(subprocess.run(
        [sys.executable, os.path.join(ROOT, "tests/harness/compare_blame.py"), out, a.repo,
         "--jobs", str(a.jobs), "--show", "5"],
        check=True, capture_output=True, text=True).stdout)

    print(f"files {cmp['files']}, functions {cmp['functions']}, threads/processes {a.jobs}")
    print(f"codemine last-commit stage: {h['seconds']:.2f} s (whole run {wall:.2f} s; "
          f"{h['commits_visited']} commits visited, {h['blob_diffs']} blob diffs, "
          f"{h['rename_searches']} rename searches, {h['skewed_commits']} skewed commits)")
    print(f"git blame --incremental:    {cmp['git_seconds']:.2f} s")
    print(f"ratio git / codemine stage: {cmp['git_seconds'] / h['seconds']:.2f}x")
    print(f"agreement: {cmp['agree']} of {cmp['functions']} functions "
          f"({cmp['mismatches']} differ)")
    for e in cmp["examples"]:
        print("  differs:", json.dumps(e))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Benchmark of mining again at a later commit (issue 40, the history cache).

For a repository and two commits A and B (B a descendant of A on its first-parent line):
  1. `codemine mine REPO@A` with a fresh cache (writes the history cache at A; timed);
  2. `codemine mine REPO@B` with that cache: the incremental run (timed);
  3. `codemine mine REPO@B --no-history-cache` with another fresh cache: the full run (timed);
then compares every output file of 2 and 3 (sha256; stats.json aside, it holds timings) and
prints the times, the history stage's seconds and what the cache reused.

Usage (a release build: cargo build --release):
  python examples/bench_incremental.py --repo /path/to/redis --back 100 [--jobs 2] [-- extra args]
B is the repository's HEAD (or --rev), A is B's --back'th first-parent ancestor.
"""
import argparse, hashlib, json, os, subprocess, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def git(repo, *args):
    return subprocess.run(["git", "-C", repo, *args], check=True, capture_output=True,
                          text=True).stdout.strip()


def digests(out):
    got = {}
    for d, _, files in os.walk(out):
        for f in files:
            p = os.path.join(d, f)
            rel = os.path.relpath(p, out)
            if rel not in ("stats.json", ".codemine.lock"):
                got[rel] = hashlib.sha256(open(p, "rb").read()).hexdigest()
    return got


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repo", required=True)
    ap.add_argument("--rev", default="HEAD")
    ap.add_argument("--back", type=int, default=100)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--codemine", default=os.path.join(ROOT, "target/release/codemine"))
    ap.add_argument("extra", nargs="*")
    a = ap.parse_args()
    b = git(a.repo, "rev-parse", a.rev)
    first_parents = git(a.repo, "rev-list", "--first-parent", f"--max-count={a.back + 1}", b).split()
    base = first_parents[-1]
    tmp = tempfile.mkdtemp(prefix="bench-incremental-")

    def mine(name, rev, cache, *more):
        out = os.path.join(tmp, name)
        t = time.monotonic()
        subprocess.run([a.codemine, "mine", "--repo", f"{a.repo}@{rev}", "--out", out, "-q",
                        "-j", str(a.jobs), "--cache", os.path.join(tmp, cache), *more, *a.extra],
                       check=True)
        wall = time.monotonic() - t
        h = json.load(open(os.path.join(out, "stats.json")))["stages"]["enrich"]["history"]
        return out, wall, h

    _, wall_a, _ = mine("at-a", base, "cache")
    inc, wall_inc, h_inc = mine("incremental", b, "cache")
    full, wall_full, h_full = mine("full", b, "cache-full", "--no-history-cache")
    di, df = digests(inc), digests(full)
    same = di == df
    changed = git(a.repo, "diff", "--name-only", base, b).splitlines()
    print(f"A {base[:12]} -> B {b[:12]}: {a.back} first-parent commits, "
          f"{len(changed)} paths differ between A and B")
    print(f"run at A (writes the cache): {wall_a:.2f} s")
    print(f"full run at B:        {wall_full:.2f} s (history {h_full['seconds']:.2f} s, "
          f"{h_full['walked_functions']} functions walked)")
    c = h_inc.get("cache", {})
    print(f"incremental run at B: {wall_inc:.2f} s (history {h_inc['seconds']:.2f} s, "
          f"{h_inc['walked_functions']} functions walked; reused {c.get('reused_functions')} "
          f"functions of {c.get('reused_files')} files, {c.get('changed_paths')} paths changed)")
    print(f"incremental / full: {wall_inc / wall_full:.3f} (history {h_inc['seconds'] / h_full['seconds']:.3f})")
    print(f"output files: {len(df)}, byte-identical: {same}")
    if not same:
        for k in sorted(set(di) | set(df)):
            if di.get(k) != df.get(k):
                print("  differs:", k)


if __name__ == "__main__":
    main()

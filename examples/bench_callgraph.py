#!/usr/bin/env python3
"""Benchmark of the resolve stage and the C call graph (issue: call graphs).

On a real C repository it reports, in one run:
  - `codemine mine` from a local clone to YABLoCo shards: wall time (best of --runs), and the
    busy seconds of the extract stage (parsing, walking, call sites) and of the resolve stage
    (symbol tables, resolution, call-graph and YABLoCo rows), from stats.json;
  - precision and recall of codemine's edges between project functions against GCC's true
    direct-call graph (`gcc -fcallgraph-info -O0 -fno-builtin`) for the files that compile.

Usage (needs pyarrow, gcc, and a release build: cargo build --release):
  python examples/bench_callgraph.py --repo /path/to/redis [--src DIR] [--runs 3] \
      [--gcc-arg=--include --gcc-arg=src ...]
--src is a checked-out tree of the same commit for gcc (default: `git archive HEAD` of --repo
into a temporary folder). Arguments after --gcc-arg go to tests/harness/gcc_callgraph.py.
"""
import argparse, json, os, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repo", required=True)
    ap.add_argument("--src")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--codemine", default=os.path.join(ROOT, "target/release/codemine"))
    ap.add_argument("--gcc-arg", action="append", default=[])
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="bench-callgraph-")
    out = os.path.join(tmp, "out")

    runs = []
    for _ in range(a.runs):
        subprocess.run(["rm", "-rf", out], check=True)
        t = time.monotonic()
        subprocess.run([a.codemine, "mine", "--repo", a.repo, "--out", out, "-q",
                        "--cache", os.path.join(tmp, "cache")], check=True)
        wall = time.monotonic() - t
        st = json.load(open(os.path.join(out, "stats.json")))["stages"]
        runs.append((wall, st["extract"]["busy_seconds"], st["resolve"]["busy_seconds"], st))
    wall, extract, resolve, st = min(runs, key=lambda r: r[0])
    print(f"repository: {a.repo}")
    print(f"files {st['extract']['files']}, {st['extract']['bytes'] / 1e6:.1f} MB, "
          f"functions {st['extract']['functions']}, call sites {st['resolve']['calls']}")
    print(f"whole run, clone to shards: {wall:.2f} s (best of {a.runs}: "
          + ", ".join(f"{r[0]:.2f}" for r in runs) + ")")
    print(f"extract busy {extract:.2f} s, resolve busy {resolve:.2f} s: "
          f"resolve adds {100 * resolve / extract:.1f}% to extraction")
    rates = {k: round(v["resolution_rate"], 4) for k, v in st["resolve"]["languages"].items()}
    print(f"resolution rate {rates}; by category {st['resolve']['by_category']}")

    src = a.src
    if not src:
        src = os.path.join(tmp, "src")
        os.makedirs(src)
        archive = subprocess.run(["git", "--git-dir", a.repo if a.repo.endswith(".git") or
                                  not os.path.isdir(os.path.join(a.repo, ".git")) else
                                  os.path.join(a.repo, ".git"), "archive", "HEAD"],
                                 check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", src], input=archive, check=True)
    t = time.monotonic()
    gcc = subprocess.run([sys.executable, os.path.join(ROOT, "tests/harness/gcc_callgraph.py"), src,
                          "--jobs", "2", *a.gcc_arg], check=True, capture_output=True)
    gcc_secs = time.monotonic() - t
    gcc_json = os.path.join(tmp, "gcc.json")
    open(gcc_json, "wb").write(gcc.stdout)
    cmp = json.loads(subprocess.run([sys.executable, os.path.join(ROOT, "tests/harness/compare_callgraph.py"),
                                     out, gcc_json], check=True, capture_output=True).stdout)
    print(f"gcc -fcallgraph-info: {cmp['gcc_compiled_files']} files compiled, "
          f"{cmp['gcc_failed_files']} failed, {gcc_secs:.1f} s")
    print(f"edges between project functions: gcc {cmp['gcc_edges']}, codemine {cmp['codemine_edges']}, "
          f"precision {cmp['precision']:.4f}, recall {cmp['recall']:.4f}")


if __name__ == "__main__":
    main()

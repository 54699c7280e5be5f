#!/usr/bin/env python3
"""What `codemine mine --pii MODE` adds to `mine` (issue 37, "Speed": at most 10%).

For each repository (a bare mirror or a clone, at the commit given), runs
`codemine mine --no-history -q --threads T` once without `--pii` and once per mode
(`report`, `redact`, `drop`), best of --rounds wall times each, alternating the variants
within a round so that a change of load hits all of them alike. Also prints the detection
step's own thread time from stats.json (`stages.pii.seconds`: scans and redactions) as a
share of the plain run's wall time times its threads, which a busy machine disturbs less
than wall time, and the findings.

Usage (a release build: cargo build --release --no-default-features):
  python3 examples/bench_pii_mine.py [--codemine target/release/codemine] [--rounds 5] \\
      [--threads 2] /work/.mirror/psf+requests/repo@1f6589e ...
A repository is PATH or PATH@REV; a bare mirror /x/owner+name/repo is named owner/name.
"""
import argparse, json, os, shutil, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODES = [None, "report", "redact", "drop"]


def name_of(path):
    parts = os.path.abspath(path).rstrip("/").split("/")
    if parts[-1] == "repo" and "+" in parts[-2]:
        return parts[-2].replace("+", "/", 1)
    return parts[-1]


def run(binary, manifest, out, threads, mode):
    shutil.rmtree(out, ignore_errors=True)
    cmd = [binary, "mine", "--manifest", manifest, "--out", out, "--no-history", "-q",
           "--threads", str(threads)]
    if mode:
        cmd += ["--pii", mode]
    t = time.perf_counter()
    subprocess.run(cmd, check=True)
    wall = time.perf_counter() - t
    with open(os.path.join(out, "stats.json")) as f:
        return wall, json.load(f)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("repos", nargs="+")
    ap.add_argument("--codemine", default=os.path.join(ROOT, "target/release/codemine"))
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--threads", type=int, default=2)
    a = ap.parse_args()
    print("| repository | files | rows | plain s | report s | redact s | drop s "
          "| scan thread s | scan share | findings | dropped |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for spec in a.repos:
        path, _, rev = spec.partition("@")
        rev = rev or "HEAD"
        with tempfile.TemporaryDirectory() as tmp:
            manifest = os.path.join(tmp, "repos.toml")
            with open(manifest, "w") as f:
                f.write(f'[[repos]]\nurl = {json.dumps(os.path.abspath(path))}\n'
                        f'rev = {json.dumps(rev)}\nname = {json.dumps(name_of(path))}\n')
            best = {m: float("inf") for m in MODES}
            stats = {}
            for _ in range(a.rounds):
                for m in MODES:
                    wall, s = run(a.codemine, manifest, os.path.join(tmp, "out"), a.threads, m)
                    best[m] = min(best[m], wall)
                    stats[m] = s
        plain = stats[None]
        report = stats["report"]["stages"]["pii"]
        scan = report["seconds"]
        share = scan / (best[None] * a.threads)
        print(f"| {name_of(path)} {rev[:8]} | {plain['stages']['extract']['files']} "
              f"| {plain['stages']['extract']['csn_rows']} "
              + " ".join(f"| {best[m]:.2f}" for m in MODES)
              + f" | {scan:.3f} | {100 * share:.1f}% | {sum(report['findings'].values())} "
              f"| {stats['drop']['stages']['pii']['functions_dropped']} |")
        sys.stdout.flush()


if __name__ == "__main__":
    main()

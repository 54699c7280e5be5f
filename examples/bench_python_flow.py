#!/usr/bin/env python3
"""Python value flow (issue 20) on real repositories and on a synthetic corpus.

For each --repo (a git repository or bare mirror), mines it with each given codemine binary
and reports from stats.json: Python call sites, their resolution rate, sites reaching a
function of the repository, edges found only by value flow, the analysis' size and bounds,
and the extract and resolve stage busy seconds (resolve over extract). With --sample N it
prints N value-flow edges of the last binary, drawn at random (fixed seed), for checking by
hand: caller, line, callee as written, callee.

With --synthetic SIZES (e.g. 25000,50000,100000) it generates Python repositories of about
that many functions (modules of 50 functions and 5 classes that pass callbacks, store them in
attributes and dicts, return closures and subclass each other across modules) and reports the
resolve stage's seconds against size.

Usage (needs pyarrow; release builds):
  python examples/bench_python_flow.py --bin before=/path/main/codemine \
      --bin after=target/release/codemine --repo /path/requests --repo /path/flask --sample 20
  python examples/bench_python_flow.py --bin after=target/release/codemine \
      --synthetic 25000,50000,100000
"""
import argparse, glob, json, os, random, shutil, subprocess, sys, tempfile, time

import pyarrow.parquet as pq


def mine(binary, repo, tmp):
    out = os.path.join(tmp, "out")
    shutil.rmtree(out, ignore_errors=True)
    t = time.monotonic()
    subprocess.run([binary, "mine", "--repo", repo, "--out", out, "-q",
                    "--cache", os.path.join(tmp, "cache")], check=True)
    wall = time.monotonic() - t
    stats = json.load(open(os.path.join(out, "stats.json")))
    return out, stats, wall


def summary(stats, wall):
    st = stats["stages"]
    py = st["resolve"]["languages"].get("python", {})
    return {
        "sites": py.get("calls", 0),
        "rate": py.get("resolution_rate", 0.0),
        "to_repo": py.get("to_repository", 0),
        "value_flow": py.get("value_flow", 0),
        "flow_nodes": py.get("flow_nodes", 0),
        "flow_steps": py.get("flow_steps", 0),
        "truncated": py.get("flow_truncated", 0),
        "step_limit": py.get("flow_step_limit", 0),
        "extract_s": st["extract"]["busy_seconds"],
        "resolve_s": st["resolve"]["busy_seconds"],
        "functions": st["extract"]["functions"],
        "wall_s": wall,
    }


def sample(out, n, seed=20):
    rows = lambda p: [x for f in sorted(glob.glob(f"{out}/callgraph/{p}/{p}-*.parquet"))
                      for x in pq.read_table(f).to_pylist()]
    nodes = {r["id"]: r for r in rows("nodes")}
    vf = [e for e in rows("edges") if e.get("via") == "value_flow"]
    random.Random(seed).shuffle(vf)
    key = lambda i: f'{nodes[i]["path"]}:{nodes[i]["qualified_name"]}'
    return [(key(e["caller_id"]), e["line"], e["callee_name"], key(e["callee_id"]),
             e["category"]) for e in vf[:n]]


def synthetic(root, functions):
    """A repository of `functions` functions: modules of 40 functions and 5 classes of 2
    methods each, every module using the previous one's callbacks, classes and dicts."""
    per = 50
    modules = max(1, functions // per)
    os.makedirs(os.path.join(root, "pkg"), exist_ok=True)
    open(os.path.join(root, "pkg", "__init__.py"), "w").close()
    for m in range(modules):
        prev = f"m{m - 1}" if m else None
        lines = []
        if prev:
            lines.append(f"from pkg import {prev}\n")
        for c in range(5):
            base = f"({prev}.C{c})" if prev else ""
            lines.append(f"class C{c}{base}:\n    def __init__(self, cb):\n"
                         f"        self.cb = cb\n\n    def run(self):\n        return self.cb()\n")
        for f in range(40):
            body = [f"def f{f}(x=None, cb=None):"]
            if f % 4 == 0:
                body.append(f"    return f{(f + 1) % 40}")
            elif f % 4 == 1:
                body.append(f"    g = f{(f + 2) % 40}()\n    return g(cb=f{(f + 3) % 40})")
            elif f % 4 == 2:
                body.append(f"    c = C{f % 5}(f{(f + 1) % 40})\n    return c.run()")
            else:
                body.append(f"    table = {{'a': f{(f + 1) % 40}, 'b': cb}}\n"
                            f"    return table['a']() or (cb and cb())")
            if prev:
                body.append(f"    {prev}.f{f}(cb={prev}.f{(f + 5) % 40})")
            lines.append("\n".join(body) + "\n")
        open(os.path.join(root, "pkg", f"m{m}.py"), "w").write("\n\n".join(lines))
    env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b",
           "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@b"}
    subprocess.run("git init -q && git add -A && git commit -qm synthetic", shell=True,
                   cwd=root, check=True, env=env)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", action="append", required=True, help="label=path")
    ap.add_argument("--repo", action="append", default=[])
    ap.add_argument("--sample", type=int, default=0)
    ap.add_argument("--synthetic", default="")
    a = ap.parse_args()
    bins = [b.split("=", 1) for b in a.bin]
    tmp = tempfile.mkdtemp(prefix="bench-pyflow-")
    cols = ["sites", "rate", "to_repo", "value_flow", "flow_nodes", "flow_steps", "truncated",
            "step_limit", "functions", "extract_s", "resolve_s"]
    print("| repository | binary | " + " | ".join(cols) + " | resolve/extract |")
    print("|---|---|" + "---:|" * (len(cols) + 1))
    last_out = {}
    for repo in a.repo:
        for label, binary in bins:
            out, stats, wall = mine(binary, repo, os.path.join(tmp, label))
            s = summary(stats, wall)
            vals = [f"{s[c]:.4f}" if c == "rate" else (f"{s[c]:.3f}" if c.endswith("_s")
                    else str(s[c])) for c in cols]
            ratio = s["resolve_s"] / s["extract_s"] if s["extract_s"] else 0
            print(f"| {os.path.basename(repo.rstrip('/').removesuffix('/repo'))} | {label} | "
                  + " | ".join(vals) + f" | {ratio:.1%} |")
            last_out[repo] = out
        if a.sample:
            for row in sample(last_out[repo], a.sample):
                print("    sample:", *row)
    for n in [int(x) for x in a.synthetic.split(",") if x]:
        root = os.path.join(tmp, f"syn{n}")
        synthetic(root, n)
        for label, binary in bins:
            _, stats, wall = mine(binary, root, os.path.join(tmp, label))
            s = summary(stats, wall)
            print(f"| synthetic {n} | {label} | " + " | ".join(
                f"{s[c]:.4f}" if c == "rate" else (f"{s[c]:.3f}" if c.endswith("_s")
                                                    else str(s[c])) for c in cols)
                  + f" | {s['resolve_s'] / s['extract_s']:.1%} |")
        shutil.rmtree(root)
    shutil.rmtree(tmp)


if __name__ == "__main__":
    sys.exit(main())

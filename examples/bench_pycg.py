#!/usr/bin/env python3
"""Python call graphs against PyCG's micro-benchmark (issue 20).

PyCG (Salis et al., ICSE 2021) ships hand-made ground-truth call graphs of small Python
programs: micro-benchmark/snippets/<category>/<case>/{main.py, ..., callgraph.json}. Each case
is mined by codemine as a repository of its own (a git repository made in a temporary folder),
its call graph read back, mapped to PyCG's names and compared edge by edge.

Mapping (documented in BENCHMARKS.md):
  - a codemine node `pkg/mod.py:Class.method` is `pkg.mod.Class.method` (`__init__.py` is the
    package); only edges to functions of the case count (PyCG's `<builtin>.*` and names of
    modules outside the case are left out on both sides);
  - lambdas are not call-graph nodes in codemine (calls in a lambda belong to the function
    that holds it): in the ground truth, `X.<lambdaN>` is folded into `X` (its out-edges become
    X's, edges into it are dropped);
  - module-level code is no node either: the ground truth's edges whose caller is a module
    (`main`, `pkg.mod`) can never be found. They are reported apart ("all edges"); the
    headline figures are over the edges whose caller is a function ("function callers").

Usage (needs pyarrow; the PyCG repository fetched, e.g. /work/.mirror/vitsalis+PyCG/repo):
  python examples/bench_pycg.py --pycg /path/to/PyCG/git-dir \
      --codemine target/release/codemine [--before /path/to/main/codemine] [--show-misses]
Nothing of PyCG is committed: the snippets are read from its git directory at run time.
"""
import argparse, collections, glob, json, os, re, shutil, subprocess, sys, tempfile

import pyarrow.parquet as pq


def snippets(pycg, dest):
    """Unpacks micro-benchmark/snippets from a git directory (or a checkout) into dest."""
    if os.path.isdir(os.path.join(pycg, "micro-benchmark")):
        shutil.copytree(os.path.join(pycg, "micro-benchmark", "snippets"), dest)
        return dest
    arch = subprocess.run(["git", f"--git-dir={pycg}", "archive", "HEAD",
                           "micro-benchmark/snippets"], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", os.path.dirname(dest)], input=arch, check=True)
    os.rename(os.path.join(os.path.dirname(dest), "micro-benchmark", "snippets"), dest)
    return dest


def module_of(path):
    stem = path[:-3]
    if stem.endswith("/__init__"):
        stem = stem[: -len("/__init__")]
    elif stem == "__init__":
        stem = ""
    return stem.replace("/", ".")


def mine(binary, case_dir, tmp):
    repo = os.path.join(tmp, "repo")
    shutil.copytree(case_dir, repo, ignore=shutil.ignore_patterns("callgraph.json", "README.md"))
    env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b",
           "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@b"}
    subprocess.run("git init -q && git add -A && git commit -qm case", shell=True, cwd=repo,
                   check=True, env=env)
    out = os.path.join(tmp, "out")
    r = subprocess.run([binary, "mine", "--repo", repo, "--out", out, "-q",
                        "--cache", os.path.join(tmp, "cache")], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(r.stderr)
    rows = lambda p: [x for f in sorted(glob.glob(f"{out}/callgraph/{p}-*.parquet"))
                      for x in pq.read_table(f).to_pylist()]
    nodes = {n["id"]: n for n in rows("nodes")}
    name = lambda n: ".".join(p for p in (module_of(n["path"]), n["qualified_name"]) if p)
    edges = set()
    for e in rows("edges"):
        if e["callee_id"] is None:
            continue
        edges.add((name(nodes[e["caller_id"]]), name(nodes[e["callee_id"]])))
    shutil.rmtree(tmp)
    return edges


LAMBDA = re.compile(r"\.<lambda\d*>")


def truth(case_dir):
    cg = json.load(open(os.path.join(case_dir, "callgraph.json")))
    modules = {module_of(os.path.relpath(p, case_dir))
               for p in glob.glob(os.path.join(case_dir, "**", "*.py"), recursive=True)}
    # Functions of the case: under one of its modules, not builtins, not lambdas.
    defined = {k for k in cg if k not in modules and "<lambda" not in k
               and any(k.startswith(m + ".") for m in modules)}
    fold = lambda n: LAMBDA.split(n)[0] if "<lambda" in n else n
    all_edges, fn_edges = set(), set()
    for caller, callees in cg.items():
        c = fold(caller)
        for d in callees:
            if "<lambda" in d or d not in defined:
                continue  # into a lambda, a builtin or outside the case
            all_edges.add((c, d))
            if c not in modules:
                fn_edges.add((c, d))
    return all_edges, fn_edges, modules


def score(tp, fp, fn):
    p = tp / (tp + fp) if tp + fp else 1.0
    r = tp / (tp + fn) if tp + fn else 1.0
    return p, r


def run(binary, root, show):
    per = collections.defaultdict(lambda: [0, 0, 0, 0])  # tp, fp, fn (function callers), fn all
    misses = []
    for cg in sorted(glob.glob(os.path.join(root, "*", "*", "callgraph.json"))):
        case = os.path.dirname(cg)
        cat = os.path.basename(os.path.dirname(case))
        all_t, fn_t, modules = truth(case)
        got = mine(binary, case, tempfile.mkdtemp(prefix="pycg-case-"))
        got = {(a, b) for a, b in got if a not in modules}
        s = per[cat]
        s[0] += len(got & fn_t)
        s[1] += len(got - fn_t)
        s[2] += len(fn_t - got)
        s[3] += len(all_t - got)
        if show and (got != fn_t):
            misses.append((os.path.relpath(case, root), sorted(fn_t - got), sorted(got - fn_t)))
    return per, misses


def table(per):
    lines = ["| category | edges (fn callers) | precision | recall | recall of all edges |",
             "|---|---:|---:|---:|---:|"]
    tot = [0, 0, 0, 0]
    for cat in sorted(per):
        tp, fp, fn, fn_all = per[cat]
        tot = [a + b for a, b in zip(tot, per[cat])]
        p, r = score(tp, fp, fn)
        ra = tp / (tp + fn_all) if tp + fn_all else 1.0
        lines.append(f"| {cat} | {tp + fn} | {p:.3f} | {r:.3f} | {ra:.3f} |")
    tp, fp, fn, fn_all = tot
    p, r = score(tp, fp, fn)
    ra = tp / (tp + fn_all) if tp + fn_all else 1.0
    lines.append(f"| **all** | {tp + fn} | **{p:.3f}** | **{r:.3f}** | {ra:.3f} |")
    return "\n".join(lines), (p, r, ra)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pycg", required=True, help="PyCG git directory or checkout")
    ap.add_argument("--codemine", default="target/release/codemine")
    ap.add_argument("--before", help="another codemine binary to compare (e.g. main's)")
    ap.add_argument("--show-misses", action="store_true")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="bench-pycg-")
    root = snippets(a.pycg, os.path.join(tmp, "snippets"))
    for label, binary in (("before", a.before), ("after", a.codemine)):
        if not binary:
            continue
        per, misses = run(binary, root, a.show_misses)
        text, (p, r, ra) = table(per)
        print(f"## {label}: {binary}\n\n{text}\n")
        for case, fn, fp in misses:
            print(f"{case}: missed {fn} wrong {fp}")
    shutil.rmtree(tmp)


if __name__ == "__main__":
    sys.exit(main())

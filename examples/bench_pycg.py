#!/usr/bin/env python3
"""Python call graphs against PyCG's micro-benchmark (issue 20).

PyCG (Salis et al., ICSE 2021) ships hand-made ground-truth call graphs of small Python
programs: micro-benchmark/snippets/<category>/<case>/{main.py, ..., callgraph.json}. Each case
is mined by codemine as a repository of its own (a git repository made in a temporary folder),
its call graph read back, mapped to PyCG's names and compared edge by edge.

Mapping (documented in BENCHMARKS.md):
  - a codemine node `pkg/mod.py:Class.method` is `pkg.mod.Class.method` (`__init__.py` is the
    package), its `<module>` node is the module `pkg.mod`, and its lambda nodes
    (`scope.<lambda>`, `scope.<lambda>#2` for a second one on the same line) are PyCG's
    `scope.<lambdaN>`, numbered per scope in source order as PyCG numbers them; only edges
    to functions and lambdas of the case count (PyCG's `<builtin>.*` and names of modules
    outside the case are left out on both sides);
  - codemine binaries from before module and lambda nodes (issue 20) give neither: for them,
    and with `--fold`, lambdas are folded into the node that holds them and module callers are
    left out, as the first version of this driver did.

Usage (needs pyarrow; the PyCG repository fetched, e.g. /work/.mirror/vitsalis+PyCG/repo):
  python examples/bench_pycg.py --pycg /path/to/PyCG/git-dir \
      --codemine target/release/codemine [--before /path/to/main/codemine [--fold-before]]
      [--show-misses]
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
    rows = lambda p: [x for f in sorted(glob.glob(f"{out}/callgraph/{p}/{p}-*.parquet"))
                      for x in pq.read_table(f).to_pylist()]
    nodes = {n["id"]: n for n in rows("nodes")}
    names = pycg_names(nodes.values())
    edges = set()
    for e in rows("edges"):
        if e["callee_id"] is None:
            continue
        edges.add((names[e["caller_id"]], names[e["callee_id"]]))
    shutil.rmtree(tmp)
    return edges


LAMBDA = re.compile(r"\.<lambda\d*>")
OURS = re.compile(r"<lambda>(?:#(\d+))?$")


def pycg_names(nodes):
    """PyCG's name of every codemine node, by id."""
    out, lambdas = {}, collections.defaultdict(list)
    for n in nodes:
        module = module_of(n["path"])
        q = n["qualified_name"]
        if n.get("kind") == "module":
            out[n["id"]] = module
            continue
        m = OURS.search(q)
        if n.get("kind") == "lambda" and m:
            scope = q[: m.start()].rstrip(".")
            lambdas[(module, scope)].append((n["start_line"], int(m.group(1) or 1), n["id"]))
            continue
        out[n["id"]] = ".".join(p for p in (module, q) if p)
    # (A lambda in a lambda keeps codemine's spelling of its outer scope.)
    for (module, scope), ls in lambdas.items():
        for k, (_, _, i) in enumerate(sorted(ls), 1):
            out[i] = ".".join(p for p in (module, scope, f"<lambda{k}>") if p)
    return out


def truth(case_dir, fold):
    """The case's edges into its own functions and lambdas: all, and those whose caller is a
    function or lambda (not a module). With `fold`, lambdas are folded into their holder."""
    cg = json.load(open(os.path.join(case_dir, "callgraph.json")))
    modules = {module_of(os.path.relpath(p, case_dir))
               for p in glob.glob(os.path.join(case_dir, "**", "*.py"), recursive=True)}
    defined = {k for k in cg if k not in modules
               and any(k.startswith(m + ".") for m in modules)}
    name = (lambda n: LAMBDA.split(n)[0] if "<lambda" in n else n) if fold else (lambda n: n)
    all_edges, fn_edges = set(), set()
    for caller, callees in cg.items():
        c = name(caller)
        for d in callees:
            if d not in defined or fold and "<lambda" in d:
                continue  # a builtin, outside the case, or (folded) into a lambda
            all_edges.add((c, d))
            if c not in modules:
                fn_edges.add((c, d))
    return all_edges, fn_edges, modules


def score(tp, fp, fn):
    p = tp / (tp + fp) if tp + fp else 1.0
    r = tp / (tp + fn) if tp + fn else 1.0
    return p, r


def run(binary, root, show, fold):
    # Per category: tp, fp, fn over all edges, then over edges whose caller is no module.
    per = collections.defaultdict(lambda: [0] * 6)
    misses = []
    for cg in sorted(glob.glob(os.path.join(root, "*", "*", "callgraph.json"))):
        case = os.path.dirname(cg)
        cat = os.path.basename(os.path.dirname(case))
        all_t, fn_t, modules = truth(case, fold)
        got = mine(binary, case, tempfile.mkdtemp(prefix="pycg-case-"))
        if fold:
            got = {(LAMBDA.split(a)[0], b) for a, b in got if "<lambda" not in b}
        fn_got = {(a, b) for a, b in got if a not in modules}
        s = per[cat]
        for k, (g, t) in enumerate(((got, all_t), (fn_got, fn_t))):
            s[3 * k] += len(g & t)
            s[3 * k + 1] += len(g - t)
            s[3 * k + 2] += len(t - g)
        if show and got != all_t:
            misses.append((os.path.relpath(case, root), sorted(all_t - got), sorted(got - all_t)))
    return per, misses


def table(per):
    lines = ["| category | edges | precision | recall | edges, function callers | precision | recall |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    tot = [0] * 6
    row = lambda s: (s[0] + s[2], *score(*s[0:3]), s[3] + s[5], *score(*s[3:6]))
    for cat in sorted(per):
        tot = [a + b for a, b in zip(tot, per[cat])]
        n, p, r, fn_n, fp_, fr = row(per[cat])
        lines.append(f"| {cat} | {n} | {p:.3f} | {r:.3f} | {fn_n} | {fp_:.3f} | {fr:.3f} |")
    n, p, r, fn_n, fp_, fr = row(tot)
    lines.append(f"| **all** | {n} | **{p:.3f}** | **{r:.3f}** | {fn_n} | {fp_:.3f} | {fr:.3f} |")
    return "\n".join(lines), (p, r)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pycg", required=True, help="PyCG git directory or checkout")
    ap.add_argument("--codemine", default="target/release/codemine")
    ap.add_argument("--before", help="another codemine binary to compare (e.g. main's)")
    ap.add_argument("--show-misses", action="store_true")
    ap.add_argument("--fold-before", action="store_true",
                    help="the --before binary has no module or lambda nodes: fold its lambdas "
                         "and the truth's, as this driver's first version did")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="bench-pycg-")
    root = snippets(a.pycg, os.path.join(tmp, "snippets"))
    for label, binary in (("before", a.before), ("after", a.codemine)):
        if not binary:
            continue
        fold = label == "before" and a.fold_before
        per, misses = run(binary, root, a.show_misses, fold)
        text, _ = table(per)
        print(f"## {label}: {binary}\n\n{text}\n")
        for case, fn, fp in misses:
            print(f"{case}: missed {fn} wrong {fp}")
    shutil.rmtree(tmp)


if __name__ == "__main__":
    sys.exit(main())

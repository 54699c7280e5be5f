#!/usr/bin/env python3
"""Scale benchmark of sharded mining and the cluster step.

1. Generates REPOS synthetic git repositories (git fast-import, one commit each) of Python
   functions with docstrings; a share of the functions are copies of a common pool, exact
   or edited, across repositories, so dedup has clusters to find.
2. Mines them with N = 1, 2, 4 workers
   - as plain processes: `codemine mine --rank K --world-size N` in parallel, then
     `codemine cluster` and `codemine finalize`;
   - with the Spark job (examples/spark/codemine_spark.py) in local mode (`local[N]`);
   and prints repositories/s and functions/s per configuration (wall time of the whole
   run, cluster and finalize included; Spark's JVM startup reported apart).
3. Times the cluster step alone on the mined tables (>= 1M band rows with the default
   sizes), for `codemine cluster` and for the Spark grouping, and checks that both give
   the same clusters.

4. Optionally (--synthetic F), the same on synthetic dedup tables of F functions
   (examples/spark/synth_tables.py), with Spark's components found on the driver and by
   large-star/small-star rounds.

Usage: examples/bench_scale.py --binary target/release/codemine [--repos 240]
       [--functions-per-repo 180] [--workers 1,2,4] [--synthetic F] [--work DIR]
       [--json OUT] [-- extra mine flags]
Run it with the .venv python (pyarrow, pyspark). Needs git.
"""

import argparse
import glob
import json
import os
import random
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SPARK_JOB = os.path.join(HERE, "spark", "codemine_spark.py")

WORDS = (
    "alpha beta gamma delta count total buffer offset limit item node value result index "
    "cursor weight score queue table entry token chunk frame shard block state level width "
    "depth name path key record field column row page batch window stream source target "
    "sample label vector matrix tensor graph edge vertex parent child left right head tail"
).split()


def statement(rng, i):
    a, b, c = rng.choice(WORDS), rng.choice(WORDS), rng.choice(WORDS)
    k = rng.randrange(1000)
    form = rng.randrange(5)
    if form == 0:
        return [f"{a}_{i} = {b} + {c} * {k}"]
    if form == 1:
        return [f"if {a} > {k}:", f"    {b} = {c}({a}, {k})"]
    if form == 2:
        return [f"{a}.{b}({c}, {k})"]
    if form == 3:
        return [f"{a}_{i} = [{b} for {b} in {c} if {b} != {k}]"]
    return [f"for {a} in range({k}):", f"    {b} += {a} * {c}"]


def body(rng, n):
    return [statement(rng, i) for i in range(n)]


def render(name, doc, stmts):
    lines = [f"def {name}(alpha, beta, gamma):"]
    if doc:
        lines.append(f'    """{doc}"""')
    for st in stmts:
        lines += ["    " + s for s in st]
    lines.append("    return alpha")
    return "\n".join(lines) + "\n\n\n"


def edit(rng, stmts):
    """A near copy: one statement changed or two swapped (Jaccard mostly above 0.7)."""
    out = [list(s) for s in stmts]
    if rng.random() < 0.5 and len(out) > 3:
        i, j = rng.sample(range(len(out)), 2)
        out[i], out[j] = out[j], out[i]
    else:
        i = rng.randrange(len(out))
        out[i] = statement(rng, 900 + i)
    return out


def generate(root, repos, per_repo, seed=11, shared_share=0.15, files_per_repo=6):
    """Writes `repos` git repositories under root; returns (paths, functions written)."""
    rng = random.Random(seed)
    pool = [body(rng, rng.randrange(6, 16)) for _ in range(max(50, repos * per_repo // 40))]
    os.makedirs(root, exist_ok=True)
    paths, functions = [], 0
    for r in range(repos):
        path = os.path.join(root, f"repo{r:04d}")
        paths.append(path)
        if os.path.exists(os.path.join(path, "HEAD")) or os.path.isdir(os.path.join(path, ".git")):
            functions += per_repo
            continue
        files = {}
        for f in range(per_repo):
            if rng.random() < shared_share:
                k = rng.randrange(len(pool))
                stmts = pool[k] if rng.random() < 0.5 else edit(rng, pool[k])
                name, doc = f"shared_{k}", (f"Shared helper {k}." if rng.random() < 0.8 else None)
            else:
                stmts = body(rng, rng.randrange(4, 16))
                name, doc = f"func_{r}_{f}", f"Does step {f} of module {r}."
            files.setdefault(f"pkg/mod{f % files_per_repo}.py", []).append(render(name, doc, stmts))
            functions += 1
        subprocess.run(["git", "init", "-q", "-b", "main", path], check=True)
        stream = []
        when = 1_700_000_000 + r * 3600
        stream.append(b"commit refs/heads/main\n")
        stream.append(f"committer Bench <bench@example.com> {when} +0000\n".encode())
        stream.append(b"data 6\nbench\n")
        for name, chunks in sorted(files.items()):
            data = "".join(chunks).encode()
            stream.append(f"M 100644 inline {name}\ndata {len(data)}\n".encode())
            stream.append(data + b"\n")
        subprocess.run(["git", "-C", path, "fast-import", "--quiet"], input=b"".join(stream),
                       check=True)
        subprocess.run(["git", "-C", path, "checkout", "-q", "main"], check=True)
    return paths, functions


def run(cmd, env=None, quiet=True):
    t = time.time()
    p = subprocess.run(cmd, env=env, capture_output=quiet, text=True)
    if p.returncode != 0:
        sys.exit(f"failed ({p.returncode}): {' '.join(map(str, cmd))}\n{p.stderr if quiet else ''}")
    return time.time() - t


def functions_mined(out):
    import pyarrow.parquet as pq
    n = 0
    for f in glob.glob(os.path.join(out, "csn", "**", "*.parquet"), recursive=True):
        n += pq.ParquetFile(f).metadata.num_rows
    return n


def stats_functions(out):
    try:
        with open(os.path.join(out, "stats.json")) as f:
            s = json.load(f)
        return s["stages"]["dedup"]["functions"]
    except (OSError, KeyError, TypeError):
        return None


def band_rows(out):
    import pyarrow.parquet as pq
    return sum(pq.ParquetFile(f).metadata.num_rows
               for f in glob.glob(os.path.join(out, "dedup", "bands", "bands-*.parquet")))


def clusters(out):
    import pyarrow.parquet as pq
    rows = []
    for f in sorted(glob.glob(os.path.join(out, "dedup", "clusters", "clusters-*.parquet"))):
        rows += [(r["id"], r["cluster_id"], r["duplicate_of"], r["kind"], r["partition"])
                 for r in pq.read_table(f).to_pylist()]
    return sorted(rows)


def plain(binary, manifest, out, n, cores, cache, extra):
    """N mining processes in parallel, then cluster and finalize."""
    shutil.rmtree(out, ignore_errors=True)
    env = dict(os.environ, CI="1", CODEMINE_CACHE=cache)
    jobs = str(max(1, cores // n))
    t = time.time()
    procs = [subprocess.Popen([binary, "mine", "--manifest", manifest, "--out", out,
                               "--rank", str(k), "--world-size", str(n), "--threads", jobs] + extra,
                              env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
             for k in range(n)]
    for p in procs:
        _, err = p.communicate()
        if p.returncode != 0:
            sys.exit(f"rank failed ({p.returncode}):\n{err}")
    mine = time.time() - t
    cl = run([binary, "cluster", "--out", out], env=env)
    fin = run([binary, "finalize", "--out", out], env=env)
    return {"mine_s": mine, "cluster_s": cl, "finalize_s": fin, "total_s": time.time() - t}


def spark(python, binary, manifest, out, n, cores, cache, extra):
    shutil.rmtree(out, ignore_errors=True)
    env = dict(os.environ, CI="1", CODEMINE_CACHE=cache, CODEMINE_SPARK_LOG_LEVEL="ERROR")
    report = out + ".report.json"
    jobs = str(max(1, cores // n))
    t = time.time()
    run([python, SPARK_JOB, "--master", f"local[{n}]", "--manifest", manifest, "--out", out,
         "--binary", binary, "--workers", str(n), "--report", report, "--", "--threads", jobs]
        + extra, env=env)
    total = time.time() - t
    with open(report) as f:
        r = json.load(f)
    return {"mine_s": r.get("mine_seconds"), "cluster_s": r.get("cluster", {}).get("seconds"),
            "finalize_s": r.get("finalize_seconds"), "startup_s": r.get("startup_seconds"),
            "total_s": total, "cluster_report": r.get("cluster")}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--binary", required=True)
    p.add_argument("--repos", type=int, default=240)
    p.add_argument("--functions-per-repo", type=int, default=180)
    p.add_argument("--workers", default="1,2,4")
    p.add_argument("--work", default="/tmp/codemine-bench-scale")
    p.add_argument("--no-spark", action="store_true")
    p.add_argument("--synthetic", type=int, default=0,
                   help="also time the cluster step on synthetic tables of this many functions")
    p.add_argument("--json", help="write the results here")
    p.add_argument("mine_flags", nargs="*", help="extra `codemine mine` flags (after --)")
    a = p.parse_args()
    binary = os.path.abspath(a.binary)
    cores = os.cpu_count() or 1
    workers = [int(x) for x in a.workers.split(",")]
    os.makedirs(a.work, exist_ok=True)
    cache = os.path.join(a.work, "cache")

    t = time.time()
    paths, written = generate(os.path.join(a.work, "repos"), a.repos, a.functions_per_repo)
    gen_s = time.time() - t
    manifest = os.path.join(a.work, "repos.txt")
    with open(manifest, "w") as f:
        f.write("\n".join(paths) + "\n")
    print(f"corpus: {len(paths)} repositories, {written} functions written "
          f"({gen_s:.1f}s to generate); {cores} cores", flush=True)

    results = {"repos": len(paths), "functions_written": written, "cores": cores, "runs": []}
    print(f"{'engine':8} {'N':>2} {'total s':>8} {'mine s':>7} {'cluster s':>9} "
          f"{'final s':>7} {'repos/s':>8} {'funcs/s':>8}  (functions = dedup input)", flush=True)
    reference = None
    for engine in ["plain"] + ([] if a.no_spark else ["spark"]):
        for n in workers:
            out = os.path.join(a.work, f"out-{engine}-{n}")
            if engine == "plain":
                r = plain(binary, manifest, out, n, cores, cache, a.mine_flags)
            else:
                r = spark(sys.executable, binary, manifest, out, n, cores, cache, a.mine_flags)
            funcs = stats_functions(out)
            r.update(engine=engine, workers=n, functions=funcs, csn_rows=functions_mined(out),
                     repos_per_s=len(paths) / r["total_s"],
                     functions_per_s=(funcs or 0) / r["total_s"])
            c = clusters(out)
            if reference is None:
                reference = c
            r["same_clusters_as_first"] = c == reference
            results["runs"].append(r)
            extra = f"  (JVM startup {r['startup_s']:.1f}s)" if r.get("startup_s") else ""
            print(f"{engine:8} {n:>2} {r['total_s']:>8.1f} {r['mine_s']:>7.1f} "
                  f"{r['cluster_s']:>9.1f} {r['finalize_s']:>7.1f} {r['repos_per_s']:>8.2f} "
                  f"{r['functions_per_s']:>8.0f}{extra}"
                  f"{'' if r['same_clusters_as_first'] else '  CLUSTERS DIFFER'}", flush=True)

    # The cluster step alone, on the tables of the last plain run's mining (kept staged).
    staged = os.path.join(a.work, "staged")
    shutil.rmtree(staged, ignore_errors=True)
    env = dict(os.environ, CI="1", CODEMINE_CACHE=cache, CODEMINE_SPARK_LOG_LEVEL="ERROR")
    run([binary, "mine", "--manifest", manifest, "--out", staged, "--rank", "0",
         "--world-size", "1"] + a.mine_flags, env=env)
    rows = band_rows(staged)
    cl = run([binary, "cluster", "--out", staged], env=env)
    rust_clusters = clusters(staged)
    step = {"band_rows": rows, "rust_cluster_s": cl}
    print(f"cluster step on {rows} band rows: codemine cluster {cl:.1f}s", flush=True)
    if not a.no_spark:
        report = os.path.join(a.work, "spark-cluster.json")
        total = run([sys.executable, SPARK_JOB, "--master", f"local[{cores}]", "--out", staged,
                     "--steps", "cluster", "--report", report], env=env)
        with open(report) as f:
            r = json.load(f)
        step.update(spark_cluster_s=r["cluster"]["seconds"], spark_startup_s=r["startup_seconds"],
                    spark_total_s=total, spark_report=r["cluster"],
                    spark_same_as_rust=clusters(staged) == rust_clusters)
        print(f"                                 Spark grouping {r['cluster']['seconds']:.1f}s "
              f"(+ {r['startup_seconds']:.1f}s JVM startup; same clusters: "
              f"{step['spark_same_as_rust']})", flush=True)
    results["cluster_step"] = step

    # A larger cluster step on synthetic tables (examples/spark/synth_tables.py).
    if a.synthetic:
        sys.path.insert(0, os.path.join(HERE, "spark"))
        import synth_tables

        syn = os.path.join(a.work, f"synthetic-{a.synthetic}")
        shutil.rmtree(syn, ignore_errors=True)
        t = time.time()
        synth_tables.write(syn, synth_tables.build(a.synthetic, seed=3), ranks=8)
        rows = band_rows(syn)
        print(f"synthetic tables: {a.synthetic} functions, {rows} band rows "
              f"({time.time() - t:.1f}s to generate)", flush=True)
        cl = run([binary, "cluster", "--out", syn], env=env)
        rust_clusters = clusters(syn)
        point = {"functions": a.synthetic, "band_rows": rows, "rust_cluster_s": cl}
        print(f"cluster step on {rows} band rows: codemine cluster {cl:.1f}s", flush=True)
        if not a.no_spark:
            for cc in ["driver", "spark"]:
                report = os.path.join(a.work, f"spark-synthetic-{cc}.json")
                extra = ["--driver-components-max", "0"] if cc == "spark" else []
                total = run([sys.executable, SPARK_JOB, "--master", f"local[{cores}]",
                             "--out", syn, "--steps", "cluster", "--report", report] + extra,
                            env=env)
                with open(report) as f:
                    r = json.load(f)
                same = clusters(syn) == rust_clusters
                point[f"spark_{cc}_cc"] = {"cluster_s": r["cluster"]["seconds"],
                                           "startup_s": r["startup_seconds"], "total_s": total,
                                           "report": r["cluster"], "same_as_rust": same}
                print(f"                                 Spark grouping ({cc} components) "
                      f"{r['cluster']['seconds']:.1f}s (+ {r['startup_seconds']:.1f}s JVM "
                      f"startup; same clusters: {same})", flush=True)
        results["synthetic_cluster_step"] = point
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Runs codemine on Apache Spark: the executors mine the manifest's shares with the
`codemine` binary, Spark finds the near-duplicate clusters across all of them, and the
driver writes the clusters table and runs `codemine finalize`.

    spark-submit --master yarn --files target/release/codemine \\
        examples/spark/codemine_spark.py \\
        --manifest /shared/repos.txt --out /shared/out --binary codemine --workers 64 \\
        -- --no-history --threads 4

or, on one machine, `python examples/spark/codemine_spark.py --master 'local[2]' ...`.

Steps (`--steps`, default all three):

1. mine: `sc.parallelize(range(N), N)` runs `codemine mine --manifest M --out DIR
   --rank K --world-size N [flags after --]` once per rank K on the executors. A rank
   that fails raises, so Spark retries it, and codemine resumes its finished chunks (a
   rank that an earlier run of the job finished with the same arguments mines nothing
   again). Every rank's marker (`staging/rank-K-of-N.done`) must exist before the next
   step.
2. cluster: the same clusters as `codemine cluster`, computed on Spark from
   `staging/functions-*` and `dedup/bands/` (see `cluster()`), written with pyarrow as
   `dedup/clusters/clusters-00000-of-00001.parquet` (one folder per table).
3. finalize: `codemine finalize --out DIR` on the driver.

DIR, the manifest (and the local repositories it names) must be paths that the driver,
the executors and codemine all reach (local disk in local mode, NFS or a mounted object
store on a cluster). The binary is shipped with `SparkContext.addFile` unless
`--binary-shared` says it is already at that path on every executor.

Function ids and hashes are unsigned 64-bit in the Parquet files; Spark has no such type
(it reads them as decimal(20,0)), so the tables are read with pyarrow inside the tasks
and their uint64 columns reinterpreted as int64 (two's complement, a bijection). Every
Spark operation on them is an equality, a grouping or a choice of a representative that
does not change the result; the keeper rule, which compares ids as unsigned numbers,
runs in Python on the unsigned values.
"""

import argparse
import glob
import json
import math
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import time

U64 = 1 << 64
CLUSTERS_FILE = "clusters-00000-of-00001.parquet"


def log(msg):
    print(f"[codemine-spark] {msg}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------
# Step 1: mining, one codemine process per rank on the executors.


def _executable(path):
    """`path`, made executable when it lost its mode bits (files shipped with addFile may),
    or a private executable copy when it cannot be changed."""
    if os.access(path, os.X_OK):
        return path
    try:
        os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
        return path
    except OSError:
        pass
    private = os.path.join(tempfile.mkdtemp(prefix="codemine-bin-"), os.path.basename(path))
    shutil.copy2(path, private)
    os.chmod(private, os.stat(private).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return private


def marker_path(out, rank, world):
    return os.path.join(out, "staging", f"rank-{rank:05d}-of-{world:05d}.done")


def mine_ranks(spark, args, passthrough):
    """Runs every rank on the executors; returns per-rank reports."""
    sc = spark.sparkContext
    if sc.getConf().get("spark.speculation", "false").lower() == "true":
        raise SystemExit(
            "spark.speculation is on: two copies of one rank would write the same files; "
            "run with --conf spark.speculation=false"
        )
    if args.binary_shared:
        binary_ref, shipped = os.path.abspath(args.binary), False
    else:
        local = os.path.abspath(args.binary)
        if os.path.exists(local):
            sc.addFile(local)
        # else: already shipped with spark-submit --files, looked up by name.
        binary_ref, shipped = os.path.basename(args.binary), True
    out, manifest, world = args.out, args.manifest, args.workers
    jobs = sc.getConf().get("spark.task.cpus", "1")
    flags = list(passthrough)
    if not any(f in ("-j", "--threads") or f.startswith(("--threads=", "-j")) for f in flags):
        flags += ["--threads", jobs]

    def run_rank(rank):
        from pyspark import SparkFiles

        import re

        binary = _executable(SparkFiles.get(binary_ref) if shipped else binary_ref)
        marker = marker_path(out, rank, world)
        # Always run: codemine itself resumes a rank whose earlier run had the same
        # arguments (and mines nothing more when it was complete) and starts over otherwise.
        cmd = [binary, "mine", "--manifest", manifest, "--out", out,
               "--rank", str(rank), "--world-size", str(world)] + flags
        env = dict(os.environ, CI="1")
        t = time.time()
        p = subprocess.run(cmd, capture_output=True, text=True, env=env)
        seconds = time.time() - t
        tail = (p.stderr or "")[-4000:]
        if p.returncode != 0 or not os.path.exists(marker):
            # Raising makes Spark retry the task; codemine resumes where it stopped.
            raise RuntimeError(
                f"rank {rank}/{world} failed (exit {p.returncode}; marker "
                f"{'present' if os.path.exists(marker) else 'missing'}): {' '.join(cmd)}\n{tail}"
            )
        report = {"rank": rank, "seconds": round(seconds, 3), "host": os.uname().nodename}
        done = re.search(r"rank \d+ of \d+: (\d+) repositories mined"
                         r"(?: \((\d+) done by an earlier run\))?", p.stderr or "")
        if done:  # not printed with --quiet
            report["mined"] = int(done.group(1))
            report["resumed"] = int(done.group(2) or 0)
        return report

    t = time.time()
    try:
        reports = sc.parallelize(range(world), world).map(run_rank).collect()
    except Exception as e:  # Py4JJavaError: keep codemine's message, not the Java stack
        text = str(e)
        start = text.find("RuntimeError: rank ")
        if start < 0:
            raise
        end = text.find("\n\tat ", start)
        raise SystemExit("mine step failed: " + text[start + len("RuntimeError: "):end].strip())
    missing = [k for k in range(world) if not os.path.exists(marker_path(out, k, world))]
    if missing:
        raise SystemExit(
            f"ranks {missing} report success but their markers are not under {out}/staging "
            "as the driver sees it: --out must be a path that the driver and every "
            "executor share"
        )
    log(f"mine: {world} ranks in {time.time() - t:.1f}s")
    return reports


# ---------------------------------------------------------------------------------------
# Step 2: the cluster step on Spark.

FUNCTIONS_SCHEMA = (
    "id long, exact_hash binary, shingles array<long>, has_docstring boolean, "
    "has_date boolean, last_commit long, partition string, src int, row long, tag string"
)
BANDS_SCHEMA = "id long, band int, band_hash long, band_tag string"
MEMBERS_SCHEMA = (
    "id long, cluster_id long, duplicate_of long, kind string, partition string"
)


def file_tag(path):
    """The rank and chunk of a staged file, `rK-cC` in `functions-rK-cC-00000-of-00001.parquet`
    (what pairs a functions file with its bands file)."""
    name = os.path.basename(path)
    name = name[name.index("-") + 1:]
    return name[: -len("-00000-of-00001.parquet")]


def _read_functions(batches):
    """mapInArrow: (ordinal, path) in, functions rows out (uint64 reinterpreted as int64),
    with their file's ordinal, row number and rank-chunk tag."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    i64 = pa.int64()
    for files in batches:
        for src, path in zip(files.column(0).to_pylist(), files.column(1).to_pylist()):
            pf = pq.ParquetFile(path)
            cols = ["id", "exact_hash", "shingles", "has_docstring", "last_commit", "partition"]
            row, tag = 0, file_tag(path)
            for b in pf.iter_batches(batch_size=8192, columns=cols):
                date = b.column("last_commit")
                n = b.num_rows
                yield pa.RecordBatch.from_arrays(
                    [
                        pc.cast(b.column("id"), i64, safe=False),
                        pc.cast(b.column("exact_hash"), pa.binary()),
                        pc.cast(b.column("shingles"), pa.list_(i64), safe=False),
                        b.column("has_docstring"),
                        pc.is_valid(date),
                        pc.fill_null(pc.cast(date, i64), 0),
                        pc.cast(b.column("partition"), pa.string()),
                        pa.array([src] * n, pa.int32()),
                        pa.array(range(row, row + n), i64),
                        pa.array([tag] * n, pa.string()),
                    ],
                    names=["id", "exact_hash", "shingles", "has_docstring", "has_date",
                           "last_commit", "partition", "src", "row", "tag"],
                )
                row += n


def _read_bands(batches):
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    for files in batches:
        for path in files.column(1).to_pylist():
            pf = pq.ParquetFile(path)
            tag = file_tag(path)
            for b in pf.iter_batches(batch_size=65536, columns=["id", "band", "band_hash"]):
                yield pa.RecordBatch.from_arrays(
                    [
                        pc.cast(b.column("id"), pa.int64(), safe=False),
                        pc.cast(b.column("band"), pa.int32()),
                        pc.cast(b.column("band_hash"), pa.int64(), safe=False),
                        pa.array([tag] * b.num_rows, pa.string()),
                    ],
                    names=["id", "band", "band_hash", "band_tag"],
                )


def _table(spark, files, reader, schema):
    listing = spark.createDataFrame(list(enumerate(files)), "src int, path string")
    return listing.repartition(max(1, len(files))).mapInArrow(reader, schema)


def near_needed(threshold, total):
    """The shared-shingle count that a Jaccard of `threshold` needs (Rust's early exit)."""
    return max(0, math.ceil(threshold * float(total) / (1.0 + threshold) - 1e-9))


def jaccard_at_least(a, b, threshold):
    """Rust's `jaccard_at_least` on two shingle sets (Python sets)."""
    total = len(a) + len(b)
    if total == 0:
        return False
    shared = len(a & b) if len(a) <= len(b) else len(b & a)
    return shared >= near_needed(threshold, total) and shared / (total - shared) >= threshold


def stars_of(members, threshold):
    """Rust's `stars_of` on one component. `members`: dicts with uid (unsigned id),
    exact (bytes), shingles (set), has_docstring, last_commit (ms or None), partition.
    Returns (member, keeper) index pairs, keepers included."""

    def key(i):
        m = members[i]
        # Rust compares whole seconds (it reads the milliseconds with div_euclid(1000)).
        date = m["last_commit"] // 1000 if m["last_commit"] is not None else None
        # (!has_docstring, Reverse(Option<date>), id): dates descending, unknown last.
        return (not m["has_docstring"], (0, -date) if date is not None else (1, 0), m["uid"])

    remaining = sorted(range(len(members)), key=key)
    out = []
    while remaining:
        keeper, rest = remaining[0], remaining[1:]
        out.append((keeper, keeper))
        k = members[keeper]
        nxt = []
        for i in rest:
            m = members[i]
            near = m["exact"] == k["exact"] or (
                bool(m["shingles"]) and bool(k["shingles"])
                and jaccard_at_least(m["shingles"], k["shingles"], threshold)
            )
            if near:
                out.append((i, keeper))
            else:
                nxt.append(i)
        remaining = nxt
    return out


def _stars_udf(threshold):
    """applyInPandas over a bucket of whole components: the stars of each component.
    (One call per component would cost a pandas frame per component, which dominates when
    most components have two or three members.)"""

    def apply(pdf):
        import pandas as pd

        comp = pdf["component"].tolist()
        ids = pdf["id"].tolist()
        exact = pdf["exact_hash"].tolist()
        shingles = pdf["shingles"].tolist()
        doc = pdf["has_docstring"].tolist()
        has_date = pdf["has_date"].tolist()
        date = pdf["last_commit"].tolist()
        part = pdf["partition"].tolist()
        by_comp = {}
        for i, c in enumerate(comp):
            by_comp.setdefault(c, []).append(i)
        rows = {"id": [], "cluster_id": [], "duplicate_of": [], "kind": [], "partition": []}
        signed = lambda u: u - U64 if u >= 1 << 63 else u  # noqa: E731
        for rows_of in by_comp.values():
            members = [
                {
                    "uid": ids[i] % U64,
                    "exact": bytes(exact[i]),
                    "shingles": set(shingles[i].tolist()) if shingles[i] is not None else set(),
                    "has_docstring": bool(doc[i]),
                    "last_commit": int(date[i]) if has_date[i] else None,
                    "partition": part[i],
                }
                for i in rows_of
            ]
            pairs = stars_of(members, threshold)
            size = {}
            for _, keeper in pairs:
                size[keeper] = size.get(keeper, 0) + 1
            for i, keeper in pairs:
                if size[keeper] < 2:
                    continue
                m, k = members[i], members[keeper]
                rows["id"].append(signed(m["uid"]))
                rows["cluster_id"].append(signed(k["uid"]))
                if i == keeper:
                    rows["duplicate_of"].append(None)
                    rows["kind"].append("keeper")
                else:
                    rows["duplicate_of"].append(signed(k["uid"]))
                    rows["kind"].append("exact" if m["exact"] == k["exact"] else "near")
                rows["partition"].append(k["partition"])
        return pd.DataFrame({
            "id": pd.array(rows["id"], dtype="int64"),
            "cluster_id": pd.array(rows["cluster_id"], dtype="int64"),
            "duplicate_of": pd.array(rows["duplicate_of"], dtype="Int64"),
            "kind": pd.array(rows["kind"], dtype=object),
            "partition": pd.array(rows["partition"], dtype=object),
        })

    return apply


def connected_components(edges, checkpoint):
    """Large-star / small-star (Kiveris et al., "Connected Components in MapReduce and
    Beyond", 2014) on a DataFrame of undirected edges (u, v), u != v. Returns (node, root)
    for every node that has an edge, root being the smallest node of its component."""
    from pyspark.sql import functions as F

    def large_star(e):
        # Each node links its larger neighbours to the smallest of its neighbourhood.
        both = e.union(e.select(F.col("v").alias("u"), F.col("u").alias("v")))
        g = both.groupBy("u").agg(F.collect_set("v").alias("n"))
        low = F.least(F.col("u"), F.array_min("n"))
        return (g.select(F.explode(F.filter("n", lambda x: x > F.col("u"))).alias("x"),
                         low.alias("m"))
                .select(F.col("x").alias("u"), F.col("m").alias("v")).distinct())

    def small_star(e):
        # Each node links itself and its smaller neighbours to the smallest of them.
        down = e.select(F.greatest("u", "v").alias("u"), F.least("u", "v").alias("v"))
        g = down.groupBy("u").agg(F.collect_set("v").alias("n"))
        low = F.array_min("n")
        return (g.select(F.explode(F.array_remove(F.array_union("n", F.array("u")), low))
                         .alias("x"), low.alias("m"))
                .select(F.col("x").alias("u"), F.col("m").alias("v")).distinct())

    e = edges.select("u", "v")
    rounds = 0
    while True:
        rounds += 1
        e = checkpoint(small_star(large_star(e)))
        # Converged when the edges (child u, parent v < u) form stars: one parent per child
        # and no parent with a parent. Each star is then a whole component around its
        # smallest node (the steps keep the components). One shuffle checks both.
        roles = (e.select("u", F.lit(1).alias("child"), F.lit(0).alias("parent"))
                 .union(e.select(F.col("v").alias("u"), F.lit(0).alias("child"),
                                 F.lit(1).alias("parent")))
                 .groupBy("u").agg(F.sum("child").alias("c"), F.sum("parent").alias("p")))
        if roles.where((F.col("c") > 1) | ((F.col("c") > 0) & (F.col("p") > 0))).limit(1).count() == 0:
            break
        if rounds > 100:
            raise RuntimeError("connected components did not converge in 100 rounds")
    roots = e.select("v").distinct().select(F.col("v").alias("node"), F.col("v").alias("root"))
    return e.select(F.col("u").alias("node"), F.col("v").alias("root")).union(roots), rounds


def driver_components(spark, edges):
    """(node, root) for every node with an edge but its component's root, by union-find
    over the collected edges; the root is the component's smallest node, as
    `connected_components` gives it (a node without a row is its own root)."""
    import pandas as pd

    parent = {}

    def find(x):
        root = x
        while parent.get(root, root) != root:
            root = parent[root]
        while parent.get(x, x) != root:  # path compression
            parent[x], x = root, parent[x]
        return root

    for b in edges.toArrow().to_batches():
        for u, v in zip(b.column(0).to_pylist(), b.column(1).to_pylist()):
            ru, rv = find(u), find(v)
            if ru != rv:
                parent[max(ru, rv)] = min(ru, rv)
    nodes = list(parent)
    roots = [find(x) for x in nodes]
    pdf = pd.DataFrame({"node": pd.array(nodes, dtype="int64"),
                        "root": pd.array(roots, dtype="int64")})
    return spark.createDataFrame(pdf, "node long, root long")


def cluster(spark, out, params, tmp_name="_spark_clusters", driver_components_max=1_000_000):
    """Writes DIR/dedup/clusters/clusters-00000-of-00001.parquet from the functions and bands
    tables under DIR; returns a small report."""
    from pyspark import StorageLevel
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    t0 = time.time()
    threshold = float(params["threshold"])
    fn_files = sorted(glob.glob(os.path.join(out, "staging", "functions-*.parquet")))
    band_files = sorted(glob.glob(os.path.join(out, "dedup", "bands", "bands-*.parquet")))
    dedup_dir = os.path.join(out, "dedup", "clusters")
    os.makedirs(dedup_dir, exist_ok=True)
    clear_clusters(out)
    persisted = []

    def keep(df):
        df = df.persist(StorageLevel.MEMORY_AND_DISK)
        persisted.append(df)
        return df

    def checkpoint(df):
        return df.localCheckpoint(eager=True)

    report = {"functions_files": len(fn_files), "bands_files": len(band_files)}
    if not fn_files:
        _write_clusters(dedup_dir, [])
        report.update(functions=0, members=0, seconds=round(time.time() - t0, 3))
        return report

    def phase(name):
        log(f"cluster: {name} at {time.time() - t0:.1f}s")

    funcs = keep(_table(spark, fn_files, _read_functions, FUNCTIONS_SCHEMA))
    # Two ranks can stage functions with one id (a repository listed at two revisions):
    # as in `codemine cluster`, the first in file-name and row order stands, here with the
    # band rows of its own rank and chunk.
    counts = (funcs.groupBy("id").count()
              .agg(F.count("*").alias("ids"), F.sum("count").alias("rows")).collect()[0])
    report["functions"] = int(counts["ids"])
    report["same_id_skipped"] = skipped = int(counts["rows"] or 0) - int(counts["ids"])
    if skipped:
        first = Window.partitionBy("id").orderBy("src", "row")
        funcs = keep(funcs.withColumn("k", F.row_number().over(first)).where("k = 1").drop("k"))
    phase("functions read")

    # 1. Exact groups: one representative per exact hash (which one does not matter: the
    # members have the same tokens, hence the same shingles and band hashes).
    reps = funcs.groupBy("exact_hash").agg(F.min("id").alias("rep"))
    funcs = keep(funcs.join(reps, "exact_hash"))
    rep_sets = keep(funcs.where((F.col("id") == F.col("rep")) & (F.size("shingles") > 0))
                    .select("id", "shingles"))

    # 2. Candidate pairs: representatives sharing a (band, band hash); every pair of a
    # bucket, verified by exact Jaccard as Rust's jaccard_at_least decides it.
    edges = None
    report["candidate_pairs"] = report["near_pairs"] = 0
    if band_files:
        bands = (_table(spark, band_files, _read_bands, BANDS_SCHEMA)
                 .join(funcs.select("id", "rep", "tag"), "id", "left"))
        if skipped:
            bands = bands.where(F.col("rep").isNull() | (F.col("band_tag") == F.col("tag")))
        bands = keep(bands)
        stray = bands.where(F.col("rep").isNull()).limit(1).collect()
        phase("bands read")
        if stray:
            raise SystemExit(
                f"band rows of function {int(stray[0]['id']) % U64:016X}, which no "
                "functions file has")
        b = bands.where(F.col("id") == F.col("rep")).select("id", "band", "band_hash")
        pairs = (b.alias("a").join(b.alias("b"), ["band", "band_hash"])
                 .where(F.col("a.id") < F.col("b.id"))
                 .select(F.col("a.id").alias("u"), F.col("b.id").alias("v")).distinct())
        sa = rep_sets.select(F.col("id").alias("u"), F.col("shingles").alias("sa"))
        sb = rep_sets.select(F.col("id").alias("v"), F.col("shingles").alias("sb"))
        scored = (pairs.join(sa, "u").join(sb, "v")
                  .select("u", "v",
                          F.size(F.array_intersect("sa", "sb")).alias("shared"),
                          (F.size("sa") + F.size("sb")).alias("total")))
        t = F.lit(threshold)
        needed = F.ceil(t * F.col("total").cast("double") / F.lit(1.0 + threshold) - F.lit(1e-9))
        ratio = F.col("shared").cast("double") / (F.col("total") - F.col("shared")).cast("double")
        verified = F.when(F.col("total") > F.col("shared"),
                          (F.col("shared") >= needed) & (ratio >= t)).otherwise(F.lit(False))
        scored = keep(scored.withColumn("ok", verified))
        counts = scored.groupBy().agg(F.count("*").alias("c"),
                                      F.sum(F.col("ok").cast("long")).alias("n")).collect()[0]
        report["candidate_pairs"], report["near_pairs"] = int(counts["c"]), int(counts["n"] or 0)
        phase("pairs verified")
        edges = scored.where("ok").select("u", "v")

    # 3. Components of exact groups joined by verified pairs of their representatives.
    if edges is not None and report["near_pairs"] > 0:
        if report["near_pairs"] <= driver_components_max:
            # Few edges: one union-find on the driver beats any number of Spark rounds.
            cc = driver_components(spark, edges)
            report["components_on"] = "driver"
        else:
            cc, rounds = connected_components(edges, checkpoint)
            report["components_on"] = "spark"
            report["cc_rounds"] = rounds
        phase("components")
        comp = (funcs.join(cc.select(F.col("node").alias("rep"), "root"), "rep", "left")
                .withColumn("component", F.coalesce("root", "rep")).drop("root"))
    else:
        comp = funcs.withColumn("component", F.col("rep"))
    # Component sizes by a window on the component, so that the grouping below reuses its
    # partitioning instead of shuffling the members again.
    members = (comp.withColumn("size", F.count("*").over(Window.partitionBy("component")))
               .where("size >= 2"))

    # 4. Stars around keepers, per component, in Python (the keeper rule compares ids as
    # unsigned numbers), a bucket of whole components per call (about 20,000 functions).
    buckets = max(int(spark.conf.get("spark.sql.shuffle.partitions")),
                  report["functions"] // 20_000)
    result = (members.select(
        "component", "id", "exact_hash", "shingles", "has_docstring", "has_date",
        "last_commit", "partition",
    ).withColumn("bucket", F.pmod(F.xxhash64("component"), F.lit(buckets)))
     .groupBy("bucket").applyInPandas(_stars_udf(threshold), MEMBERS_SCHEMA))

    # Spark's part files go beside the clusters folder, never into it (one folder, one table).
    tmp_dir = os.path.join(out, "dedup", tmp_name)
    shutil.rmtree(tmp_dir, ignore_errors=True)
    result.write.mode("overwrite").parquet(tmp_dir)
    phase("stars")
    parts = sorted(glob.glob(os.path.join(tmp_dir, "*.parquet")))
    n = _write_clusters(dedup_dir, parts)
    shutil.rmtree(tmp_dir, ignore_errors=True)
    for df in persisted:
        df.unpersist()
    report.update(members=n, seconds=round(time.time() - t0, 3))
    return report


def _write_clusters(dedup_dir, parts):
    """Streams Spark's part files into the one clusters file, with codemine's schema
    (uint64 ids), replacing any earlier clusters file. Returns the row count."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pa.schema([
        pa.field("id", pa.uint64(), nullable=False),
        pa.field("cluster_id", pa.uint64(), nullable=False),
        pa.field("duplicate_of", pa.uint64(), nullable=True),
        pa.field("kind", pa.string(), nullable=False),
        pa.field("partition", pa.string(), nullable=False),
    ])
    tmp = os.path.join(dedup_dir, ".clusters.parquet.tmp")
    rows = 0
    with pq.ParquetWriter(tmp, schema, compression="zstd") as w:
        for part in parts:
            for b in pq.ParquetFile(part).iter_batches(batch_size=65536):
                cols = [b.column(name) for name in ("id", "cluster_id", "duplicate_of")]
                arrays = [c.view(pa.uint64()) for c in cols]
                arrays += [b.column("kind").cast(pa.string()), b.column("partition").cast(pa.string())]
                w.write_batch(pa.RecordBatch.from_arrays(arrays, schema=schema))
                rows += b.num_rows
        if rows == 0:
            w.write_table(schema.empty_table())
    for old in glob.glob(os.path.join(dedup_dir, "clusters-*")):
        os.remove(old)
    os.replace(tmp, os.path.join(dedup_dir, CLUSTERS_FILE))
    return rows


def clear_clusters(out):
    """Removes an earlier clusters table and `codemine cluster`'s record of it (finalize
    reports clusters without that record as found by an external engine)."""
    for old in glob.glob(os.path.join(out, "dedup", "clusters", "clusters-*")):
        os.remove(old)
    try:
        os.remove(os.path.join(out, "staging", "cluster-step.json"))
    except FileNotFoundError:
        pass


def read_params(out):
    path = os.path.join(out, "staging", "dedup-params.json")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


# ---------------------------------------------------------------------------------------


def parse_args(argv):
    if "--" in argv:
        k = argv.index("--")
        argv, passthrough = argv[:k], argv[k + 1:]
    else:
        passthrough = []
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="Arguments after -- are passed to every `codemine mine`.")
    p.add_argument("--manifest", help="manifest path that every executor reaches")
    p.add_argument("--out", required=True, help="output folder shared by driver and executors")
    p.add_argument("--binary", default="codemine",
                   help="the codemine binary (shipped to executors unless --binary-shared)")
    p.add_argument("--binary-shared", action="store_true",
                   help="--binary is at the same path on every executor: do not ship it")
    p.add_argument("--workers", type=int, default=1, help="ranks N (world size)")
    p.add_argument("--master", help="Spark master (default: spark-submit's)")
    p.add_argument("--local-memory", default="4g",
                   help="JVM heap in local mode (spark.driver.memory; default 4g)")
    p.add_argument("--steps", default="mine,cluster,finalize",
                   help="comma-separated subset of mine,cluster,finalize")
    p.add_argument("--report", help="write a JSON report of the run to this file")
    p.add_argument("--driver-components-max", type=int, default=1_000_000,
                   help="up to this many verified pairs, connected components are found "
                        "by union-find on the driver (collecting the pairs); above it, by "
                        "large-star/small-star rounds on Spark (0: always on Spark)")
    args = p.parse_args(argv)
    args.steps = [s.strip() for s in args.steps.split(",") if s.strip()]
    bad = set(args.steps) - {"mine", "cluster", "finalize"}
    if bad:
        p.error(f"unknown steps {sorted(bad)}")
    if "mine" in args.steps and not args.manifest:
        p.error("--manifest is required for the mine step")
    if args.workers < 1:
        p.error("--workers must be at least 1")
    args.out = os.path.abspath(args.out)
    if args.manifest:
        args.manifest = os.path.abspath(args.manifest)
    return args, passthrough


def session(master, local_memory="4g"):
    from pyspark.sql import SparkSession

    b = SparkSession.builder.appName("codemine")
    if master:
        b = b.master(master)
    if master and master.startswith("local"):
        # Local Python workers run this interpreter (with pyarrow and pandas) unless told
        # otherwise; on a cluster, spark.pyspark.python or PYSPARK_PYTHON names theirs.
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
        # In local mode the tasks run in the driver's JVM, whose default heap (1g) is too
        # small past about 100,000 functions.
        b = b.config("spark.driver.memory", local_memory)
    b = (b.config("spark.ui.enabled", "false")
         .config("spark.ui.showConsoleProgress", "false")
         .config("spark.sql.execution.arrow.pyspark.enabled", "true"))
    spark = b.getOrCreate()
    sc = spark.sparkContext
    sc.setLogLevel(os.environ.get("CODEMINE_SPARK_LOG_LEVEL", "WARN"))
    if not sc.getConf().contains("spark.sql.shuffle.partitions"):
        # Spark's 200 is for large inputs; twice the cores keeps small runs short. Set
        # --conf spark.sql.shuffle.partitions for large corpora (a few per GB of bands).
        spark.conf.set("spark.sql.shuffle.partitions", str(max(2, 2 * sc.defaultParallelism)))
    return spark


def main(argv=None):
    args, passthrough = parse_args(sys.argv[1:] if argv is None else argv)
    report = {"workers": args.workers, "steps": args.steps}
    t0 = time.time()
    spark = session(args.master, args.local_memory)
    report["spark_version"] = spark.version
    report["startup_seconds"] = round(time.time() - t0, 3)
    try:
        if "mine" in args.steps:
            t = time.time()
            report["ranks"] = mine_ranks(spark, args, passthrough)
            report["mine_seconds"] = round(time.time() - t, 3)
        if "cluster" in args.steps:
            params = read_params(args.out)
            if params is None:
                clear_clusters(args.out)
                log("no staging/dedup-params.json (mined with --no-dedup?): no clusters")
            else:
                report["cluster"] = cluster(spark, args.out, params,
                                            driver_components_max=args.driver_components_max)
                log(f"cluster: {report['cluster']}")
    finally:
        spark.stop()
    if "finalize" in args.steps:
        t = time.time()
        binary = _executable(os.path.abspath(args.binary))
        p = subprocess.run([binary, "finalize", "--out", args.out],
                           env=dict(os.environ, CI="1"))
        if p.returncode != 0:
            raise SystemExit(f"codemine finalize failed (exit {p.returncode})")
        report["finalize_seconds"] = round(time.time() - t, 3)
    report["seconds"] = round(time.time() - t0, 3)
    if args.report:
        with open(args.report, "w") as f:
            json.dump(report, f, indent=1)
    log(f"done in {report['seconds']}s")
    return report


if __name__ == "__main__":
    main()

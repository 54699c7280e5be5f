//! The Spark job (`examples/spark/codemine_spark.py`) in local mode (`local[2]`, pyspark
//! from tests/requirements.txt, the machine's Java 17) against the single-machine binary:
//!
//! - on fixture repositories with exact and near copies planted across repositories that
//!   fall to different ranks, the job (3 ranks mined by Spark tasks, the cluster step on
//!   Spark, `codemine finalize`) writes exactly the CSN, YABLoCo and call-graph rows and
//!   the clusters of a plain `codemine mine`;
//! - on synthetic dedup tables built to hit the corners (ids above 2^63, Jaccard exactly at
//!   the threshold, chains cut into stars, tied and unknown dates, tiny functions, same
//!   shingles under another exact hash, bucket collisions), the Spark grouping writes the
//!   same clusters table as `codemine cluster`.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Instant;

use harness::corpus::{function, statement, statements, Lcg};
use harness::*;
use serde_json::Value;

/// `body` with the statements at `at` replaced by fresh ones.
fn edited(rng: &mut Lcg, body: &[String], at: &[usize]) -> Vec<String> {
    let mut out = body.to_vec();
    for &i in at {
        out[i] = statement(rng, 100 + i);
    }
    out
}

/// Repository names whose partitions (by the default 80/10/10 split) are train and test.
fn train_and_test_names() -> (String, String) {
    use miner::csn::{partition, SplitRatios};
    let find = |want: &str| {
        (0..1000)
            .map(|i| format!("spark{i}"))
            .find(|n| partition(n, SplitRatios::default()).as_str() == want)
            .unwrap()
    };
    (find("train"), find("test"))
}

/// Six repositories (two per rank with 3 ranks: rank = manifest line % 3) with copies
/// planted across ranks; returns their paths in manifest order.
fn corpus(root: &Path) -> Vec<PathBuf> {
    let mut rng = Lcg(20261122);
    let fam: Vec<Vec<String>> = (0..24).map(|_| statements(&mut rng, 16)).collect();
    let (train, test) = train_and_test_names();
    let names = [
        "origin".to_string(),
        "mirror".to_string(),
        "vendor".to_string(),
        train,
        test,
        "extra".to_string(),
    ];
    let mut repos: Vec<RepoBuilder> = names
        .iter()
        .map(|n| RepoBuilder::init(&root.join(n)))
        .collect();
    let doc = |i: usize| format!("Family {i}.");

    // origin (rank 0): families 0..13, a tiny function, the head of a chain.
    let mut src = String::new();
    for (i, body) in fam.iter().enumerate().take(13) {
        src += &function(&format!("family{i}"), Some(&doc(i)), body);
    }
    src += &function("chain", Some("Chain."), &fam[20]);
    repos[0].write("pkg/core.py", &src);
    repos[0].write(
        "pkg/tiny.py",
        "def tiny_a():\n    \"\"\"T.\"\"\"\n    return 1\n",
    );

    // mirror (rank 1): an exact copy of family 0, renamed and swapped copies of 1 and 2, a
    // docstring-less copy of 5 (newest repository: the docstring outranks the date), the
    // tiny function again, and the chain's next link (a quarter of it rewritten).
    let mut renamed = fam[1].clone();
    renamed[4] = renamed[4].replacen('=', "= 0 +", 1);
    let mut swapped = fam[2].clone();
    swapped.swap(3, 8);
    let chain_c = edited(&mut rng, &fam[20], &[2, 7, 12]);
    let mut src = function("family0", Some(&doc(0)), &fam[0]);
    src += &function("family1_renamed", Some("Renamed."), &renamed);
    src += &function("family2_swapped", Some("Swapped."), &swapped);
    src += &function("family5_nodoc", None, &fam[5]);
    src += &function("chain", Some("Chain."), &chain_c);
    repos[1].write("mirror.py", &src);
    repos[1].write(
        "tiny.py",
        "def tiny_a():\n    \"\"\"T.\"\"\"\n    return 1\n",
    );

    // vendor (rank 2): family 3 vendored twice, the chain's last link (far from its head),
    // another exact copy of family 0 without a docstring.
    let chain_d = edited(&mut rng, &chain_c, &[0, 5, 10, 15]);
    repos[2].write(
        "third_party/a/core.py",
        function("family3", Some(&doc(3)), &fam[3]),
    );
    repos[2].write(
        "third_party/b/core.py",
        function("family3", Some(&doc(3)), &fam[3]),
    );
    repos[2].write(
        "chain.py",
        function("chain", Some("Chain."), &chain_d) + &function("family0", None, &fam[0]),
    );

    // train (rank 0) and test (rank 1) repositories: a near copy of family 7 straddles
    // them; family 6 is in both with different dates.
    let near7 = edited(&mut rng, &fam[7], &[2]);
    repos[3].write(
        "straddle.py",
        function("family7_train", Some("Seven."), &fam[7])
            + &function("family6_old", Some("Six."), &fam[6]),
    );
    repos[4].write(
        "straddle.py",
        function("family7_test", Some("Seven."), &near7)
            + &function("family6_new", Some("Six."), &fam[6]),
    );

    // extra (rank 2): new families, and a renamed copy of family 9.
    let mut src = String::new();
    for (i, body) in fam.iter().enumerate().skip(13).take(7) {
        src += &function(&format!("family{i}"), Some(&doc(i)), body);
    }
    let mut renamed9 = fam[9].clone();
    renamed9[0] = renamed9[0].replace('=', "= 1 +");
    src += &function("family9_renamed", Some("Nine."), &renamed9);
    repos[5].write("extra.py", &src);

    let times = [
        1_650_000_000,
        1_800_000_000,
        1_700_000_000,
        1_600_000_000,
        1_700_000_000,
        1_750_000_000,
    ];
    for (r, t) in repos.iter_mut().zip(times) {
        r.set_time(t);
        r.commit("corpus");
    }
    repos.into_iter().map(|r| r.path).collect()
}

/// Runs the Spark job with the venv python; returns its output and wall time.
fn spark_job(args: &[&str]) -> (Output, f64) {
    let job = workspace_root().join("examples/spark/codemine_spark.py");
    let t = Instant::now();
    let out = Command::new(python())
        .arg(job)
        .args(["--master", "local[2]"])
        .args(args)
        .env("CI", "1")
        .env("CODEMINE_SPARK_LOG_LEVEL", "ERROR")
        .output()
        .unwrap();
    (out, t.elapsed().as_secs_f64())
}

fn assert_job_success(out: &Output) {
    assert!(
        out.status.success(),
        "the Spark job failed ({:?}; is pyspark installed and java on PATH? run \
         ./scripts/test.sh)\n--- stdout\n{}\n--- stderr\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn snapshot(out: &Path) -> Value {
    python_json(
        include_str!("../harness/spark_snapshot.py"),
        &[out.to_str().unwrap()],
    )
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn spark_job_keeps_the_same_functions_as_single_machine_mine() {
    let tmp = tempfile::tempdir().unwrap();
    let repos = corpus(&tmp.path().join("repos"));
    let manifest = tmp.path().join("repos.txt");
    let lines: Vec<String> = repos.iter().map(|p| p.display().to_string()).collect();
    fs::write(&manifest, lines.join("\n") + "\n").unwrap();
    let cache = tmp.path().join("cache");
    let (plain, spark) = (tmp.path().join("plain"), tmp.path().join("spark"));

    let res = codemine(
        &[
            "mine",
            "--manifest",
            manifest.to_str().unwrap(),
            "--out",
            plain.to_str().unwrap(),
        ],
        &cache,
    );
    assert_success(&res);

    // The job in two goes: the mine step alone, then the whole job, whose ranks find
    // their work done (codemine resumes them) and which goes on to cluster and finalize.
    let binary = binary();
    let job = |steps: &str, report: &str| {
        spark_job(&[
            "--manifest",
            manifest.to_str().unwrap(),
            "--out",
            spark.to_str().unwrap(),
            "--binary",
            binary.to_str().unwrap(),
            "--workers",
            "3",
            "--steps",
            steps,
            "--report",
            tmp.path().join(report).to_str().unwrap(),
            "--",
            "--cache",
            cache.to_str().unwrap(),
        ])
    };
    let read_report = |name: &str| -> Value {
        serde_json::from_str(&fs::read_to_string(tmp.path().join(name)).unwrap()).unwrap()
    };
    let (res, mine_seconds) = job("mine", "mine.json");
    assert_job_success(&res);
    let (res, seconds) = job("mine,cluster,finalize", "all.json");
    assert_job_success(&res);
    eprintln!(
        "Spark job (local[2], 3 ranks): mine step {mine_seconds:.1} s, whole job {seconds:.1} s"
    );
    // First go: the ranks mine every repository; second go: none again.
    let counts = |name: &str| -> Vec<(u64, u64)> {
        let report = read_report(name);
        let ranks = report["ranks"].as_array().unwrap();
        assert_eq!(ranks.len(), 3, "{report}");
        let mut c: Vec<(u64, u64, u64)> = ranks
            .iter()
            .map(|r| {
                let n = |k: &str| r[k].as_u64().unwrap_or_else(|| panic!("{name}: {r}"));
                (n("rank"), n("mined"), n("resumed"))
            })
            .collect();
        c.sort();
        c.into_iter().map(|(_, m, r)| (m, r)).collect()
    };
    let (first, second) = (counts("mine.json"), counts("all.json"));
    assert_eq!(
        first.iter().map(|c| c.0).sum::<u64>(),
        repos.len() as u64,
        "{first:?}"
    );
    assert!(first.iter().all(|c| c.1 == 0), "{first:?}");
    let redone: Vec<(u64, u64)> = first.iter().map(|c| (0, c.0)).collect();
    assert_eq!(second, redone, "the second go mined again");
    assert!(
        read_report("all.json")["cluster"]["members"]
            .as_u64()
            .unwrap()
            > 0
    );

    let (a, b) = (snapshot(&plain), snapshot(&spark));
    assert_eq!(b["staging_left"], false, "finalize removes staging/");
    assert_eq!(
        b["clusters_files"],
        serde_json::json!(["clusters-00000-of-00001.parquet"])
    );
    assert_eq!(b["clusters_schema"], a["clusters_schema"]);

    // Not a vacuous comparison: exact and near removals, clusters across ranks.
    let clusters = a["clusters"].as_array().unwrap();
    let kinds: Vec<&str> = clusters.iter().map(|c| c[3].as_str().unwrap()).collect();
    assert!(
        kinds.contains(&"exact") && kinds.contains(&"near"),
        "{kinds:?}"
    );
    let rank_of = |id: &str| {
        let repo = a["node_repository"][id].as_str().unwrap();
        let i = repos.iter().position(|p| p.ends_with(repo)).unwrap();
        i % 3
    };
    let across = clusters.iter().any(|c| {
        let (id, keeper) = (c[0].as_str().unwrap(), c[1].as_str().unwrap());
        rank_of(id) != rank_of(keeper)
    });
    assert!(across, "no cluster spans two ranks: {clusters:?}");

    assert_eq!(b["clusters"], a["clusters"], "clusters differ");
    assert_eq!(
        strings(&b["kept_yabloco_ids"]),
        strings(&a["kept_yabloco_ids"]),
        "kept YABLoCo ids differ"
    );
    assert_eq!(
        strings(&b["kept_csn_keys"]),
        strings(&a["kept_csn_keys"]),
        "kept CSN functions differ"
    );
    for table in ["csn", "yabloco", "nodes"] {
        let (x, y) = (strings(&a[table]), strings(&b[table]));
        assert_eq!(x.len(), y.len(), "{table}: row counts differ");
        for (r, s) in x.iter().zip(&y) {
            assert_eq!(r, s, "{table}: rows differ");
        }
    }

    // stats.json: the same dedup counts, the clusters credited to an external engine.
    let (sa, sb) = (stats(&plain), stats(&spark));
    let (da, db) = (&sa["stages"]["dedup"], &sb["stages"]["dedup"]);
    for field in [
        "functions",
        "exact_removed",
        "near_removed",
        "clusters",
        "tiny",
        "cluster_sizes",
        "cluster_members",
    ] {
        assert_eq!(da[field], db[field], "stats.json stages.dedup.{field}");
    }
    assert_eq!(db["clustered_by"], "external");
    assert_eq!(
        sa["stages"]["write"]["csn_rows"],
        sb["stages"]["write"]["csn_rows"]
    );
}

#[test]
fn spark_grouping_matches_codemine_cluster_on_corner_cases() {
    let tmp = tempfile::tempdir().unwrap();
    let (rust, spark) = (tmp.path().join("rust"), tmp.path().join("spark"));
    let synth = workspace_root().join("examples/spark/synth_tables.py");
    for dir in [&rust, &spark] {
        let out = Command::new(python())
            .arg(&synth)
            .arg(dir)
            .args(["--functions", "4000", "--ranks", "3", "--seed", "20261122"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let res = codemine(
        &["cluster", "--out", rust.to_str().unwrap()],
        &tmp.path().join("c"),
    );
    assert_success(&res);
    // Components by large-star/small-star rounds on Spark, not the driver's union-find.
    let (res, seconds) = spark_job(&[
        "--out",
        spark.to_str().unwrap(),
        "--steps",
        "cluster",
        "--driver-components-max",
        "0",
    ]);
    assert_job_success(&res);
    eprintln!("Spark grouping of 4000 synthetic functions (local[2]): {seconds:.1} s");

    let (a, b) = (snapshot(&rust), snapshot(&spark));
    let clusters = a["clusters"].as_array().unwrap();
    assert!(clusters.len() > 1000, "{}", clusters.len());
    let big = clusters
        .iter()
        .filter(|c| c[0].as_str().unwrap().parse::<u64>().unwrap() >= 1 << 63)
        .count();
    assert!(big > 100, "ids above 2^63: {big}");
    assert_eq!(b["clusters_schema"], a["clusters_schema"]);
    assert_eq!(b["clusters"], a["clusters"], "clusters differ");
}

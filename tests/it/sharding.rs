//! Sharded and resumable runs: `mine --rank K --world-size N` for every rank, then
//! `cluster` and `finalize`, must give what a single `mine` gives; a `mine` killed part-way
//! and rerun with the same arguments must give what an uninterrupted run gives. Outputs are
//! compared through pyarrow.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use harness::corpus::corpus;
use harness::*;
use serde_json::Value;

/// A manifest (one path per line) of `repos`.
fn manifest(repos: &[PathBuf], at: &Path) -> PathBuf {
    let text: String = repos.iter().map(|r| format!("{}\n", r.display())).collect();
    fs::write(at, text).unwrap();
    at.to_path_buf()
}

fn run(args: &[&str], cache: &Path) -> std::process::Output {
    codemine(args, cache)
}

/// Ids of a table's rows (CSN rows by url, YABLoCo by meta.id), as a set.
fn yabloco_ids(out: &Path) -> BTreeSet<String> {
    shard_rows(&out.join("yabloco"))
        .iter()
        .map(|r| r["meta"]["id"].to_string())
        .collect()
}

fn csn_keys(out: &Path) -> BTreeSet<String> {
    shard_rows(&out.join("csn"))
        .iter()
        .map(|r| {
            format!(
                "{}|{}|{}|{}",
                r["repo"], r["path"], r["func_name"], r["partition"]
            )
        })
        .collect()
}

fn clusters(out: &Path) -> BTreeSet<String> {
    shard_rows(&out.join("dedup/clusters"))
        .iter()
        .filter(|r| r.get("kind").is_some())
        .map(|r| {
            format!(
                "{} {} {} {}",
                r["id"], r["cluster_id"], r["duplicate_of"], r["kind"]
            )
        })
        .collect()
}

#[test]
fn ranks_then_cluster_then_finalize_equal_one_mine() {
    let tmp = tempfile::tempdir().unwrap();
    let repos = corpus(&tmp.path().join("repos"));
    let cache = tmp.path().join("cache");
    let m = manifest(&repos, &tmp.path().join("repos.txt"));
    let m = m.to_str().unwrap();

    let single = tmp.path().join("single");
    assert_success(&run(
        &["mine", "--manifest", m, "--out", single.to_str().unwrap()],
        &cache,
    ));

    let sharded = tmp.path().join("sharded");
    let out = sharded.to_str().unwrap();
    // Finalizing before every rank is done names the missing rank.
    for rank in ["2", "0"] {
        let res = run(
            &[
                "mine",
                "--manifest",
                m,
                "--out",
                out,
                "--rank",
                rank,
                "--world-size",
                "3",
            ],
            &cache,
        );
        assert_success(&res);
    }
    let res = run(&["finalize", "--out", out], &cache);
    assert_eq!(res.status.code(), Some(1));
    let err = String::from_utf8_lossy(&res.stderr);
    assert!(err.contains("rank 1 of 3 has not finished"), "{err}");
    assert_success(&run(
        &[
            "mine",
            "--manifest",
            m,
            "--out",
            out,
            "--rank",
            "1",
            "--world-size",
            "3",
        ],
        &cache,
    ));
    // Finalizing a dedup run before the cluster step says so.
    let res = run(&["finalize", "--out", out], &cache);
    assert_eq!(res.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&res.stderr).contains("run `codemine cluster` first"));
    // Ranks wrote rank-tagged files: the band table of every rank is there.
    let bands: Vec<String> = fs::read_dir(sharded.join("dedup/bands"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    for rank in ["r00000", "r00001", "r00002"] {
        assert!(
            bands
                .iter()
                .any(|b| b.starts_with(&format!("bands-{rank}-"))),
            "{bands:?}"
        );
    }
    assert_success(&run(&["cluster", "--out", out], &cache));
    assert_success(&run(&["finalize", "--out", out], &cache));

    assert_eq!(yabloco_ids(&single), yabloco_ids(&sharded));
    assert_eq!(csn_keys(&single), csn_keys(&sharded));
    assert_eq!(clusters(&single), clusters(&sharded));
    assert!(!clusters(&single).is_empty());
    let (a, b) = (stats(&single), stats(&sharded));
    for key in [
        "exact_removed",
        "near_removed",
        "clusters",
        "functions",
        "tiny",
        "cluster_sizes",
    ] {
        assert_eq!(
            a["stages"]["dedup"][key], b["stages"]["dedup"][key],
            "{key}"
        );
    }
    assert_eq!(
        a["stages"]["write"]["callgraph_edges"],
        b["stages"]["write"]["callgraph_edges"]
    );
    assert_eq!(
        a["stages"]["source"]["opened"],
        b["stages"]["source"]["opened"]
    );
    assert_eq!(
        a["stages"]["write"]["csn_rows"],
        b["stages"]["write"]["csn_rows"]
    );
    assert!(!sharded.join("staging").exists());
}

#[test]
fn bad_rank_arguments_are_usage_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let out = tmp.path().join("out");
    for args in [
        vec!["--rank", "3", "--world-size", "3"],
        vec!["--rank", "0", "--world-size", "0"],
        vec!["--rank", "0"],
    ] {
        let mut a = vec!["mine", "--repo", ".", "--out", out.to_str().unwrap()];
        a.extend(args.iter().copied());
        let res = run(&a, &cache);
        assert_eq!(
            res.status.code(),
            Some(2),
            "{args:?}: {}",
            String::from_utf8_lossy(&res.stderr)
        );
    }
}

/// Every output table's rows (pyarrow), with the run's timings left out of stats.json.
/// Every shard table's rows as pyarrow reads them, and the counts of [`counts`].
fn everything(out: &Path) -> Value {
    let mut v = shard_tables(out);
    if let (Value::Object(v), Value::Object(c)) = (&mut v, counts(out)) {
        v.extend(c);
    }
    v
}

/// The rows of every shard table, read by pyarrow (one Python process per table).
fn shard_tables(out: &Path) -> Value {
    let mut v = serde_json::Map::new();
    for dir in [
        "csn",
        "yabloco",
        "callgraph/nodes",
        "callgraph/edges",
        "dedup/bands",
        "dedup/clusters",
    ] {
        v.insert(dir.into(), Value::Array(shard_rows(&out.join(dir))));
    }
    Value::Object(v)
}

/// What stats.json and failures.jsonl say of a run, but for timings and the cluster
/// step's own figures.
fn counts(out: &Path) -> Value {
    let mut v = serde_json::Map::new();
    let mut s = stats(out);
    let repos: Vec<Value> = s["repositories"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| serde_json::json!([r["repo"], r["sha"], r["status"], r["totals"], r["funnel"]]))
        .collect();
    v.insert("repositories".into(), Value::Array(repos));
    let stages = s["stages"].as_object_mut().unwrap();
    v.insert("dedup".into(), {
        let mut d = stages["dedup"].clone();
        d.as_object_mut().unwrap().remove("cluster_step");
        d
    });
    v.insert("csn_rows".into(), stages["write"]["csn_rows"].clone());
    v.insert("failures".into(), Value::Array(failures(out)));
    Value::Object(v)
}

#[test]
fn an_interrupted_run_resumes_to_the_same_output() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let mut repos = corpus(&tmp.path().join("corpus"));
    // More repositories, each with a little history, so the run lasts long enough to kill.
    for i in 0..24 {
        let mut r = RepoBuilder::init(&tmp.path().join(format!("extra{i:02}")));
        for c in 0..3 {
            let body: String = (0..30)
                .map(|j| {
                    format!(
                        "def f{j}_{c}(x, y):\n    \"\"\"Function {j} of repository {i}.\"\"\"\n    total = x * {j} + y * {i} - {c}\n    return total + helper_{i}(total)\n\n\n"
                    )
                })
                .collect();
            r.write(&format!("pkg/m{c}.py"), body);
            r.commit("more");
        }
        repos.push(r.path.clone());
    }
    repos.push(tmp.path().join("missing-repository"));
    let m = manifest(&repos, &tmp.path().join("repos.txt"));
    let args = |out: &Path| -> Vec<String> {
        [
            "mine",
            "--manifest",
            m.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "-j",
            "1",
            "--checkpoint-repos",
            "2",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect()
    };

    let whole = tmp.path().join("whole");
    let a: Vec<String> = args(&whole);
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    assert_success(&run(&a, &cache));

    let resumed = tmp.path().join("resumed");
    let b: Vec<String> = args(&resumed);
    kill_after_marks(&b, &cache, &resumed);
    let b: Vec<&str> = b.iter().map(String::as_str).collect();
    let res = run(&b, &cache);
    assert_success(&res);
    let err = String::from_utf8_lossy(&res.stderr);
    assert!(err.contains("resumed:"), "{err}");
    assert_eq!(everything(&whole), everything(&resumed));
    assert!(!resumed.join("staging").exists());

    // Other arguments start over rather than mix two runs.
    let changed = tmp.path().join("changed");
    let c: Vec<String> = args(&changed);
    kill_after_marks(&c, &cache, &changed);
    let mut c: Vec<&str> = c.iter().map(String::as_str).collect();
    c.push("--no-history");
    let res = run(&c, &cache);
    assert_success(&res);
    assert!(!String::from_utf8_lossy(&res.stderr).contains("resumed:"));
    let s = stats(&changed);
    assert_eq!(
        s["stages"]["enrich"]["history"]["dated"], 0,
        "no history: nothing dated"
    );
}

/// Runs codemine with `args` and kills it once three chunks are marked in `out`.
fn kill_after_marks(args: &[String], cache: &Path, out: &Path) {
    let mut child = Command::new(binary())
        .args(args)
        .env("CODEMINE_CACHE", cache)
        .env("CI", "1")
        .spawn()
        .unwrap();
    let staging = out.join("staging");
    let start = Instant::now();
    loop {
        let marks = fs::read_dir(&staging)
            .map(|d| {
                d.flatten()
                    .filter(|e| e.file_name().to_string_lossy().starts_with("chunk-"))
                    .count()
            })
            .unwrap_or(0);
        if marks >= 3 || start.elapsed() > Duration::from_secs(60) {
            break;
        }
        if child.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let killed_early = child.try_wait().unwrap().is_none();
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(killed_early, "the run ended before it could be interrupted");
    assert!(
        !out.join("stats.json").exists(),
        "the killed run did not finish"
    );
}

/// Whole-file bytes of every final shard, by relative path.
fn shard_bytes(out: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files = Vec::new();
    for dir in [
        "csn",
        "yabloco",
        "callgraph/nodes",
        "callgraph/edges",
        "dedup/bands",
        "dedup/clusters",
    ] {
        let mut names: Vec<PathBuf> = fs::read_dir(out.join(dir))
            .map(|d| d.flatten().map(|e| e.path()).collect())
            .unwrap_or_default();
        names.sort();
        for p in names {
            let rel = p.strip_prefix(out).unwrap().to_string_lossy().into_owned();
            files.push((rel, fs::read(&p).unwrap()));
        }
    }
    files
}

/// A run killed at a fault point (`CODEMINE_FAULT=N` aborts at the Nth: each staged chunk,
/// the cluster step, each final table, the card, the staging hand-over and every file of
/// the staging cleanup), then rerun, gives the uninterrupted run's shards byte for byte and
/// its counts; no staging is left. `CODEMINE_FAULT_POINTS=all` tries every point (the
/// larger run of BENCHMARKS.md); by default every point after mining and three during it.
#[test]
fn a_run_killed_at_any_fault_point_reruns_to_the_same_output() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let repos = corpus(&tmp.path().join("repos"));
    let m = manifest(&repos[..repos.len().min(4)], &tmp.path().join("repos.txt"));
    let args = |out: &Path| -> Vec<String> {
        let out = out.to_str().unwrap();
        [
            "mine",
            "--manifest",
            m.to_str().unwrap(),
            "--out",
            out,
            "-j",
            "1",
            "--checkpoint-repos",
            "1",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect()
    };
    let cmd = |out: &Path| {
        let mut c = Command::new(binary());
        c.args(args(out))
            .env("CODEMINE_CACHE", &cache)
            .env("CI", "1");
        c
    };
    let whole = tmp.path().join("whole");
    let res = cmd(&whole)
        .env("CODEMINE_FAULT_TRACE", "1")
        .output()
        .unwrap();
    assert_success(&res);
    let trace = String::from_utf8_lossy(&res.stderr);
    let points: Vec<&str> = trace
        .lines()
        .filter_map(|l| l.strip_prefix("codemine: fault point "))
        .collect();
    let names: Vec<&str> = points
        .iter()
        .filter_map(|p| p.split_once(": ").map(|x| x.1))
        .collect();
    assert!(
        names.contains(&"remove staging file") && names.contains(&"clusters written"),
        "{trace}"
    );
    let mining = names.iter().filter(|n| **n == "chunk staged").count();
    let all = std::env::var("CODEMINE_FAULT_POINTS").is_ok_and(|v| v == "all");
    let chosen: Vec<usize> = (1..=points.len())
        .filter(|&n| all || n > mining || n == 1 || n == mining / 2 + 1 || n == mining)
        .collect();
    // The uninterrupted run's tables as pyarrow reads them, once; after each kill the shards
    // are compared byte for byte (equal bytes are equal rows: the rows are read again only
    // to show a difference), and the counts in full.
    let want = everything(&whole);
    let want_counts = counts(&whole);
    let want_bytes = shard_bytes(&whole);
    for n in chosen {
        let out = tmp.path().join(format!("killed-{n}"));
        let res = cmd(&out)
            .env("CODEMINE_FAULT", n.to_string())
            .output()
            .unwrap();
        assert!(
            !res.status.success(),
            "point {n} ({}) did not stop the run",
            names[n - 1]
        );
        let res = cmd(&out).output().unwrap();
        assert_success(&res);
        assert_eq!(
            counts(&out),
            want_counts,
            "after a kill at point {n} ({})",
            names[n - 1]
        );
        let got = shard_bytes(&out);
        if got != want_bytes {
            assert_eq!(
                everything(&out),
                want,
                "after a kill at point {n} ({})",
                names[n - 1]
            );
        }
        assert_eq!(
            got.iter().map(|f| &f.0).collect::<Vec<_>>(),
            want_bytes.iter().map(|f| &f.0).collect::<Vec<_>>(),
            "point {n}"
        );
        for (g, w) in got.iter().zip(&want_bytes) {
            assert!(
                g.1 == w.1,
                "{} differs after a kill at point {n} ({})",
                g.0,
                names[n - 1]
            );
        }
        assert!(!out.join("staging").exists() && !out.join("staging.removing").exists());
    }
}

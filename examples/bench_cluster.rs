//! Benchmark of the dedup cluster step on large components (issue 22, item 6).
//!
//! Generated code and vendored copies put thousands of near-identical functions into one
//! near-duplicate component. For each size N this driver writes a plain folder of N
//! generated Python functions, mines it once into staging (`codemine mine --rank 0
//! --world-size 1 --no-history`), then times `codemine cluster -j 2` on that staging (the
//! real step: reading the staged tables, clustering, writing `dedup/clusters/clusters-*`). It prints
//! the wall time, the step's own time and pair counts (`staging/cluster-step.json`), and a
//! hash of the clusters table, so two builds can be checked for the same clusters.
//!
//! Shapes (`--shape`):
//! - `renamed`: one template, each copy with its own name, field string and constant (every
//!   pair about 0.8 Jaccard: one big cluster);
//! - `varied`: the same, and each copy also picks one of three variants in six places, so
//!   pairs range from near (0-2 places differ) to far, and the component is cut into many
//!   clusters.
//!
//! ```sh
//! cargo build --release && cargo build --release --example bench_cluster
//! target/release/examples/bench_cluster                    # 5000 20000 40000 100000, both shapes
//! target/release/examples/bench_cluster --shape renamed 100000
//! ```
//! `CODEMINE_BIN` names another codemine binary (to time an older build on the same staging);
//! `BENCH_DIR` sets the scratch folder (default: the system temp folder); it is reused, so a
//! second run skips mining when the staging is already there.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// A tiny deterministic generator (xorshift), so the corpus is the same on every machine.
struct Gen(u64);
impl Gen {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// One generated function: the template with copy `i`'s name, field and constant, and in
/// the `varied` shape one of three variants in each of six places.
fn function(i: usize, varied: bool, g: &mut Gen) -> String {
    let mut v = [0u64; 6];
    if varied {
        for x in &mut v {
            *x = g.below(3);
        }
    }
    let pick = |k: usize, options: [&'static str; 3]| options[v[k] as usize];
    let lookup = pick(0, ["lookup", "find", "resolve"]);
    let enabled = pick(1, ["enabled", "active", "visible"]);
    let emit = pick(2, ["emit", "send", "publish"]);
    let total = pick(3, ["total", "count", "acc"]);
    let log = pick(4, ["debug", "info", "trace"]);
    let status = pick(5, ["ok", "done", "success"]);
    format!(
        "def handler_{i}(request, context):
    \"\"\"Handle request {i} and return the response.\"\"\"
    value = request.get(\"field_{i}\", {c})
    if value is None:
        raise ValueError(\"missing field\")
    result = context.{lookup}(value, default=None)
    for item in result.items:
        if item.{enabled} and item.weight > 0:
            context.{emit}(item.name, item.weight * value)
    {total} = sum(item.weight for item in result.items)
    logger.{log}(\"handled %s with %d items\", value, {total})
    return {{\"status\": \"{status}\", \"total\": {total}, \"value\": value}}


",
        c = 1000 + i
    )
}

fn codemine() -> PathBuf {
    if let Some(bin) = std::env::var_os("CODEMINE_BIN") {
        return bin.into();
    }
    std::env::current_exe()
        .ok()
        .and_then(|p| Some(p.parent()?.parent()?.join("codemine")))
        .expect("target/release/codemine next to target/release/examples")
}

/// Writes the corpus and mines it into staging, unless an earlier run left it there.
fn prepare(root: &Path, n: usize, shape: &str) -> PathBuf {
    let dir = root.join(format!("{shape}-{n}"));
    let out = dir.join("out");
    if out.join("staging").join("dedup-params.json").exists() {
        return out;
    }
    let src = dir.join("corpus");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&src).expect("create the corpus folder");
    let mut g = Gen(0x9E37_79B9_7F4A_7C15 ^ n as u64);
    for (file, start) in (0..n).step_by(1000).enumerate() {
        let text: String = (start..(start + 1000).min(n))
            .map(|i| function(i, shape == "varied", &mut g))
            .collect();
        std::fs::write(src.join(format!("gen_{file:04}.py")), text).expect("write the corpus");
    }
    let t = Instant::now();
    let status = Command::new(codemine())
        .args(["mine", "-q", "-j", "2", "--no-history", "--rank", "0"])
        .args(["--world-size", "1", "--repo"])
        .arg(&src)
        .arg("--out")
        .arg(&out)
        .env("CI", "1")
        .status()
        .expect("run codemine (cargo build --release first)");
    assert!(status.success(), "codemine mine failed");
    eprintln!(
        "mined {n} {shape} functions in {:.1} s",
        t.elapsed().as_secs_f64()
    );
    out
}

fn main() {
    let mut shapes = vec!["renamed", "varied"];
    let mut sizes = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--shape" => {
                let s = args.next().expect("--shape renamed|varied");
                shapes = vec![if s == "varied" { "varied" } else { "renamed" }];
            }
            n => sizes.push(n.parse::<usize>().expect("a size")),
        }
    }
    if sizes.is_empty() {
        sizes = vec![5_000, 20_000, 40_000, 100_000];
    }
    let root = std::env::var_os("BENCH_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join("codemine-bench-cluster"));
    println!("shape    functions  wall s  step s  candidate pairs  near pairs  clusters table");
    for shape in &shapes {
        for &n in &sizes {
            let out = prepare(&root, n, shape);
            let t = Instant::now();
            let status = Command::new(codemine())
                .args(["cluster", "-j", "2", "--out"])
                .arg(&out)
                .status()
                .expect("run codemine cluster");
            let wall = t.elapsed().as_secs_f64();
            assert!(status.success(), "codemine cluster failed");
            let step: serde_json::Value = serde_json::from_slice(
                &std::fs::read(out.join("staging").join("cluster-step.json"))
                    .expect("cluster-step.json"),
            )
            .expect("json");
            let table = std::fs::read(
                out.join("dedup/clusters")
                    .join("clusters-00000-of-00001.parquet"),
            )
            .map(|b| format!("{:016x}", xxhash_rust::xxh3::xxh3_64(&b)))
            .unwrap_or_else(|_| "none".into());
            println!(
                "{shape:<8} {n:>9} {wall:>7.2} {:>7.2} {:>16} {:>11}  {table}",
                step["seconds"].as_f64().unwrap_or(f64::NAN),
                step["candidate_pairs"],
                step["near_pairs"],
            );
        }
    }
}

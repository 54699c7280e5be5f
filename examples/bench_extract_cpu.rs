//! Extraction against bare tree-sitter parsing in thread CPU time (from
//! `/proc/thread-self/schedstat`), one thread, best of 7 rounds: on a machine shared with
//! other work, wall time (`bench_extract`) swings by tens of percent between runs, CPU
//! time much less. Every file of the folder whose extension codemine knows is read.
//!
//! ```sh
//! cargo run --release --example bench_extract_cpu -- /path/to/checkout
//! ```

use miner::csn::{self, RepoContext, SplitRatios};
use miner::extract::{Extractor, Lang};
fn cpu() -> u64 {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").unwrap();
    s.split_whitespace().next().unwrap().parse().unwrap()
}
fn main() {
    let dir = std::env::args()
        .nth(1)
        .expect("usage: bench_extract_cpu DIR");
    let mut files = Vec::new();
    let mut stack = vec![std::path::PathBuf::from(dir)];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                if !p.ends_with(".git") {
                    stack.push(p);
                }
            } else if p.extension().is_some_and(|x| x == "php") {
                if let Ok(t) = std::fs::read_to_string(&p) {
                    files.push(t);
                }
            }
        }
    }
    let ctx = RepoContext {
        repo: "b/c",
        sha: Some("0"),
        url_base: Some("https://github.com/".into()),
        partition: csn::partition("b/c", SplitRatios::default()),
    };
    let mut ex = Extractor::default();
    let (mut bare, mut ext) = (u64::MAX, u64::MAX);
    for _ in 0..7 {
        let t = cpu();
        for f in &files {
            std::hint::black_box(ex.parse(Lang::Php, f).unwrap());
        }
        bare = bare.min(cpu() - t);
        let t = cpu();
        for f in &files {
            let out = ex.extract(Lang::Php, f).unwrap();
            let rows: Vec<_> = out
                .functions
                .into_iter()
                .filter_map(|g| csn::row(&ctx, "f", Lang::Php, g))
                .collect();
            std::hint::black_box(rows);
        }
        ext = ext.min(cpu() - t);
    }
    println!(
        "{} files: bare parse {:.3} s cpu, extract {:.3} s cpu = {:.0}% of bare parse",
        files.len(),
        bare as f64 / 1e9,
        ext as f64 / 1e9,
        100.0 * bare as f64 / ext as f64
    );
}

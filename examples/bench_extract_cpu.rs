//! Extraction against bare tree-sitter parsing in thread CPU time (from
//! `/proc/thread-self/schedstat`), one thread, best of 7 rounds, per language: on a machine
//! shared with other work, wall time (`bench_extract`) swings by tens of percent between
//! runs, CPU time much less. Every file of the folders whose extension codemine knows is
//! read (`.git` skipped); `.tsx` files get the TSX grammar, as in the pipeline.
//!
//! ```sh
//! cargo run --release --example bench_extract_cpu -- [--repeat N] /path/to/checkout [more folders]
//! ```
//!
//! `--repeat N` times N passes over a language's files per round (default 1): a small
//! corpus (41 PHP files parse in 16 ms) then gives a figure a millisecond of noise moves less.

use std::collections::BTreeMap;

// The allocator of the `codemine` binary (src/main.rs), whose extraction this measures:
// extraction allocates a string or vector per function, call site and local, and glibc's
// malloc costs several points of the ratio more than jemalloc does.
#[cfg(not(target_env = "msvc"))]
#[global_allocator]
static GLOBAL: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

use miner::csn::{self, RepoContext, SplitRatios};
use miner::extract::Extractor;
use miner::lang::{Lang, Registry};

fn cpu() -> u64 {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").expect("schedstat");
    s.split_whitespace()
        .next()
        .and_then(|n| n.parse().ok())
        .expect("schedstat field")
}

fn main() {
    let mut dirs: Vec<String> = std::env::args().skip(1).collect();
    let mut repeat = 1usize;
    if dirs.first().is_some_and(|a| a == "--repeat") {
        repeat = dirs
            .get(1)
            .and_then(|n| n.parse().ok())
            .expect("--repeat N");
        dirs.drain(..2);
    }
    assert!(
        !dirs.is_empty(),
        "usage: bench_extract_cpu [--repeat N] DIR..."
    );
    // Per language: (path, text).
    let mut files: BTreeMap<Lang, Vec<(String, String)>> = BTreeMap::new();
    let mut stack: Vec<std::path::PathBuf> = dirs.iter().map(Into::into).collect();
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("folder") {
            let p = e.expect("entry").path();
            if p.is_dir() {
                if !p.ends_with(".git") {
                    stack.push(p);
                }
                continue;
            }
            let path = p.to_string_lossy().into_owned();
            if let (Some(lang), Ok(t)) = (Lang::from_path(&path), std::fs::read_to_string(&p)) {
                if t.len() < 1 << 20 {
                    files.entry(lang).or_default().push((path, t));
                }
            }
        }
    }
    let ctx = RepoContext {
        repo: "b/c",
        sha: Some("0"),
        url_base: Some("https://github.com/".into()),
        partition: csn::partition("b/c", SplitRatios::default()),
        names: Default::default(),
    };
    let mut ex = Extractor::default();
    for (lang, files) in &files {
        let bytes: usize = files.iter().map(|(_, t)| t.len()).sum();
        let (mut bare, mut ext) = (u64::MAX, u64::MAX);
        for _ in 0..7 {
            let t = cpu();
            for (path, text) in files.iter().cycle().take(files.len() * repeat) {
                std::hint::black_box(ex.parse_path(*lang, path, text).expect("parse"));
            }
            bare = bare.min(cpu() - t);
            let t = cpu();
            for (path, text) in files.iter().cycle().take(files.len() * repeat) {
                let out = ex.extract_path(*lang, path, text).expect("extract");
                let rows: Vec<_> = out
                    .functions
                    .into_iter()
                    .filter_map(|g| csn::row(&ctx, "f", *lang, g))
                    .collect();
                std::hint::black_box(rows);
            }
            ext = ext.min(cpu() - t);
        }
        println!(
            "{:<11} {:>5} files {:>6.2} MB{}: bare parse {:.3} s cpu, extract {:.3} s cpu = {:.0}% of bare parse",
            lang.name(),
            files.len(),
            bytes as f64 / 1e6,
            if repeat > 1 {
                format!(" x{repeat}")
            } else {
                String::new()
            },
            bare as f64 / 1e9,
            ext as f64 / 1e9,
            100.0 * bare as f64 / ext as f64
        );
    }
}

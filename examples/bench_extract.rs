//! Benchmark of the extract stage (issue: foundation). For a corpus given by path (any git
//! repository or folder) or a generated corpus, it reports in one run:
//! - bare tree-sitter parsing of every file, one thread (the reference throughput);
//! - extraction (parse, walk, docstrings, tokens, CSN rows) with one and two threads;
//! - the real `codemine mine` binary end to end on the same corpus: wall time, files/s,
//!   MB/s, functions/s and peak memory (from stats.json);
//! - with `--generate`, the end-to-end run at 1/4, 1/2 and the full corpus size, to show
//!   that peak memory stays flat as the corpus grows.
//!
//! ```sh
//! cargo run --release --example bench_extract -- --generate 60      # 60 MB generated
//! cargo run --release --example bench_extract -- --path /path/to/repo
//! CODEMINE_BENCH_DIR=/tmp/b cargo run --release --example bench_extract -- --generate 120  # keep corpus and outputs
//! ```

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use harness::RepoBuilder;
use miner::csn::{self, RepoContext, SplitRatios};
use miner::extract::Extractor;
use miner::lang::Lang;
use miner::source::{self, parse_repo_arg, SourceOptions};
use rayon::prelude::*;

struct Corpus {
    files: Vec<(Lang, String)>,
    bytes: usize,
}

fn load(specs: &[String]) -> Corpus {
    let opts = SourceOptions {
        cache_dir: std::env::temp_dir().join("codemine-bench-cache"),
        offline: true,
        depth: None,
    };
    let mut files = Vec::new();
    for s in specs {
        let spec = parse_repo_arg(s).expect("repository argument");
        let snap = source::open(&spec, &opts).unwrap_or_else(|e| panic!("{s}: {e}"));
        let reader = snap.reader().expect("reader");
        for f in &snap.files {
            let Ok(bytes) = reader.read(f, 1 << 20) else {
                continue;
            };
            if let Ok(text) = String::from_utf8(bytes) {
                if !text.as_bytes()[..text.len().min(8000)].contains(&0) {
                    files.push((f.lang, text));
                }
            }
        }
    }
    let bytes = files.iter().map(|(_, t)| t.len()).sum();
    Corpus { files, bytes }
}

fn best_of<T>(n: usize, mut f: impl FnMut() -> T) -> (f64, T) {
    let mut best = f64::MAX;
    let mut out = None;
    for _ in 0..n {
        let t = Instant::now();
        let r = f();
        best = best.min(t.elapsed().as_secs_f64());
        out = Some(r);
    }
    (best, out.expect("at least one run"))
}

fn extract_all(corpus: &Corpus) -> usize {
    let ctx = RepoContext {
        repo: "bench/corpus",
        sha: Some("0"),
        url_base: Some("https://github.com/".into()),
        partition: csn::partition("bench/corpus", SplitRatios::default()),
        names: Default::default(),
    };
    corpus
        .files
        .par_iter()
        .map_init(Extractor::default, |ex, (lang, text)| {
            let out = ex.extract(*lang, text).expect("grammar loads");
            let n = out.functions.len();
            let rows: Vec<_> = out
                .functions
                .into_iter()
                .filter_map(|f| csn::row(&ctx, "f", *lang, f))
                .collect();
            std::hint::black_box(rows);
            n
        })
        .sum()
}

fn in_process(corpus: &Corpus) {
    let mb = corpus.bytes as f64 / 1e6;
    let n = corpus.files.len() as f64;
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("pool");
    let two = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .expect("pool");
    let (bare, _) = best_of(2, || {
        let mut ex = Extractor::default();
        for (lang, text) in &corpus.files {
            std::hint::black_box(ex.parse(*lang, text).expect("grammar loads"));
        }
    });
    let (x1, funcs) = best_of(2, || one.install(|| extract_all(corpus)));
    let (x2, _) = best_of(2, || two.install(|| extract_all(corpus)));
    println!(
        "corpus: {} files, {:.1} MB, {} functions",
        corpus.files.len(),
        mb,
        funcs
    );
    println!(
        "bare parse, 1 thread : {:6.2} s  {:7.0} files/s  {:6.2} MB/s",
        bare,
        n / bare,
        mb / bare
    );
    println!(
        "extract,    1 thread : {:6.2} s  {:7.0} files/s  {:6.2} MB/s  {:8.0} functions/s  = {:.0}% of bare parse",
        x1,
        n / x1,
        mb / x1,
        funcs as f64 / x1,
        100.0 * bare / x1
    );
    println!(
        "extract,    2 threads: {:6.2} s  {:7.0} files/s  {:6.2} MB/s  {:8.0} functions/s  = {:.2}x one thread",
        x2,
        n / x2,
        mb / x2,
        funcs as f64 / x2,
        x1 / x2
    );
}

fn end_to_end(specs: &[String], out: &Path, label: &str) {
    let bin = std::env::current_exe()
        .expect("exe")
        .parent()
        .and_then(|d| d.parent())
        .expect("target dir")
        .join("codemine");
    let mut cmd = Command::new(&bin);
    cmd.args(["mine", "-q", "-j", "2", "--out"])
        .arg(out)
        .env("CI", "1");
    for s in specs {
        cmd.args(["--repo", s]);
    }
    let t = Instant::now();
    let status = cmd
        .status()
        .unwrap_or_else(|e| panic!("{}: {e} (cargo build --release)", bin.display()));
    let wall = t.elapsed().as_secs_f64();
    assert!(status.success(), "codemine failed");
    let stats: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("stats.json")).expect("stats"))
            .expect("json");
    let x = &stats["stages"]["extract"];
    let mb = x["bytes"].as_f64().unwrap_or(0.0) / 1e6;
    let files = x["files"].as_f64().unwrap_or(0.0);
    let funcs = x["functions"].as_f64().unwrap_or(0.0);
    let rss = stats["peak_rss_bytes"].as_f64().unwrap_or(0.0) / 1e6;
    println!(
        "codemine mine -j 2 {label:>10}: {wall:6.2} s  {:7.0} files/s  {:6.2} MB/s  {:8.0} functions/s  peak RSS {rss:6.1} MB  ({mb:.1} MB, {} repos)",
        files / wall,
        mb / wall,
        funcs / wall,
        specs.len()
    );
}

/// A tiny deterministic generator (xorshift), so the corpus is the same on every machine.
struct Gen(u64);
impl Gen {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[(self.next() % xs.len() as u64) as usize]
    }
    fn ident(&mut self) -> String {
        const W: &[&str] = &[
            "load", "parse", "value", "index", "buffer", "count", "node", "item", "cache", "token",
            "size", "state", "read", "write", "merge", "scan",
        ];
        format!("{}_{}{}", self.pick(W), self.pick(W), self.next() % 100)
    }
    fn sentence(&mut self) -> String {
        const W: &[&str] = &[
            "Returns", "the", "number", "of", "items", "in", "a", "buffer", "after", "merging",
            "each", "node", "with", "its", "parent", "cache", "entry", "and", "value",
        ];
        (0..6 + self.next() % 10)
            .map(|_| self.pick(W))
            .collect::<Vec<_>>()
            .join(" ")
            + "."
    }
}

fn gen_python(g: &mut Gen, funcs: usize) -> String {
    let mut s = String::from("import os\n\n\n");
    for i in 0..funcs {
        let (name, a) = (g.ident(), g.ident());
        if i % 4 == 0 {
            s += &format!("class C{i}:\n    def {name}(self, {a}):\n");
        } else {
            s += &format!("def {name}({a}, limit=10):\n");
        }
        let ind = if i % 4 == 0 { "        " } else { "    " };
        if g.next() % 10 < 7 {
            s += &format!(
                "{ind}\"\"\"{}\n\n{ind}{}\n{ind}\"\"\"\n",
                g.sentence(),
                g.sentence()
            );
        }
        for _ in 0..3 + g.next() % 12 {
            let v = g.ident();
            s += &match g.next() % 4 {
                0 => format!("{ind}{v} = [x * 2 for x in range({a}) if x % 3]\n"),
                1 => format!(
                    "{ind}if {a} > {}:\n{ind}    {a} = os.path.join(str({a}), \"{v}\")\n",
                    g.next() % 50
                ),
                2 => format!(
                    "{ind}for {v} in range(limit):\n{ind}    {a} += {v} ** 2  # accumulate\n"
                ),
                _ => format!("{ind}{v} = {{\"key\": {a}, \"n\": len(str({a}))}}\n"),
            };
        }
        s += &format!("{ind}return {a}\n\n\n");
    }
    s
}

fn gen_java(g: &mut Gen, funcs: usize, class: &str) -> String {
    let mut s = format!("package org.bench;\n\nimport java.util.*;\n\npublic class {class} {{\n");
    for _ in 0..funcs {
        let (name, a) = (g.ident().replace('_', ""), g.ident().replace('_', ""));
        if g.next() % 10 < 7 {
            s += &format!(
                "    /**\n     * {}\n     *\n     * @param {a} {}\n     */\n",
                g.sentence(),
                g.sentence()
            );
        }
        s += &format!("    public static int {name}(int {a}, List<String> names) {{\n");
        for _ in 0..3 + g.next() % 12 {
            let v = g.ident().replace('_', "");
            s += &match g.next() % 4 {
                0 => format!("        int {v} = {a} * {} + names.size();\n", g.next() % 99),
                1 => format!("        if ({a} > {}) {{\n            {a} -= \"{v}\".length();\n        }}\n", g.next() % 50),
                2 => format!("        for (String {v} : names) {{\n            {a} += {v}.hashCode() % 7;\n        }}\n"),
                _ => format!("        Map<String, Integer> {v} = new HashMap<>();\n        {v}.put(\"k\", {a});\n"),
            };
        }
        s += &format!("        return {a};\n    }}\n\n");
    }
    s + "}\n"
}

fn gen_c(g: &mut Gen, funcs: usize) -> String {
    let mut s = String::from("#include <stdio.h>\n#include <string.h>\n\n");
    for _ in 0..funcs {
        let (name, a) = (g.ident(), g.ident());
        if g.next() % 10 < 7 {
            s += &format!("/*\n * {}\n * {}\n */\n", g.sentence(), g.sentence());
        }
        s += &format!("static int {name}(int {a}, const char *buf, size_t len)\n{{\n");
        for _ in 0..3 + g.next() % 12 {
            let v = g.ident();
            s += &match g.next() % 4 {
                0 => format!("    int {v} = {a} * {} + (int)len;\n", g.next() % 99),
                1 => format!("    if ({a} > {}) {{\n        {a} -= (int)strlen(buf);\n    }}\n", g.next() % 50),
                2 => format!("    for (size_t {v} = 0; {v} < len; {v}++) {{\n        {a} += buf[{v}] % 7;\n    }}\n"),
                _ => format!("    printf(\"%d {v}\\n\", {a});\n"),
            };
        }
        s += &format!("    return {a};\n}}\n\n");
    }
    s
}

/// Generates `repos` git repositories of about `mb_per_repo` MB each under `dir`.
fn generate(dir: &Path, repos: usize, bytes_per_repo: usize, seed: u64) -> Vec<String> {
    let mut g = Gen(seed | 1);
    let mut out = Vec::new();
    for r in 0..repos {
        let path = dir.join(format!("gen{r:04}"));
        let mut b = RepoBuilder::init(&path);
        let mut size = 0;
        let mut i = 0;
        while size < bytes_per_repo {
            let funcs = 5 + (g.next() % 40) as usize;
            let (name, text) = match i % 3 {
                0 => (format!("pkg/m{i}.py"), gen_python(&mut g, funcs)),
                1 => (
                    format!("src/org/bench/K{i}.java"),
                    gen_java(&mut g, funcs, &format!("K{i}")),
                ),
                _ => (format!("csrc/f{i}.c"), gen_c(&mut g, funcs)),
            };
            size += text.len();
            b.write(&name, text);
            i += 1;
        }
        b.commit("generated");
        out.push(path.display().to_string());
    }
    out
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let tmp = tempfile::tempdir().expect("tempdir");
    // CODEMINE_BENCH_DIR keeps the corpus and the outputs there (to time later steps on them).
    let kept = std::env::var_os("CODEMINE_BENCH_DIR").map(std::path::PathBuf::from);
    let tmp = kept.as_deref().unwrap_or(tmp.path());
    match args.first().map(String::as_str) {
        Some("--path") => {
            let specs: Vec<String> = args[1..].to_vec();
            let corpus = load(&specs);
            in_process(&corpus);
            end_to_end(&specs, &tmp.join("out"), "corpus");
        }
        Some("--generate") => {
            let mb: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(60);
            let per_repo = 500_000;
            let repos = (mb * 1_000_000).div_ceil(per_repo);
            let t = Instant::now();
            let specs = generate(tmp, repos, per_repo, 0x5eed);
            println!(
                "generated {repos} repositories of ~{per_repo} bytes in {:.1} s",
                t.elapsed().as_secs_f64()
            );
            let corpus = load(&specs);
            in_process(&corpus);
            for (i, frac) in [(4, "1/4"), (2, "1/2"), (1, "all")] {
                let n = specs.len() / i;
                end_to_end(&specs[..n], &tmp.join(format!("out{i}")), frac);
            }
        }
        _ => {
            eprintln!("usage: bench_extract --generate MB | --path REPO_OR_DIR...");
            std::process::exit(2);
        }
    }
}

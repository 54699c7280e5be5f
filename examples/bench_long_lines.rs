//! Benchmark of very large source files (issue 22, item 5): generates a 50 MB C file
//! written on a single line (small functions one after the other, as minified or
//! generated code is) and a 20 MB Python file with 100,000 functions, mines each with
//! `codemine mine --max-file-bytes 100M -j 2`, and reports wall time and peak memory (the
//! `peak_rss_bytes` that codemine writes to stats.json, Linux `VmHWM`) against the
//! issue's target: the long-line file under 1 GB.
//!
//! ```sh
//! cargo build --release && cargo build --release --example bench_long_lines
//! target/release/examples/bench_long_lines                 # both files
//! target/release/examples/bench_long_lines --c-mb 5        # a smaller C file
//! CODEMINE_BIN=/path/to/other/codemine target/release/examples/bench_long_lines
//! ```

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

/// Writes `dir/big.c`: `bytes` of C on one line, then a newline. Function `fN` calls
/// `fN-1` and one of seven externals, with a comment before it (on the same line, so it is
/// no docstring).
fn long_line_c(dir: &Path, bytes: usize) -> usize {
    std::fs::create_dir_all(dir).expect("folder");
    let file = std::fs::File::create(dir.join("big.c")).expect("big.c");
    let mut out = std::io::BufWriter::new(file);
    let (mut written, mut n, mut s) = (0, 0usize, String::new());
    while written < bytes {
        s.clear();
        let _ = write!(
            s,
            "/* Adds {n}. */ static int f{n}(int a, int b) {{ int c = a + b * {n}; return f{}(c, a) + g{}(b); }} ",
            n.saturating_sub(1),
            n % 7
        );
        out.write_all(s.as_bytes()).expect("write");
        written += s.len();
        n += 1;
    }
    out.write_all(b"\n").expect("write");
    out.flush().expect("flush");
    n
}

/// Writes `dir/big.py`: `functions` documented functions of about 200 bytes each.
fn many_functions_py(dir: &Path, functions: usize) -> usize {
    std::fs::create_dir_all(dir).expect("folder");
    let file = std::fs::File::create(dir.join("big.py")).expect("big.py");
    let mut out = std::io::BufWriter::new(file);
    let mut s = String::new();
    let mut written = 0;
    for n in 0..functions {
        s.clear();
        let _ = write!(
            s,
            "def f{n}(a, b):\n    \"\"\"Adds {n} to a and returns the sum of both.\"\"\"\n    c = a + b * {n}\n    d = [c, a, b, {n}]\n    e = {{\"c\": c, \"d\": d}}\n    return f{}(c, a) + g{}(b) + len(d) + len(e)\n\n\n",
            n.saturating_sub(1),
            n % 7
        );
        out.write_all(s.as_bytes()).expect("write");
        written += s.len();
    }
    out.flush().expect("flush");
    written
}

/// Runs `codemine mine` on `repo`; (seconds, peak RSS bytes, functions, CSN rows).
fn mine(repo: &Path, out: &Path) -> (f64, u64, u64, u64) {
    let _ = std::fs::remove_dir_all(out);
    let t = Instant::now();
    let res = Command::new(harness::binary())
        .args(["mine", "--repo"])
        .arg(repo)
        .arg("--out")
        .arg(out)
        .args(["--max-file-bytes", "100M", "-j", "2", "--quiet"])
        .env("CI", "1")
        .env("CODEMINE_CACHE", out.with_extension("cache"))
        .output()
        .expect("run codemine");
    let secs = t.elapsed().as_secs_f64();
    assert!(
        res.status.success(),
        "codemine failed: {}",
        String::from_utf8_lossy(&res.stderr)
    );
    let stats = harness::stats(out);
    let peak = stats["peak_rss_bytes"].as_u64().unwrap_or(0);
    // The extract totals are flattened into stages.extract.
    let functions = stats["stages"]["extract"]["functions"]
        .as_u64()
        .unwrap_or(0);
    let rows: u64 = stats["stages"]["write"]["csn_rows"]
        .as_object()
        .map(|m| m.values().filter_map(|v| v.as_u64()).sum())
        .unwrap_or(0);
    (secs, peak, functions, rows)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flag = |name: &str, default: usize| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .map_or(default, |v| v.parse().expect("a number"))
    };
    let c_mb = flag("--c-mb", 50);
    let py_functions = flag("--py-functions", 100_000);
    let tmp = tempfile::tempdir().expect("temp dir");
    println!("codemine: {}", harness::binary().display());

    let c_dir = tmp.path().join("longline");
    let n = long_line_c(&c_dir, c_mb * 1_000_000);
    let (secs, peak, functions, rows) = mine(&c_dir, &tmp.path().join("out-c"));
    let mb = peak as f64 / 1e6;
    println!(
        "long-line C  {c_mb:>3} MB, 1 line, {n} functions: {secs:7.1} s  peak RSS {mb:8.1} MB  ({functions} functions, {rows} CSN rows)  target < 1000 MB: {}",
        if mb < 1000.0 { "met" } else { "NOT met" }
    );

    let py_dir = tmp.path().join("manyfuncs");
    let bytes = many_functions_py(&py_dir, py_functions);
    let (secs, peak, functions, rows) = mine(&py_dir, &tmp.path().join("out-py"));
    println!(
        "Python       {:>3} MB, {py_functions} functions:     {secs:7.1} s  peak RSS {:8.1} MB  ({functions} functions, {rows} CSN rows)",
        bytes / 1_000_000,
        peak as f64 / 1e6
    );
}

//! Detection speed of codemine-pii (BENCHMARKS.md, "Personal data and secrets (issue 37):
//! detection speed"): MB/s of `Detector::scan` over the source files of folders, one text
//! per file as the mining step scans one text per row, and over generated text with no
//! trigger. One thread; best of `--runs` (default 5).
//!
//! ```text
//! cargo run --release -p codemine-pii --example bench_pii -- [--runs N] [--list] DIR...
//! ```
//! `--list` prints every finding (file, line, kind) instead of timing, for the
//! agreement check by hand.

use std::path::{Path, PathBuf};
use std::time::Instant;

use codemine_pii::{Detector, PiiConfig};

/// The languages codemine mines, by extension.
const EXTENSIONS: &[&str] = &[
    "py", "java", "c", "h", "cc", "cpp", "hpp", "cxx", "go", "js", "mjs", "ts", "tsx", "php", "rb",
];

fn source_files(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            let Ok(t) = e.file_type() else { continue };
            if t.is_dir() {
                stack.push(p);
            } else if t.is_file()
                && p.extension()
                    .and_then(|x| x.to_str())
                    .is_some_and(|x| EXTENSIONS.contains(&x))
            {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Words of ordinary code that hold no trigger (no `@`, no `://`, no keyword, no digit).
fn no_trigger_text(bytes: usize) -> String {
    const WORDS: &[&str] = &[
        "let", "value", "return", "if", "else", "for", "while", "index", "count", "buffer",
        "length", "result", "node", "next", "parent", "child", "self", "this", "function", "class",
        "struct", "match", "case", "break", "(", ")", "{", "}", ";", "=", "+", "-", "*", ".", ",",
        "[", "]",
    ];
    let mut s = String::with_capacity(bytes + 64);
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut col = 0;
    while s.len() < bytes {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let w = WORDS[(x % WORDS.len() as u64) as usize];
        s.push_str(w);
        col += w.len() + 1;
        if col > 80 {
            s.push('\n');
            col = 0;
        } else {
            s.push(' ');
        }
    }
    s
}

fn time(detector: &Detector, texts: &[String], runs: usize) -> (f64, usize) {
    let bytes: usize = texts.iter().map(String::len).sum();
    let mut best = f64::INFINITY;
    let mut findings = 0;
    for _ in 0..runs {
        let t = Instant::now();
        findings = 0;
        for text in texts {
            match detector.scan(text) {
                Ok(f) => findings += f.len(),
                Err(e) => eprintln!("skipped a text: {e}"),
            }
        }
        best = best.min(t.elapsed().as_secs_f64());
    }
    (bytes as f64 / 1e6 / best, findings)
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut runs = 5;
    if let Some(i) = args.iter().position(|a| a == "--runs") {
        runs = args.get(i + 1).and_then(|n| n.parse().ok()).unwrap_or(5);
        args.drain(i..(i + 2).min(args.len()));
    }
    let list = args.iter().any(|a| a == "--list");
    args.retain(|a| a != "--list");
    let detector = match Detector::new(&PiiConfig::default()) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    for dir in &args {
        let files = source_files(Path::new(dir));
        let texts: Vec<String> = files
            .iter()
            .filter_map(|p| std::fs::read(p).ok())
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .collect();
        if list {
            for (p, text) in files.iter().zip(&texts) {
                for f in detector.scan(text).unwrap_or_default() {
                    let line = text[..f.start].matches('\n').count() + 1;
                    println!("{}\t{line}\t{}", p.display(), f.kind);
                }
            }
            continue;
        }
        let bytes: usize = texts.iter().map(String::len).sum();
        let (mbs, n) = time(&detector, &texts, runs);
        println!(
            "{dir}: {} files, {:.1} MB, {mbs:.0} MB/s, {n} findings",
            texts.len(),
            bytes as f64 / 1e6
        );
    }
    if !list {
        // 64 texts of 1 MiB (one text is limited to 16 MiB).
        let one = no_trigger_text(1 << 20);
        let texts = vec![one; 64];
        let (mbs, n) = time(&detector, &texts, runs);
        println!("generated text without triggers: 64 x 1 MiB, {mbs:.0} MB/s, {n} findings");
    }
}

//! Parse throughput (docstrings per second, one thread) over a corpus of JSON lines
//! `{"language": "...", "text": "..."}`, such as the one the agreement benchmark saves
//! (`agreement.py --save-corpus FILE`), by language and in total.
//!
//! ```sh
//! cargo run --release -p codemine-docstring --example bench_docstrings -- corpus.jsonl [ROUNDS]
//! ```

use std::collections::BTreeMap;
use std::time::Instant;

use codemine_docstring::{parse, Language};

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: bench_docstrings CORPUS.jsonl [ROUNDS]");
        std::process::exit(2);
    };
    let rounds: usize = args.next().and_then(|r| r.parse().ok()).unwrap_or(5);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        eprintln!("bench_docstrings: {path}: {e}");
        std::process::exit(2);
    });
    let mut by_language: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for line in text.lines() {
        let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        let lang = v["language"].as_str().unwrap_or("other").to_string();
        let doc = v["text"].as_str().unwrap_or("").to_string();
        by_language.entry(lang).or_default().push(doc);
    }
    println!("| language | docstrings | MB | docstrings/s | MB/s |");
    println!("|---|---|---|---|---|");
    let (mut all_n, mut all_bytes, mut all_secs) = (0usize, 0usize, 0f64);
    for (lang, docs) in &by_language {
        let language = Language::from_name(lang);
        let bytes: usize = docs.iter().map(String::len).sum();
        let mut found = 0usize;
        let start = Instant::now();
        for _ in 0..rounds {
            for d in docs {
                found += parse(d, language).params.len();
            }
        }
        let secs = start.elapsed().as_secs_f64() / rounds as f64;
        std::hint::black_box(found);
        all_n += docs.len();
        all_bytes += bytes;
        all_secs += secs;
        println!(
            "| {lang} | {} | {:.2} | {:.0} | {:.1} |",
            docs.len(),
            bytes as f64 / 1e6,
            docs.len() as f64 / secs,
            bytes as f64 / 1e6 / secs
        );
    }
    println!(
        "| all | {all_n} | {:.2} | {:.0} | {:.1} |",
        all_bytes as f64 / 1e6,
        all_n as f64 / all_secs,
        all_bytes as f64 / 1e6 / all_secs
    );
}

//! Benchmark of the decontamination check (issue 18): N generated functions against M
//! generated benchmark items, the index built once, every function's parser tokens reduced
//! to match tokens (`miner::benchmark::match_tokens`: content tokens, no comments, canonical
//! literals) and checked, as `codemine mine --decontaminate` does per function.
//!
//! Token streams come from a deterministic generator (xorshift): items of 20 to 200 content
//! tokens over a vocabulary of 20,000 identifiers, keywords and literals, with punctuation
//! between them; functions of 10 to 150 content tokens. Of the functions, 1 in 1,000 holds
//! an item verbatim inside other code (an exact match), 1 in 1,000 is an item with one token
//! in every 40 renamed (a near match at the defaults when no 13-token run survives, else
//! exact), and the rest are random (a match among them is a false positive of the index).
//! Functions are generated on the fly from their index, so memory stays flat; the time to
//! generate them alone is measured and reported separately.
//!
//! ```sh
//! cargo build --release --example bench_decontam
//! target/release/examples/bench_decontam                 # 1,000,000 functions, 10,000 items
//! target/release/examples/bench_decontam 200000 2000     # N functions, M items
//! ```
//! Threads: `BENCH_THREADS` (default: the machine's cores).

use std::time::Instant;

use codemine_filters::decontam::{BenchItem, DecontamParams, Index, MatchKind};
use miner::benchmark::match_tokens;
use miner::lang::{Lang, Registry};

/// xorshift64: the same streams on every machine.
struct Gen(u64);
impl Gen {
    fn new(seed: u64) -> Self {
        // Spread small seeds over the state; never 0.
        Gen(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
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

const KEYWORDS: [&str; 12] = [
    "def", "return", "if", "else", "for", "in", "while", "not", "and", "None", "True", "self",
];
const PUNCT: [&str; 8] = ["(", ")", ":", ",", ".", "=", "[", "]"];

/// A content token: a keyword (1 in 4), a number (1 in 20) or one of 20,000 identifiers,
/// the low ones more often (a rough Zipf shape).
fn token(g: &mut Gen) -> String {
    match g.below(20) {
        0..=4 => KEYWORDS[g.below(KEYWORDS.len() as u64) as usize].to_string(),
        5 => g.below(100).to_string(),
        _ => {
            let r = g.below(20_000);
            format!("name{}", r * r / 20_000)
        }
    }
}

fn stream(g: &mut Gen, len: usize) -> Vec<String> {
    (0..len).map(|_| token(g)).collect()
}

/// Parser tokens as the extractor gives them: content tokens with punctuation between.
fn with_punctuation(content: &[String], g: &mut Gen) -> Vec<String> {
    let mut out = Vec::with_capacity(content.len() * 2);
    for t in content {
        out.push(t.clone());
        if g.below(2) == 0 {
            out.push(PUNCT[g.below(PUNCT.len() as u64) as usize].to_string());
        }
    }
    out
}

fn item_tokens(k: usize) -> Vec<String> {
    let mut g = Gen::new(1_000_000_007 + k as u64);
    let len = 20 + g.below(181) as usize;
    stream(&mut g, len)
}

/// What function `i` is: 0 random, 1 holds item `k` verbatim, 2 a renamed copy of it.
fn plan(i: usize, items: usize) -> (u8, usize) {
    match i % 1000 {
        0 => (1, (i / 1000) % items),
        500 => (2, (i / 1000) % items),
        _ => (0, 0),
    }
}

fn function(i: usize, items: usize) -> Vec<String> {
    let mut g = Gen::new(i as u64 + 1);
    let content = match plan(i, items) {
        (1, k) => {
            let mut c = stream(&mut g, 5);
            c.extend(item_tokens(k));
            c.extend(stream(&mut g, 5));
            c
        }
        (2, k) => item_tokens(k)
            .into_iter()
            .enumerate()
            .map(|(j, t)| {
                if j % 40 == 20 {
                    format!("{t}_renamed")
                } else {
                    t
                }
            })
            .collect(),
        _ => {
            let len = 10 + g.below(141) as usize;
            stream(&mut g, len)
        }
    };
    with_punctuation(&content, &mut g)
}

#[derive(Default)]
struct Counts {
    tokens: u64,
    exact_planted: u64,
    near_planted: u64,
    renamed_as_exact: u64,
    missed: u64,
    false_positives: u64,
}

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.replace(['_', ','], "").parse().expect("a number"))
        .collect();
    let n = args.first().copied().unwrap_or(1_000_000);
    let m = args.get(1).copied().unwrap_or(10_000);
    let threads = std::env::var("BENCH_THREADS")
        .ok()
        .and_then(|t| t.parse().ok())
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |p| p.get()));

    let t = Instant::now();
    let items: Vec<BenchItem> = (0..m)
        .map(|k| BenchItem {
            benchmark: "generated".into(),
            id: k.to_string(),
            tokens: item_tokens(k),
        })
        .collect();
    let item_tokens_total: usize = items.iter().map(|i| i.tokens.len()).sum();
    let index = Index::build(items, &DecontamParams::default());
    let build = t.elapsed().as_secs_f64();

    let run = |check: bool| -> (f64, Counts) {
        let t = Instant::now();
        let parts: Vec<Counts> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..threads)
                .map(|w| {
                    let index = &index;
                    s.spawn(move || {
                        let mut c = Counts::default();
                        for i in (w..n).step_by(threads) {
                            let f = function(i, m);
                            c.tokens += f.len() as u64;
                            if !check {
                                continue;
                            }
                            let toks =
                                match_tokens(Some(Lang::Python), f.iter().map(String::as_str));
                            let found = index.check(&toks);
                            match (plan(i, m), found) {
                                ((1, k), Some(x))
                                    if x.item == k.to_string() && x.kind == MatchKind::Exact =>
                                {
                                    c.exact_planted += 1
                                }
                                ((2, k), Some(x)) if x.item == k.to_string() => match x.kind {
                                    MatchKind::Near => c.near_planted += 1,
                                    MatchKind::Exact => c.renamed_as_exact += 1,
                                },
                                ((0, _), Some(_)) => c.false_positives += 1,
                                ((0, _), None) => {}
                                _ => c.missed += 1,
                            }
                        }
                        c
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("worker"))
                .collect()
        });
        let mut total = Counts::default();
        for p in parts {
            total.tokens += p.tokens;
            total.exact_planted += p.exact_planted;
            total.near_planted += p.near_planted;
            total.renamed_as_exact += p.renamed_as_exact;
            total.missed += p.missed;
            total.false_positives += p.false_positives;
        }
        (t.elapsed().as_secs_f64(), total)
    };
    let (gen_only, _) = run(false);
    let (with_check, c) = run(true);
    let planted = n.div_ceil(1000);
    println!("functions {n}, items {m} ({item_tokens_total} item tokens), threads {threads}");
    println!("index build: {build:.2} s");
    println!(
        "generate only: {gen_only:.2} s; generate + match tokens + check: {with_check:.2} s; \
         check: {:.2} s ({:.0} functions/s; {} parser tokens)",
        with_check - gen_only,
        n as f64 / (with_check - gen_only).max(1e-9),
        c.tokens
    );
    println!(
        "planted verbatim: {} of {planted} found exact; planted renamed: {} near, {} exact; \
         missed: {}; matches among random functions: {}",
        c.exact_planted, c.near_planted, c.renamed_as_exact, c.missed, c.false_positives
    );
}

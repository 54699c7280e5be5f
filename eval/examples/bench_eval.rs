//! Benchmark of `codemine eval`'s metrics (issue 6): scores N generated examples (100,000 by
//! default) with every metric, prints examples/s per metric, then times the Python
//! reference implementations on the same data in the same run (eval/examples/bench_eval.py,
//! with the packages of tests/requirements.txt) and prints both side by side with their
//! aggregate scores.
//!
//! Summarization examples are docstring-like sentences (4–30 words from a 3,000-word
//! vocabulary with a Zipf-like skew, some punctuation) and a prediction that edits the
//! reference; generation examples are code bodies (2–30 lines, ~400 characters on
//! average) and a prediction with a few character edits.
//!
//! ```sh
//! cargo run --release -p codemine-eval --example bench_eval            # 100,000 examples
//! cargo run --release -p codemine-eval --example bench_eval -- 20000 --no-python
//! ```

use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;

use codemine_eval::metric::{scorer, Batch, METRICS};
use codemine_eval::Task;

/// xorshift64*: a fixed-seed generator, so every run scores the same data.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    /// Zipf-like: small indices much more often.
    fn skewed(&mut self, n: usize) -> usize {
        let u = (self.next() >> 11) as f64 / (1u64 << 53) as f64;
        ((n as f64).powf(u) as usize).saturating_sub(1).min(n - 1)
    }
}

fn vocabulary(rng: &mut Rng) -> Vec<String> {
    let syll = [
        "re", "turn", "val", "ue", "get", "set", "con", "fig", "par", "se", "str", "ing", "list",
        "er", "ed", "s", "ize", "ation", "file", "path", "node", "key",
    ];
    let mut v: Vec<String> = [
        "the", "a", "of", "to", "returns", "the", "given", "if", "is", "and", "for", "in", "this",
        "an", "or",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    while v.len() < 3000 {
        let n = 1 + rng.below(3);
        v.push((0..n).map(|_| syll[rng.below(syll.len())]).collect());
    }
    v
}

fn sentence(rng: &mut Rng, vocab: &[String]) -> String {
    let n = 4 + rng.below(27);
    let mut out = String::new();
    for i in 0..n {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(&vocab[rng.skewed(vocab.len())]);
        if rng.below(12) == 0 {
            out.push_str([".", ",", "()", ":"][rng.below(4)]);
        }
    }
    out
}

fn edit_words(rng: &mut Rng, s: &str, vocab: &[String]) -> String {
    let mut w: Vec<String> = s.split(' ').map(str::to_string).collect();
    for _ in 0..1 + rng.below(4) {
        match rng.below(3) {
            0 if w.len() > 1 => {
                let i = rng.below(w.len());
                w.remove(i);
            }
            1 => {
                let i = rng.below(w.len() + 1);
                w.insert(i, vocab[rng.skewed(vocab.len())].clone());
            }
            _ => {
                let i = rng.below(w.len());
                w[i] = vocab[rng.skewed(vocab.len())].clone();
            }
        }
    }
    w.join(" ")
}

const LINES: &[&str] = &[
    "    if (x == NULL) {",
    "        return -1;",
    "    }",
    "    for (int i = 0; i < n; i++) {",
    "        total += values[i] * weight;",
    "    result = compute(a, b, c)",
    "    return self.cache.get(key, default)",
    "    System.out.println(message);",
    "    String name = user.getName();",
    "    // check the bounds first",
    "    buf[len] = '\\0';",
    "    raise ValueError(\"bad input: %s\" % value)",
];

fn code(rng: &mut Rng) -> String {
    let n = 2 + rng.below(29);
    let mut s = String::from("def f(a, b):\n");
    for _ in 0..n {
        s.push_str(LINES[rng.below(LINES.len())]);
        s.push('\n');
    }
    s
}

fn edit_chars(rng: &mut Rng, s: &str) -> String {
    let mut c: Vec<char> = s.chars().collect();
    for _ in 0..1 + rng.below(8) {
        let i = rng.below(c.len() + 1);
        match rng.below(3) {
            0 if i < c.len() => {
                c.remove(i);
            }
            1 => c.insert(i, ['x', ' ', '(', 'é', '\n'][rng.below(5)]),
            _ if i < c.len() => c[i] = 'q',
            _ => {}
        }
    }
    c.into_iter().collect()
}

/// `$CODEMINE_PYTHON`, else the workspace's `.venv`, else `python3` (as the tests).
fn python() -> PathBuf {
    if let Some(p) = std::env::var_os("CODEMINE_PYTHON") {
        return PathBuf::from(p);
    }
    let venv = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../.venv/bin/python");
    if venv.exists() {
        venv
    } else {
        PathBuf::from("python3")
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let n: usize = args.iter().find_map(|a| a.parse().ok()).unwrap_or(100_000);
    let with_python = !args.iter().any(|a| a == "--no-python");
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let vocab = vocabulary(&mut rng);
    let t = Instant::now();
    let mut s_refs = Vec::with_capacity(n);
    let mut s_preds = Vec::with_capacity(n);
    let mut g_refs = Vec::with_capacity(n);
    let mut g_preds = Vec::with_capacity(n);
    for i in 0..n {
        let r = sentence(&mut rng, &vocab);
        s_preds.push(if i % 10 == 0 {
            r.clone()
        } else {
            edit_words(&mut rng, &r, &vocab)
        });
        s_refs.push(r);
        let c = code(&mut rng);
        g_preds.push(if i % 10 == 0 {
            c.clone()
        } else {
            edit_chars(&mut rng, &c)
        });
        g_refs.push(c);
    }
    let chars: usize = g_refs.iter().map(|c| c.len()).sum();
    println!(
        "generated {n} summarization and {n} generation examples in {:.1} s (code bodies: {:.0} bytes on average)",
        t.elapsed().as_secs_f64(),
        chars as f64 / n as f64
    );
    println!("rayon threads: {}", rayon::current_num_threads());

    let langs = vec![None; n];
    let mut rust = Vec::new();
    for m in METRICS {
        let (p, r) = match m.task {
            Task::Summarization => (&s_preds, &s_refs),
            Task::Generation => (&g_preds, &g_refs),
        };
        let s = scorer(m.name).expect("registered metric");
        let all: Vec<usize> = (0..n).collect();
        let t = Instant::now();
        let scores = s
            .score(&Batch {
                predictions: p,
                references: r,
                languages: &langs,
            })
            .expect("score");
        let value = scores.aggregate(&all);
        let secs = t.elapsed().as_secs_f64();
        rust.push((m.name, secs, value));
    }

    let mut py: Option<serde_json::Value> = None;
    if with_python {
        let dir = tempfile::tempdir().expect("temp dir");
        let data = dir.path().join("bench.json");
        let pairs = |p: &[String], r: &[String]| -> Vec<(String, String)> {
            p.iter().cloned().zip(r.iter().cloned()).collect()
        };
        let json = serde_json::json!({
            "summarization": pairs(&s_preds, &s_refs),
            "generation": pairs(&g_preds, &g_refs),
        });
        std::fs::write(&data, serde_json::to_vec(&json).expect("json")).expect("write");
        let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/bench_eval.py");
        let out = Command::new(python())
            .arg(script)
            .arg(&data)
            .output()
            .expect("python");
        if out.status.success() {
            py = serde_json::from_slice(&out.stdout).ok();
        } else {
            eprintln!(
                "python references failed:\n{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }

    println!(
        "\n{:<20} {:>9} {:>13}   {:>9} {:>13} {:>8}   {:>12} {:>12}",
        "metric",
        "rust s",
        "examples/s",
        "python s",
        "examples/s",
        "speedup",
        "rust score",
        "py score"
    );
    for (name, secs, value) in rust {
        let (ps, pv) = py
            .as_ref()
            .and_then(|p| p.get(name))
            .map(|v| {
                (
                    v["seconds"].as_f64().unwrap_or(f64::NAN),
                    v["score"].as_f64().unwrap_or(f64::NAN),
                )
            })
            .unwrap_or((f64::NAN, f64::NAN));
        println!(
            "{name:<20} {secs:>9.3} {:>13.0}   {ps:>9.2} {:>13.0} {:>7.0}x   {value:>12.6} {pv:>12.6}",
            n as f64 / secs,
            n as f64 / ps,
            ps / secs
        );
    }
}

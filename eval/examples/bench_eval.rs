//! Benchmark of `codemine eval`'s metrics (issue 6): scores N generated examples (100,000 by
//! default) with every metric, prints examples/s per metric, then times the Python
//! reference implementations on the same data in the same run (eval/examples/bench_eval.py,
//! with the packages of tests/requirements.txt) and prints both side by side with their
//! aggregate scores.
//!
//! Summarization examples are docstring-like sentences (4–30 words from a 3,000-word
//! vocabulary with a Zipf-like skew, some punctuation) and a prediction that edits the
//! reference; generation examples are valid Python functions (3–31 lines, blocks nested up
//! to 3 deep) and a prediction with a few token edits (one in ten also with character edits
//! that break the syntax).
//!
//! The generation examples are Python, which CodeBLEU parses as such. CodeBLEU's four
//! component metrics are left out: alone, each costs what `codebleu` costs (asked together,
//! the family shares one parse). The `codebleu` package is timed on the first
//! `--codebleu-python M` examples (default 2,000; it runs at a few hundred examples/s), its
//! time scaled to N, and both scores of that row are of those M examples.
//!
//! ```sh
//! cargo run --release -p codemine-eval --example bench_eval            # 100,000 examples
//! cargo run --release -p codemine-eval --example bench_eval -- 20000 --no-python
//! ```

#[path = "../tests/it/support.rs"]
mod support;

use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;
use support::python;

use codemine_eval::metric::{scorers, Batch, MetricConfig, METRICS};
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

/// Simple statements of generated Python bodies (`{v}`, `{w}`: identifiers, `{k}`: a
/// number).
const STATEMENTS: &[&str] = &[
    "{v} = compute({w}, {k})",
    "{v} += {w}[{k}] * weight",
    "result.append({v})",
    "{v} = self.cache.get({w}, None)",
    "log.debug(\"value: %s\", {v})",
    "raise ValueError(\"bad input: %s\" % {v})",
    "{v}, {w} = {w}, {v} + {k}",
    "return {v} + {k}",
    "{v} = [x * {k} for x in {w} if x]",
    "{v} = {{\"name\": {w}, \"size\": {k}}}",
];

/// Block openers; their bodies are indented one level deeper.
const BLOCKS: &[&str] = &[
    "if {v} > {k}:",
    "for {v} in range({w}):",
    "while {v} < {k}:",
    "with open({v}) as {w}:",
    "elif {v} is None:",
];

const NAMES: &[&str] = &[
    "a", "b", "total", "count", "item", "key", "value", "node", "path", "size", "index", "data",
];

fn fill(rng: &mut Rng, template: &str) -> String {
    let v = NAMES[rng.below(NAMES.len())];
    let w = NAMES[rng.below(NAMES.len())];
    template
        .replace("{v}", v)
        .replace("{w}", w)
        .replace("{k}", &rng.below(100).to_string())
        .replace("{{", "{")
        .replace("}}", "}")
}

/// A syntactically valid Python function of 3-31 lines, with blocks nested up to 3 deep.
fn code(rng: &mut Rng) -> String {
    let n = 2 + rng.below(29);
    let mut s = String::from("def f(a, b):\n");
    let mut depth = 1;
    let mut open = false;
    for i in 0..n {
        let last = i + 1 == n;
        if !open && depth > 1 && rng.below(3) == 0 {
            depth -= 1;
        }
        let indent = "    ".repeat(depth);
        if !last && depth < 4 && rng.below(4) == 0 {
            // `elif` only right after an `if` body; elsewhere it becomes an `if`.
            let t = BLOCKS[rng.below(BLOCKS.len())].replace("elif", "if");
            s.push_str(&format!("{indent}{}\n", fill(rng, &t)));
            depth += 1;
            open = true;
        } else {
            let t = STATEMENTS[rng.below(STATEMENTS.len())];
            s.push_str(&format!("{indent}{}\n", fill(rng, t)));
            open = false;
        }
    }
    s
}

/// A model-like prediction: 1-4 token edits (a renamed variable, another number or
/// operator, a dropped or repeated line); one in ten also has 1-8 character edits, which
/// usually break the syntax.
fn edit_code(rng: &mut Rng, s: &str) -> String {
    let mut lines: Vec<String> = s.lines().map(str::to_string).collect();
    for _ in 0..1 + rng.below(4) {
        let i = 1 + rng.below(lines.len() - 1);
        match rng.below(4) {
            0 => {
                let from = NAMES[rng.below(NAMES.len())];
                let to = NAMES[rng.below(NAMES.len())];
                lines[i] = lines[i].replacen(from, to, 1);
            }
            1 => lines[i] = lines[i].replacen('+', "-", 1).replacen('>', "<", 1),
            2 if lines.len() > 2 => {
                lines.remove(i);
            }
            _ => {
                let l = lines[i].clone();
                lines.insert(i, l);
            }
        }
    }
    let mut out = lines.join("\n");
    out.push('\n');
    if rng.below(10) == 0 {
        edit_chars(rng, &out)
    } else {
        out
    }
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

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let n: usize = args.iter().find_map(|a| a.parse().ok()).unwrap_or(100_000);
    let with_python = !args.iter().any(|a| a == "--no-python");
    let codebleu_py: usize = args
        .iter()
        .position(|a| a == "--codebleu-python")
        .and_then(|i| args.get(i + 1)?.parse().ok())
        .unwrap_or(2_000)
        .min(n);
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
            edit_code(&mut rng, &c)
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

    let no_langs = vec![None; n];
    let python_langs = vec![Some("python".to_string()); n];
    let mut rust = Vec::new();
    for m in METRICS {
        if m.name.starts_with("codebleu_") {
            continue;
        }
        let (p, r, langs) = match m.task {
            Task::Summarization => (&s_preds, &s_refs, &no_langs),
            Task::Generation => (&g_preds, &g_refs, &python_langs),
        };
        let s = match scorers(&[m.name], &MetricConfig::default()) {
            Ok(mut s) => s.remove(0),
            // meteor without a WordNet on this machine.
            Err(e) => {
                println!("{}: skipped: {e}", m.name);
                continue;
            }
        };
        let all: Vec<usize> = (0..n).collect();
        let t = Instant::now();
        let scores = s
            .score(&Batch {
                predictions: p,
                references: r,
                languages: langs,
                codes: &[],
            })
            .expect("score");
        let secs = t.elapsed().as_secs_f64();
        // The package's CodeBLEU runs on a prefix: compare the scores of that prefix.
        let rows: Vec<usize> = if m.name == "codebleu" {
            (0..codebleu_py).collect()
        } else {
            all
        };
        rust.push((m.name, secs, scores.aggregate(&rows)));
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
            "codebleu_examples": codebleu_py,
            "wordnet": codemine_eval::wordnet::discover().ok(),
        });
        std::fs::write(&data, serde_json::to_vec(&json).expect("json")).expect("write");
        let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/bench_eval.py");
        let out = Command::new(python())
            .arg(script)
            .arg(&data)
            // CodeBLEU's data-flow match depends on the string hash seed; ours reproduces 0.
            .env("PYTHONHASHSEED", "0")
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

    if let Some(syn) = py.as_ref().and_then(|p| p.get("_syntax")) {
        println!(
            "generated Python that ast.parse rejects: {} of {} references, {} predictions",
            syn["references_not_parsing"], syn["examples"], syn["predictions_not_parsing"]
        );
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

//! Benchmark of the six BLEU variants of Shi et al. (issue 23) against the script that
//! defines them, CodeSumEvaluation's `metrics/evaluate.py`, run as is on the same files in
//! the same run (it needs nltk, numpy and prettytable; its code comes from
//! `$CODEMINE_CODESUM_DIR` or a cached clone, see tests/it/support.rs).
//!
//! Writes N generated examples (100,000 by default; docstring-like sentences of 1–30 words
//! from a skewed 3,000-word vocabulary and a prediction that edits the reference, a few
//! empty or one-word) as `test.gold` / `test.pred`, then times codemine (reading the files
//! and scoring all six) and `python evaluate.py` on them, and prints both tables.
//! `--rq` also scores the repository's own predictions (RQ1 and `metrics/test`) both ways.
//!
//! ```sh
//! cargo run --release -p codemine-eval --example bench_bleu               # 100,000 examples
//! cargo run --release -p codemine-eval --example bench_bleu -- 20000 --rq
//! ```

#[path = "../tests/it/support.rs"]
mod support;

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use codemine_eval::metric::{scorers, Batch, MetricConfig, BLEU_ALL};

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
    fn skewed(&mut self, n: usize) -> usize {
        let u = (self.next() >> 11) as f64 / (1u64 << 53) as f64;
        ((n as f64).powf(u) as usize).saturating_sub(1).min(n - 1)
    }
}

fn generate(n: usize) -> (Vec<String>, Vec<String>) {
    let mut rng = Rng(0x5eed_b1e0);
    let syll = [
        "re", "turn", "val", "ue", "get", "set", "con", "fig", "par", "se", "str", "ing", "list",
        "er", "ed", "s", "node", "key", "file", "path",
    ];
    let mut vocab: Vec<String> = ["the", "a", "of", "to", "returns", ".", ",", "if", "is"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    while vocab.len() < 3000 {
        let k = 1 + rng.below(3);
        vocab.push((0..k).map(|_| syll[rng.below(syll.len())]).collect());
    }
    let mut preds = Vec::with_capacity(n);
    let mut refs = Vec::with_capacity(n);
    for _ in 0..n {
        let len = 1 + rng.below(30);
        let r: Vec<&str> = (0..len).map(|_| vocab[rng.skewed(3000)].as_str()).collect();
        let mut p = r.clone();
        for _ in 0..rng.below(len / 2 + 2) {
            let i = rng.below(p.len().max(1));
            match rng.below(4) {
                0 if !p.is_empty() => {
                    p.remove(i);
                }
                1 if !p.is_empty() => p[i] = vocab[rng.skewed(3000)].as_str(),
                2 => p.insert(i.min(p.len()), vocab[rng.skewed(3000)].as_str()),
                _ => {}
            }
        }
        if rng.below(200) == 0 {
            p.clear();
        }
        refs.push(r.join(" "));
        preds.push(p.join(" "));
    }
    (preds, refs)
}

/// codemine's six values on two files of lines, and the seconds it took (reading included).
fn codemine(pred: &Path, gold: &Path) -> (Vec<f64>, f64) {
    let t = Instant::now();
    let read = |p: &Path| -> Vec<String> {
        std::fs::read_to_string(p)
            .expect("read")
            .lines()
            .map(str::to_string)
            .collect()
    };
    let preds = read(pred);
    let mut refs = read(gold);
    // As RQ1.ipynb: references cut to the predictions (evaluate.py would fail otherwise).
    refs.truncate(preds.len());
    let langs = vec![None; preds.len()];
    let batch = Batch {
        predictions: &preds,
        references: &refs,
        languages: &langs,
        codes: &[],
    };
    let all: Vec<usize> = (0..preds.len()).collect();
    let values = scorers(&["bleu_all"], &MetricConfig::default())
        .expect("scorers")
        .iter()
        .map(|s| s.score(&batch).expect("score").aggregate(&all))
        .collect();
    (values, t.elapsed().as_secs_f64())
}

/// `python evaluate.py` on the files: its printed values and its wall-clock seconds.
fn python(metrics: &Path, pred: &Path, gold: &Path) -> Option<(Vec<f64>, f64)> {
    let t = Instant::now();
    let out = Command::new(support::python())
        .current_dir(metrics)
        .arg("evaluate.py")
        .arg("--refs_filename")
        .arg(gold)
        .arg("--preds_filename")
        .arg(pred)
        .output()
        .ok()?;
    let secs = t.elapsed().as_secs_f64();
    if !out.status.success() {
        eprintln!(
            "evaluate.py failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        return None;
    }
    // The PrettyTable's value row: the line after the second border.
    let text = String::from_utf8_lossy(&out.stdout);
    let row = text
        .lines()
        .filter(|l| l.starts_with('|'))
        .nth(1)?
        .split('|')
        .filter_map(|c| c.trim().parse::<f64>().ok())
        .collect();
    Some((row, secs))
}

fn round4(x: f64) -> f64 {
    format!("{x:.4}").parse().unwrap_or(f64::NAN)
}

fn print_pair(name: &str, rust: &(Vec<f64>, f64), py: Option<&(Vec<f64>, f64)>) {
    let r: Vec<String> = rust.0.iter().map(|v| format!("{:.4}", v)).collect();
    println!("{name:<24} codemine {:>8.3} s  {}", rust.1, r.join("  "));
    if let Some((pv, ps)) = py {
        let p: Vec<String> = pv.iter().map(|v| format!("{v:.4}")).collect();
        let same = pv.len() == 6 && rust.0.iter().zip(pv).all(|(a, b)| round4(*a) == *b);
        println!(
            "{:<24} python   {ps:>8.3} s  {}   {}  speedup {:.0}x",
            "",
            p.join("  "),
            if same { "equal" } else { "DIFFERENT" },
            ps / rust.1
        );
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let n: usize = args.iter().find_map(|a| a.parse().ok()).unwrap_or(100_000);
    let with_python = !args.iter().any(|a| a == "--no-python");
    let rq = args.iter().any(|a| a == "--rq");
    let dir = tempfile::tempdir().expect("temp dir");
    let metrics_dir = dir.path().join("codesum");
    let src = if with_python || rq {
        match support::codesum() {
            Ok(s) => {
                s.extract_metrics(&metrics_dir).expect("extract");
                Some(s)
            }
            Err(e) => {
                eprintln!("{e}");
                None
            }
        }
    } else {
        None
    };
    let metrics = metrics_dir.join("metrics");

    let (preds, refs) = generate(n);
    let pred = dir.path().join("test.pred");
    let gold = dir.path().join("test.gold");
    std::fs::write(&pred, preds.join("\n") + "\n").expect("write");
    std::fs::write(&gold, refs.join("\n") + "\n").expect("write");
    let load = || {
        std::fs::read_to_string("/proc/loadavg")
            .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
            .unwrap_or_default()
    };
    println!(
        "{n} generated examples; rayon threads: {}; load average {}; columns: {}",
        rayon::current_num_threads(),
        load(),
        BLEU_ALL.join(" ")
    );
    let rust = codemine(&pred, &gold);
    let py = match (&src, with_python) {
        (Some(_), true) => python(&metrics, &pred, &gold),
        _ => None,
    };
    print_pair("generated", &rust, py.as_ref());
    println!("load average {}", load());

    if let (true, Some(src)) = (rq, &src) {
        let mut sets: Vec<(String, String, String)> = vec![(
            "metrics/test".into(),
            "metrics/test/test.pred".into(),
            "metrics/test/test.gold".into(),
        )];
        for data in ["TLC", "TLC_dedup"] {
            for model in ["codenn", "deepcom", "astattgru", "rencos", "ncs"] {
                sets.push((
                    format!("RQ1/{data}/{model}"),
                    format!("RQ/RQ1/{data}/{model}/test.pred"),
                    format!("RQ/RQ1/{data}/test.gold"),
                ));
            }
        }
        for (name, p, g) in sets {
            let pp = dir.path().join("rq.pred");
            let gp = dir.path().join("rq.gold");
            let pb = src.read(&p).expect("read");
            let lines = pb.iter().filter(|&&b| b == b'\n').count();
            std::fs::write(&pp, &pb).expect("write");
            // Cut the references as RQ1.ipynb does, for evaluate.py too.
            let gb = src.read(&g).expect("read");
            let gs = String::from_utf8_lossy(&gb);
            let cut: String = gs.split_inclusive('\n').take(lines).collect();
            std::fs::write(&gp, cut).expect("write");
            let rust = codemine(&pp, &gp);
            let py = python(&metrics, &pp, &gp);
            print_pair(&name, &rust, py.as_ref());
        }
    }
}

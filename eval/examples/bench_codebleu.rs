//! CodeBLEU speed: scores generated prediction/reference pairs (the functions and edits of
//! the agreement test) per language with this crate, one thread and all threads, and times
//! the `codebleu` package (corpus call, tests/harness/codebleu_reference.py) on a subset of
//! the same pairs, checking that both give the same corpus score on that subset.
//!
//!   cargo run --release -p codemine-eval --example bench_codebleu -- [EXAMPLES] [PY_EXAMPLES]
//!
//! Defaults: 20,000 examples per language, 1,000 of them for the Python package. Python is
//! `$CODEMINE_PYTHON`, else the workspace's `.venv/bin/python`, else `python3`.
//!
//! Rates are examples per second of wall-clock time and, in brackets, per second of CPU time
//! of the scoring thread (ours, from /proc/thread-self/schedstat) or process (the package's
//! `time.process_time`), which a busy machine does not distort.

#[path = "../tests/it/codebleu_cases.rs"]
mod codebleu_cases;

#[path = "../tests/it/support.rs"]
mod support;

use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;
use support::python;

use codemine_eval::codebleu::{codebleu_stats, CodeBleuScorer, CodeBleuStats, Language, Weights};
use serde_json::json;

/// CPU time of the calling thread (Linux), if known.
fn thread_cpu() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: f64 = s.split_whitespace().next()?.parse().ok()?;
    Some(ns / 1e9)
}

fn rate(n: usize, seconds: Option<f64>) -> String {
    seconds.map_or("?".to_string(), |s| format!("{:.0}", n as f64 / s))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.replace([',', '_'], "").parse())
        .collect::<Result<_, _>>()?;
    let n = args.first().copied().unwrap_or(20_000);
    let n_py = args.get(1).copied().unwrap_or(1_000).min(n);
    let script =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/harness/codebleu_reference.py");
    println!(
        "CodeBLEU on {n} generated examples per language ({} threads, load average {}); the codebleu package on the first {n_py}",
        rayon::current_num_threads(),
        std::fs::read_to_string("/proc/loadavg")
            .ok()
            .and_then(|l| l.split_whitespace().next().map(str::to_string))
            .unwrap_or_else(|| "?".to_string())
    );
    println!(
        "{:<7} {:>9} {:>20} {:>13} {:>18} {:>16}  corpus CodeBLEU on the subset",
        "lang", "tokens/ex", "ours, 1 thread [CPU]", "ours, all", "package [CPU]", "speed-up [CPU]"
    );
    for (k, lang) in [Language::Python, Language::Java, Language::C, Language::Cpp]
        .into_iter()
        .enumerate()
    {
        let cases = codebleu_cases::cases(lang, 1000 + k as u64, n);
        let refs: Vec<&[String]> = cases.iter().map(|c| c.refs.as_slice()).collect();
        let preds: Vec<&str> = cases.iter().map(|c| c.pred.as_str()).collect();
        let tokens: usize = cases
            .iter()
            .map(|c| c.pred.split_whitespace().count())
            .sum();

        let start = Instant::now();
        let cpu = thread_cpu();
        let mut scorer = CodeBleuScorer::new(lang)?;
        let mut sequential = Vec::with_capacity(n);
        for (i, c) in cases.iter().enumerate() {
            sequential.push(scorer.example(i, &c.refs, &c.pred)?);
        }
        let one_thread = n as f64 / start.elapsed().as_secs_f64();
        let one_thread_cpu = thread_cpu().zip(cpu).map(|(b, a)| b - a);

        let start = Instant::now();
        let parallel = codebleu_stats(&refs, &preds, lang)?;
        let all_threads = n as f64 / start.elapsed().as_secs_f64();
        assert_eq!(sequential, parallel);

        let ours_subset = CodeBleuStats::sum(&parallel[..n_py]).score(Weights::default())?;
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("cases.json");
        let spec = json!({
            "lang": lang.name(),
            "cases": cases[..n_py].iter().map(|c| json!({"refs": c.refs, "pred": c.pred})).collect::<Vec<_>>(),
        });
        std::fs::write(&path, spec.to_string())?;
        let out = Command::new(python())
            .arg(&script)
            .arg(&path)
            .arg("--no-examples")
            .env("PYTHONHASHSEED", "0")
            .output()?;
        if !out.status.success() {
            return Err(format!(
                "codebleu reference failed: {}",
                String::from_utf8_lossy(&out.stderr)
            )
            .into());
        }
        let theirs: serde_json::Value = serde_json::from_slice(&out.stdout)?;
        let seconds = theirs["seconds"].as_f64().unwrap_or(f64::NAN);
        let package = n_py as f64 / seconds;
        let package_cpu = theirs["cpu_seconds"].as_f64();
        let speedup_cpu = one_thread_cpu
            .zip(package_cpu)
            .map_or("?".to_string(), |(ours, theirs)| {
                format!("{:.0}", (n as f64 / ours) / (n_py as f64 / theirs))
            });
        println!(
            "{:<7} {:>9.1} {:>11.0}/s [{:>5}] {:>11.0}/s {:>8.1}/s [{:>5}] {:>8.0}x [{:>4}x]  ours {:.6}, package {:.6}",
            lang.name(),
            tokens as f64 / n as f64,
            one_thread,
            rate(n, one_thread_cpu),
            all_threads,
            package,
            rate(n_py, package_cpu),
            one_thread / package,
            speedup_cpu,
            ours_subset.codebleu,
            theirs["corpus"]["codebleu"].as_f64().unwrap_or(f64::NAN),
        );
    }
    Ok(())
}

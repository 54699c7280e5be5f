//! SIDE embedding throughput: `bench_side --model DIR --pairs PAIRS.jsonl [--threads N]
//! [--limit N] [--batch N]` embeds every (code, docstring) pair of a JSONL file (one object
//! per line with `code` and `docstring`, for example CSN rows exported with pyarrow) and
//! prints tokens/s, pairs/s and peak memory as JSON. `bench_side_torch.py` measures PyTorch
//! on the same pairs; BENCHMARKS.md has both.

use std::path::PathBuf;
use std::time::Instant;

use codemine_side::Side;

// The allocator of the `codemine` binary, which runs SIDE in `mine --side-model`.
#[cfg(not(target_env = "msvc"))]
#[global_allocator]
static GLOBAL: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

fn arg(args: &[String], name: &str) -> Option<String> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

/// Peak resident memory of this process (`VmHWM`), in MB.
fn peak_mb() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|kb| kb.parse::<f64>().ok())
        })
        .map_or(0.0, |kb| kb / 1024.0)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let model = PathBuf::from(arg(&args, "--model").ok_or("--model DIR")?);
    let pairs_file = PathBuf::from(arg(&args, "--pairs").ok_or("--pairs FILE")?);
    let threads: usize = arg(&args, "--threads").map_or(Ok(1), |s| s.parse())?;
    let limit: usize = arg(&args, "--limit").map_or(Ok(usize::MAX), |s| s.parse())?;
    let batch: usize = arg(&args, "--batch").map_or(Ok(codemine_side::BATCH), |s| s.parse())?;

    let mut pairs: Vec<(String, String)> = Vec::new();
    for line in std::fs::read_to_string(&pairs_file)?.lines().take(limit) {
        let v: serde_json::Value = serde_json::from_str(line)?;
        let text = |k: &str| v[k].as_str().unwrap_or("").to_string();
        pairs.push((text("code"), text("docstring")));
    }
    let t = Instant::now();
    let side = Side::load(&model)?;
    let load = t.elapsed().as_secs_f64();
    let pool = rayon_pool(threads)?;
    let refs: Vec<(&str, &str)> = pairs
        .iter()
        .map(|(c, d)| (c.as_str(), d.as_str()))
        .collect();
    let tokens: usize = refs
        .iter()
        .map(|(c, d)| {
            Ok::<_, codemine_side::SideError>(side.token_ids(c)?.len() + side.token_ids(d)?.len())
        })
        .sum::<Result<usize, _>>()?;
    let t = Instant::now();
    let scores = pool.install(|| side.score(&refs, batch))?;
    let secs = t.elapsed().as_secs_f64();
    let mean = scores.iter().map(|&s| s as f64).sum::<f64>() / scores.len().max(1) as f64;
    println!(
        "{}",
        serde_json::json!({
            "impl": "codemine", "threads": threads, "batch": batch,
            "pairs": pairs.len(), "tokens": tokens, "load_s": load, "seconds": secs,
            "pairs_per_s": pairs.len() as f64 / secs, "tokens_per_s": tokens as f64 / secs,
            "peak_mb": peak_mb(), "mean_side": mean,
        })
    );
    Ok(())
}

/// The forward passes run side by side on the current rayon pool: `threads` of them.
fn rayon_pool(threads: usize) -> Result<rayon::ThreadPool, rayon::ThreadPoolBuildError> {
    rayon::ThreadPoolBuilder::new().num_threads(threads).build()
}

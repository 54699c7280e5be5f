//! Issue 33's measured costs: (1) hashing a SIDE weights file (xxh3-128 over the bytes, as
//! `codemine_side::Side::load` hashes every file it reads) against reading it; (2) reading a
//! decontamination benchmark (streamed, `miner::benchmark::read_each` into the index as
//! `mine --decontaminate` does) at growing sizes, with the peak resident memory.
//!
//! ```sh
//! cargo run --release --example bench_hostile -- hash FILE
//! cargo run --release --example bench_hostile -- bench FILE.jsonl
//! ```

use std::time::Instant;

fn peak_rss_mb() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse::<f64>().ok())
        })
        .unwrap_or(0.0)
        / 1024.0
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    match args.get(1).map(String::as_str) {
        Some("hash") => {
            let path = std::path::Path::new(&args[2]);
            let t = Instant::now();
            let bytes =
                codemine_io::read_regular(path, u64::MAX, codemine_io::Follow::Yes).expect("read");
            let read = t.elapsed().as_secs_f64();
            let t = Instant::now();
            let h = xxhash_rust::xxh3::xxh3_128(&bytes);
            let hash = t.elapsed().as_secs_f64();
            println!(
                "{} MB: read {read:.3} s, xxh3-128 {hash:.3} s ({:.1} GB/s) [{h:032x}]",
                bytes.len() >> 20,
                bytes.len() as f64 / hash / 1e9
            );
        }
        Some("bench") => {
            let spec = miner::benchmark::BenchmarkSpec::parse(&args[2]);
            let size = std::fs::metadata(&spec.path).expect("file").len();
            let base = peak_rss_mb();
            let t = Instant::now();
            let params = codemine_filters::decontam::DecontamParams::default();
            let mut b = miner::pipeline::decontam::DecontaminatorBuilder::new(&params);
            b.read(&spec, &miner::benchmark::ReadOptions::default())
                .expect("read");
            let d = b.finish();
            println!(
                "{:.1} MB file, {} items: {:.2} s, peak RSS {:.0} MB ({:.0} MB over the start, {:.2}x the file)",
                size as f64 / 1e6,
                d.index().len(),
                t.elapsed().as_secs_f64(),
                peak_rss_mb(),
                peak_rss_mb() - base,
                (peak_rss_mb() - base) * 1048576.0 / size as f64
            );
        }
        _ => eprintln!("usage: bench_hostile hash FILE | bench FILE.jsonl"),
    }
}

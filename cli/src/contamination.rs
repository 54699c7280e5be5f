//! `codemine contamination`: where a mined dataset holds each benchmark item.

use std::path::PathBuf;

use clap::Args;

use crate::decontam_args::{decontaminator, DecontamArgs};

#[derive(Args)]
pub struct ContaminationArgs {
    /// Benchmark files: JSONL, JSON or Parquet, plain or gzipped ([NAME=]FILE).
    #[arg(value_name = "BENCH", required = true)]
    benchmarks: Vec<String>,
    /// A finished output folder of `codemine mine`.
    #[arg(long, value_name = "OUT")]
    against: PathBuf,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    decontam: DecontamArgs,
}

pub fn run_contamination(args: ContaminationArgs) -> anyhow::Result<i32> {
    let params = args.decontam.params(None)?;
    let d = decontaminator(
        &args.benchmarks,
        "benchmark",
        &args.decontam.read_options()?,
        &params,
        args.decontam.decontaminate_warn_share,
    )?;
    let report = miner::contamination::run(&d, &args.against)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", miner::contamination::table(&report));
    }
    Ok(0)
}

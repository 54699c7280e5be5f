//! `codemine report`: redraws the dataset card's figures of a finished output folder.

use std::path::PathBuf;

use anyhow::Context;
use clap::Args;

#[derive(Args)]
pub struct ReportArgs {
    /// A finished output folder of `codemine mine` (it has stats.json).
    #[arg(value_name = "OUT")]
    out: PathBuf,
    /// Also write OUT/report.html: every figure and its numbers on one page, no network.
    #[arg(long)]
    html: bool,
}

pub fn run_report(args: ReportArgs) -> anyhow::Result<i32> {
    let stats = miner::report::read_stats(&args.out)?;
    let w = miner::report::write(&args.out, &stats, args.html)
        .with_context(|| format!("drawing the report of {}", args.out.display()))?;
    match &w.not_drawn {
        None => miner::escape::log(&format!(
            "codemine: {} figures drawn in {}{}",
            w.figures,
            args.out.display(),
            if w.html { ", with report.html" } else { "" }
        )),
        Some(why) => miner::escape::log(&format!("codemine: warning: figures not drawn: {why}")),
    }
    Ok(0)
}

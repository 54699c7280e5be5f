//! The steps of a sharded run after the ranks: `codemine cluster` and `codemine finalize`.

use std::path::PathBuf;

use anyhow::Context;
use clap::Args;

use crate::mine::report;
use crate::values::{parse_size, shard_options};

#[derive(Args)]
pub struct ClusterArgs {
    /// The output folder the ranks mined into.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Worker threads (default: one per core).
    #[arg(long, short = 'j', default_value_t = 0)]
    threads: usize,
}

#[derive(Args)]
pub struct FinalizeArgs {
    /// The output folder the ranks mined into.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Roll Parquet shards at this much uncompressed row data (K, M, G suffixes allowed).
    #[arg(long, value_name = "SIZE", default_value = "256M", value_parser = parse_size)]
    shard_size: u64,
    /// Roll Parquet shards at this many rows.
    #[arg(long, value_name = "N")]
    shard_rows: Option<usize>,
    /// Worker threads of the SIDE step, when the ranks mined with --side-model (default:
    /// one per core).
    #[arg(long, short = 'j', default_value_t = 0)]
    threads: usize,
}

pub fn run_cluster(args: ClusterArgs) -> anyhow::Result<i32> {
    let step = miner::pipeline::cluster(&args.out, args.threads)
        .with_context(|| format!("clustering in {}", args.out.display()))?;
    match step {
        Some(s) => miner::escape::log(&format!(
            "codemine: {} functions clustered in {:.1} s ({} candidate pairs, {} near pairs) -> {}",
            s.functions,
            s.seconds,
            s.candidate_pairs,
            s.near_pairs,
            codemine_schemas::layout::CLUSTERS.path(&args.out).display()
        )),
        None => miner::escape::log("codemine: the run was mined without dedup: nothing to cluster"),
    }
    Ok(0)
}

pub fn run_finalize(args: FinalizeArgs) -> anyhow::Result<i32> {
    let summary = miner::pipeline::finalize(
        &args.out,
        shard_options(args.shard_size, args.shard_rows),
        args.threads,
    )
    .with_context(|| format!("finalizing {}", args.out.display()))?;
    report(&summary, &args.out, false)
}

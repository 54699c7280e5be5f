//! `codemine inspect`: a table's schema, row count and first rows, without Python.

use std::path::PathBuf;

use clap::Args;

#[derive(Args)]
pub struct InspectArgs {
    /// An output folder of `codemine mine`, one of its table folders, or a Parquet file.
    #[arg(value_name = "OUT")]
    out: PathBuf,
    /// A table of the output folder, as the dataset card's configs name them (csn,
    /// yabloco, callgraph_nodes, callgraph_edges, repositories, dedup_bands,
    /// dedup_clusters, dropped, completion_token, ...), or a folder or file in it.
    #[arg(value_name = "TABLE")]
    table: Option<String>,
    /// First rows to show (0: the files, row counts and schema only).
    #[arg(long, short = 'n', value_name = "N", default_value_t = 3,
          value_parser = clap::value_parser!(u64).range(0..=miner::inspect::MAX_ROWS as u64))]
    rows: u64,
    /// Characters of a value shown before it is cut.
    #[arg(long, value_name = "N", default_value_t = 80,
          value_parser = clap::value_parser!(u64).range(8..=100_000))]
    width: u64,
}

pub fn run_inspect(args: InspectArgs) -> anyhow::Result<i32> {
    let opts = miner::inspect::InspectOptions {
        rows: usize::try_from(args.rows).unwrap_or(miner::inspect::MAX_ROWS),
        width: usize::try_from(args.width).unwrap_or(usize::MAX),
    };
    let text = miner::inspect::inspect(&args.out, args.table.as_deref(), &opts)?;
    print!("{text}");
    Ok(0)
}
